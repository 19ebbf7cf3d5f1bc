package readme_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/netns"
	"github.com/afor-go/afor/internal/peers"
	"github.com/afor-go/afor/internal/readme"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/transport/dds"
)

// TestMain runs the tests in a loopback-only network namespace, where the
// README's ROS 2 talker and the test's listener find each other over DDS.
func TestMain(m *testing.M) { os.Exit(netns.Main(m)) }

func TestPrograms(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs")
	}
	root := peers.ModuleRoot()
	f, err := os.Open(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	progs, err := readme.Programs(f)
	if err != nil {
		t.Fatal(err)
	}
	var quick, talker string
	for _, p := range progs {
		switch {
		case strings.Contains(p, `"github.com/afor-go/afor/transport/mem"`):
			quick = p
		case strings.Contains(p, `ros.NewNode(ctx, "talker"`):
			talker = p
		}
	}
	if quick == "" || talker == "" {
		t.Fatalf("README.md: %d complete programs, without the Quick start or the ROS talker", len(progs))
	}
	t.Run("QuickStart", func(t *testing.T) {
		t.Parallel()
		out, err := exec.Command(build(t, root, quick)).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if !bytes.HasPrefix(out, []byte("first x=")) || !bytes.Contains(out, []byte("\nx=1.0\n")) {
			t.Fatalf("the Quick start printed:\n%s", out)
		}
	})
	t.Run("ROSTalker", func(t *testing.T) {
		t.Parallel()
		netns.Require(t)
		testTalker(t, build(t, root, talker))
	})
}

// build writes src as main.go of a new module outside the repository, set
// up as README's Install section says (afor required and replaced by this
// checkout), and builds it. Where the README then runs go mod tidy, the
// module gets afor's own requirements and go.sum: the test runs without a
// network, and tidy offline needs the go.mod of every module in the graph
// (gopkg.in/check.v1, which yaml.v3's tests require, among them), which
// building this repository does not download; a fresh machine's module
// cache lacked it.
func build(t *testing.T, root, src string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	edit := []string{"mod", "edit", "-require=github.com/afor-go/afor@v0.0.0", "-replace=github.com/afor-go/afor=" + root}
	for _, r := range requirements(t, root) {
		edit = append(edit, "-require="+r)
	}
	for _, args := range [][]string{
		{"mod", "init", "example.com/robot"},
		edit,
		{"build", "-o", "robot", "."},
	} {
		goCommand(t, dir, args...)
	}
	return filepath.Join(dir, "robot")
}

// requirements returns the requirements of the module in dir, as
// path@version.
func requirements(t *testing.T, dir string) []string {
	t.Helper()
	var mod struct {
		Require []struct{ Path, Version string }
	}
	if err := json.Unmarshal(goCommand(t, dir, "mod", "edit", "-json"), &mod); err != nil {
		t.Fatal(err)
	}
	var reqs []string
	for _, r := range mod.Require {
		reqs = append(reqs, r.Path+"@"+r.Version)
	}
	return reqs
}

// goCommand runs the go command with args in dir and returns its output.
func goCommand(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	// The network namespace has no network: the module cache (which
	// building this repository filled) must serve every module, and the
	// checksums come from go.sum rather than from the checksum database.
	// CGO_ENABLED=0 as CI's pure-Go build, whose build cache then serves
	// this one.
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=", "GOPROXY=off", "GOSUMDB=off", "CGO_ENABLED=0")
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			stderr = ee.Stderr
		}
		t.Fatalf("go %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
	}
	return out
}

// testTalker runs the README's talker on DDS and listens to it from this
// process, then stops it with Ctrl-C: it must exit 0.
func testTalker(t *testing.T, bin string) {
	const domain = 57
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := ros.Open(ctx, ros.WithDomainID(domain), ros.WithLogger(slog.New(slog.DiscardHandler)),
		ros.WithMiddleware(ros.DDS(dds.Config{Range: dds.RangeLocalhost, Getenv: func(string) string { return "" }})))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n, err := c.NewNode("readme_listener")
	if err != nil {
		t.Fatal(err)
	}
	sub, err := ros.Subscribe[std_msgs.String](n, "chatter", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "ROS_DOMAIN_ID=57", "ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST", "RMW_IMPLEMENTATION=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-exited
		}
	}()
	msg, err := sub.WaitForValue(ctx)
	if err != nil {
		t.Fatalf("no message from the README's talker: %v (its stderr: %s)", err, stderr.String())
	}
	if !strings.HasPrefix(msg.Data, "hello world: ") {
		t.Fatalf("the talker said %q", msg.Data)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		var exit *exec.ExitError
		if errors.As(err, &exit) || err != nil {
			t.Fatalf("the talker exited with %v on Ctrl-C: %s", err, stderr.String())
		}
	case <-ctx.Done():
		t.Fatal("the talker did not stop on Ctrl-C")
	}
}
