package ddspeer

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/afor-go/afor/internal/peers"
)

// cSources returns the files of testdata/cpeer that make the C peer.
func cSources() []string { return []string{"cpeer.c", "String.idl"} }

// C starts the C peer, testdata/cpeer on Cyclone DDS 0.10 from Debian
// (cyclonedds-dev, cyclonedds-tools). It is built on first use, see
// [BuildC].
func C(t testing.TB, o Options) *Peer {
	t.Helper()
	cmd := exec.Command(BuildC(t), o.args()...)
	cmd.Env = env(o.Env)
	return start(t, "cyclone-c "+string(o.Role), cmd)
}

// BuildC returns the C peer's executable, building it if needed: idlc turns
// String.idl into C in a temporary folder and gcc links it with cpeer.c and
// -lddsc. The result is cached under the user's cache folder (or the
// temporary folder) by a hash of the sources and tools, so a test binary, and
// the next ones, build it once; nothing generated lands in the repository.
func BuildC(t testing.TB) string {
	t.Helper()
	idlc := peers.Command(t, "idlc")
	gcc := peers.Command(t, "gcc")
	src := filepath.Join(testdata(t), "cpeer")
	h := sha256.New()
	for _, name := range cSources() {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatalf("ddspeer: C peer source: %v", err)
		}
		fmt.Fprintf(h, "%s %d\n", name, len(b))
		h.Write(b)
	}
	for _, tool := range []string{idlc, gcc} {
		if fi, err := os.Stat(tool); err == nil {
			fmt.Fprintf(h, "%s %d %d\n", tool, fi.Size(), fi.ModTime().UnixNano())
		}
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "afor", "ddspeer")
	exe := filepath.Join(dir, "cpeer-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(exe); err == nil {
		return exe
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("ddspeer: %v", err)
	}
	work, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		t.Fatalf("ddspeer: %v", err)
	}
	defer os.RemoveAll(work)
	run := func(name string, args ...string) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = work
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("ddspeer: building the C peer: %s %v: %v\n%s", filepath.Base(name), args, err, out)
		}
	}
	run(idlc, "-l", "c", filepath.Join(src, "String.idl"))
	run(gcc, "-O2", "-Wall", "-o", "cpeer", filepath.Join(src, "cpeer.c"), "String.c", "-I.", "-lddsc", "-lpthread")
	// Atomic: a concurrent build of the same sources renames an identical file.
	if err := os.Rename(filepath.Join(work, "cpeer"), exe); err != nil {
		t.Fatalf("ddspeer: %v", err)
	}
	return exe
}
