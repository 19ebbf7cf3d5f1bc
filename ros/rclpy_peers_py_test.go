package ros

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/afor-go/afor/internal/netns"
	"github.com/afor-go/afor/internal/peers"
	"github.com/afor-go/afor/transport/dds"
	"github.com/afor-go/afor/transport/zenoh"
)

// envRMWZenohPython names a launcher that runs Python with rclpy on a real
// rmw_zenoh_cpp (ros/internal/rmwzenoh's TestInteropRealRMWZenoh says how
// to build one). The rclpy interop tests' rmw_zenoh leg skips without it.
const envRMWZenohPython = "AFOR_RMW_ZENOH_PYTHON"

// rclpyDomain hands each rclpy interop test of the package its own ROS
// domain (100 to 148; ros/internal/rmwdds's tests take 149 to 199), so
// that one test's peers never see another's.
var rclpyDomain atomic.Int32

// nextRclpyDomain returns the domain of the next rclpy interop test.
func nextRclpyDomain() int { return 100 + int(rclpyDomain.Add(1)-1)%49 }

// rclpyPeer is the middleware a Go context must use to reach an rclpy
// process, and how to start that process.
type rclpyPeer struct {
	mw       Middleware
	domain   int
	launcher string   // a Python with rclpy and the modules asked for
	env      []string // the rclpy process's environment on top of ours
}

// forEachRclpyMiddleware runs test once per middleware rclpy is run on:
// "fastdds" (rclpyMiddleware) and "zenoh" (rclpyZenohMiddleware, skipped
// unless AFOR_RMW_ZENOH_PYTHON names a launcher), each as a subtest with
// an rclpy peer that can import modules.
func forEachRclpyMiddleware(t *testing.T, modules []string, test func(t *testing.T, peer rclpyPeer)) {
	t.Run("fastdds", func(t *testing.T) { test(t, rclpyMiddleware(t, modules...)) })
	t.Run("zenoh", func(t *testing.T) { test(t, rclpyZenohMiddleware(t, modules...)) })
}

// rclpyMiddleware returns the DDS middleware that reaches rclpy on Fast
// DDS (the pinned Kilted wheels of the module's .venv) in the
// loopback-only namespace, on a domain of the test's own, with a launcher
// of Python holding modules; or skips (fails under CI=true) when there is
// no such Python or namespace.
func rclpyMiddleware(t *testing.T, modules ...string) rclpyPeer {
	netns.Require(t)
	py := peers.Python(t, append([]string{"rclpy"}, modules...)...)
	d := nextRclpyDomain()
	return rclpyPeer{
		mw:       DDS(dds.Config{Range: dds.RangeSubnet, Getenv: func(string) string { return "" }}),
		domain:   d,
		launcher: py,
		env: []string{"RMW_IMPLEMENTATION=rmw_fastrtps_cpp", "FASTDDS_BUILTIN_TRANSPORTS=UDPv4",
			"ROS_DOMAIN_ID=" + strconv.Itoa(d), "ROS_AUTOMATIC_DISCOVERY_RANGE=SUBNET"},
	}
}

// rclpyZenohMiddleware returns the Zenoh middleware that reaches rclpy on
// a real rmw_zenoh_cpp (the launcher AFOR_RMW_ZENOH_PYTHON names, a
// hand-built peer: skipped when unset, even in CI), as rmw_zenoh runs in
// a deployment: a Zenoh router configured as rmw_zenohd (the
// eclipse-zenoh package's, run by the module's .venv Python) on a free
// port of 127.0.0.1, and the Go context and the rclpy process as peers
// connecting to it and listening on 127.0.0.1, which link to each other
// directly once the router's gossip tells them of each other.
func rclpyZenohMiddleware(t *testing.T, modules ...string) rclpyPeer {
	launcher := os.Getenv(envRMWZenohPython)
	if launcher == "" {
		t.Skipf("set %s to a launcher of Python with rclpy on rmw_zenoh_cpp (see ros/internal/rmwzenoh's TestInteropRealRMWZenoh)", envRMWZenohPython)
	}
	// The launcher must import the modules and run rclpy on rmw_zenoh_cpp.
	src := "import " + strings.Join(append([]string{"rclpy.utilities"}, modules...), ", ") +
		"; print(rclpy.utilities.get_rmw_implementation_identifier())"
	out, err := exec.Command(launcher, "-c", src).Output()
	if err != nil || strings.TrimSpace(string(out)) != "rmw_zenoh_cpp" {
		t.Fatalf("%s=%s: %q says %q, %v; want rmw_zenoh_cpp", envRMWZenohPython, launcher, src, out, err)
	}
	ep := startZenohRouter(t)
	d := nextRclpyDomain()
	return rclpyPeer{
		mw:       Zenoh(zenoh.Config{Connect: []string{ep}, Listen: []string{"tcp/127.0.0.1:0"}}),
		domain:   d,
		launcher: launcher,
		env: []string{"RMW_IMPLEMENTATION=rmw_zenoh_cpp", "ROS_DOMAIN_ID=" + strconv.Itoa(d),
			`ZENOH_CONFIG_OVERRIDE=connect/endpoints=["` + ep + `"];listen/endpoints=["tcp/127.0.0.1:0"]`},
	}
}

// startZenohRouter runs ros/internal/rmwzenoh/testdata/zenoh_router.py, a
// Rust Zenoh router configured as rmw_zenohd, on a free port of 127.0.0.1
// and returns its endpoint. It stops with the test.
func startZenohRouter(t *testing.T) string {
	t.Helper()
	return peers.ZenohRouter(t, filepath.Join("internal", "rmwzenoh", "testdata", "zenoh_router.py"), "--rmw")
}
