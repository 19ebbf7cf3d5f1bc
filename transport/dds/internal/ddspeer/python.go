package ddspeer

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/afor-go/afor/internal/peers"
)

// testdata returns the folder of the driver programs, transport/dds/testdata.
func testdata(t testing.TB) string {
	t.Helper()
	root := peers.ModuleRoot()
	if root == "" {
		t.Fatal("ddspeer: module root not found from the working directory")
	}
	return filepath.Join(root, "transport", "dds", "testdata")
}

// pyNoCache keeps the drivers from writing __pycache__ into testdata.
const pyNoCache = "PYTHONDONTWRITEBYTECODE=1"

// Cyclone starts testdata/cyclone_peer.py, a writer or reader on Cyclone DDS
// through the cyclonedds Python package (11.0.1, pinned in
// .ci/requirements-dds.txt).
func Cyclone(t testing.TB, o Options) *Peer {
	t.Helper()
	py := peers.Python(t, "cyclonedds")
	cmd := exec.Command(py, append([]string{filepath.Join(testdata(t), "cyclone_peer.py")}, o.args()...)...)
	cmd.Env = env([]string{pyNoCache}, o.Env)
	return start(t, "cyclone-py "+string(o.Role), cmd)
}

// Rclpy starts testdata/rclpy_peer.py, a talker or listener on rclpy with
// Fast DDS (rmw_fastrtps_cpp) over UDPv4 only (no shared memory), in the
// ROS domain o.Domain. The ROS wheels of the virtual environment find their
// libraries and ament index by themselves: no LD_LIBRARY_PATH or
// AMENT_PREFIX_PATH is needed. The ROS discovery variables of the caller's
// environment are dropped (the peer then uses Fast DDS's defaults) unless
// set again in o.Env.
func Rclpy(t testing.TB, o Options) *Peer {
	t.Helper()
	py := peers.Python(t, "rclpy", "std_msgs.msg", "rmw_fastrtps_cpp")
	cmd := exec.Command(py, append([]string{filepath.Join(testdata(t), "rclpy_peer.py")}, o.args()...)...)
	cmd.Env = env([]string{
		pyNoCache,
		"RMW_IMPLEMENTATION=rmw_fastrtps_cpp",
		"FASTDDS_BUILTIN_TRANSPORTS=UDPv4",
		"ROS_DOMAIN_ID=" + strconv.Itoa(o.Domain),
		"ROS_AUTOMATIC_DISCOVERY_RANGE=",
		"ROS_STATIC_PEERS=",
		"ROS_LOCALHOST_ONLY=",
	}, o.Env)
	return start(t, "rclpy "+string(o.Role), cmd)
}
