package rmwzenoh

import (
	"os"
	"os/exec"
	"regexp"
	"testing"

	"github.com/afor-go/afor/internal/peers"
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
	return peers.Server{
		Name: "rmw_zenohd",
		Ready: func(line []byte) (string, bool) {
			if m := reachableAt.FindSubmatch(line); m != nil {
				return string(m[1]), true
			}
			return "", false
		},
		Stop:   func(cmd *exec.Cmd) error { return cmd.Process.Signal(os.Interrupt) },
		Stderr: true,
	}.Start(t, cmd)
}
