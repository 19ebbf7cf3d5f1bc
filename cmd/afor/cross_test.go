package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestCrossCompiles builds the binary as it ships, pure Go (CGO_ENABLED=0),
// for the robots' and laptops' platforms, and logs the sizes.
func TestCrossCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiling three binaries is slow: skipped with -short")
	}
	dir := t.TempDir()
	for _, target := range [][2]string{{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "arm64"}} {
		out := filepath.Join(dir, "afor-"+target[0]+"-"+target[1])
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+target[0], "GOARCH="+target[1])
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s/%s: %v\n%s", target[0], target[1], err, b)
		}
		fi, err := os.Stat(out)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s/%s: %.1f MB (-s -w)", target[0], target[1], float64(fi.Size())/1e6)
	}
}
