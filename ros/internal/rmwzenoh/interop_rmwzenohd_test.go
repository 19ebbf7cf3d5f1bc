package rmwzenoh

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"regexp"
	"testing"
	"time"
)

// rmwZenohdScript runs rmw_zenoh_cpp's router, rmw_zenohd, found through
// the ament index of the launcher's environment.
const rmwZenohdScript = `import os
from ament_index_python.packages import get_package_prefix
p = os.path.join(get_package_prefix("rmw_zenoh_cpp"), "lib", "rmw_zenoh_cpp", "rmw_zenohd")
os.execv(p, [p])
`

// startRMWZenohd runs the real rmw_zenohd with launcher's environment (the
// one rclpy runs on rmw_zenoh_cpp with), its default router config but
// listening on a free port of 127.0.0.1 only, and returns its endpoint,
// read from its log. It stops with the test.
func startRMWZenohd(t *testing.T, launcher string) string {
	t.Helper()
	// The line where rmw_zenohd says where it listens.
	reachableAt := regexp.MustCompile(`Zenoh can be reached at: (tcp/127\.0\.0\.1:[0-9]+)`)
	cmd := exec.Command(launcher, "-c", rmwZenohdScript)
	cmd.Env = append(os.Environ(), "RUST_LOG=info",
		`ZENOH_CONFIG_OVERRIDE=listen/endpoints=["tcp/127.0.0.1:0"];scouting/multicast/enabled=false`)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	ready := make(chan string, 1)
	go func() {
		defer close(exited)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := reachableAt.FindSubmatch(sc.Bytes()); m != nil {
				select {
				case ready <- string(m[1]):
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		_ = cmd.Wait()
	})
	select {
	case ep := <-ready:
		return ep
	case <-exited:
		t.Fatal("rmw_zenohd exited before it listened")
	case <-time.After(20 * time.Second):
		t.Fatal("rmw_zenohd did not say where it listens")
	}
	return ""
}
