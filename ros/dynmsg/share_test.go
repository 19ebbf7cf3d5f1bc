package dynmsg_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/afor-go/afor/internal/peers"
	"github.com/afor-go/afor/ros/dynmsg"
	"github.com/afor-go/afor/ros/interfaces"
)

// venvPrefix returns the install prefix of the Python virtual environment
// holding the ROS 2 wheels, whose share folder is laid out as a ROS
// install's (share/<pkg>/msg/*.msg with their comments, and the ament
// index). It skips, or fails in CI, without one.
func venvPrefix(t *testing.T) string {
	t.Helper()
	py := peers.Python(t, "rclpy")
	prefix := filepath.Dir(filepath.Dir(py))
	if _, err := os.Stat(filepath.Join(prefix, "share", "ament_index")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the ROS 2 wheels of %s install no share folder: %v", py, err)
		}
		t.Skipf("the ROS 2 wheels of %s install no share folder: %v", py, err)
	}
	return prefix
}

// TestRosShareFolders loads the interface files of a real ROS 2 install (the
// share folder of the wheels: the original files, comments included)
// through AmentDirs, as the CLI does with AMENT_PREFIX_PATH, and checks that
// every file parses and that every type we ship has the same hash there.
func TestRosShareFolders(t *testing.T) {
	prefix := venvPrefix(t)
	reg, err := dynmsg.NewRegistry(dynmsg.AmentDirs(prefix)...)
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.Check(); err != nil {
		t.Fatal(err)
	}
	shipped, err := interfaces.Registry()
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, m := range shipped.Messages() {
		theirs, err := reg.Message(m.FullName())
		if err != nil || theirs.File == m.File { // not installed, or ours
			continue
		}
		want, err := shipped.TypeHash(m.FullName())
		if err != nil {
			t.Fatal(err)
		}
		if got, err := reg.TypeHash(m.FullName()); err != nil || got != want {
			t.Errorf("%s: hash from %s is %s (%v), shipped %s", m.FullName(), theirs.File, got, err, want)
		}
		compared++
	}
	if compared < 100 {
		t.Errorf("only %d shipped types found in %s", compared, prefix)
	}
	// What ros2 interface show prints for it, from the original file.
	got, err := dynmsg.ShowInterface(reg, "geometry_msgs/msg/PoseStamped")
	want := "# A Pose with reference coordinate frame and timestamp\n\nstd_msgs/Header header\n" +
		"\tbuiltin_interfaces/Time stamp\n\t\tint32 sec\n\t\tuint32 nanosec\n\tstring frame_id\n" +
		"Pose pose\n\tPoint position\n\t\tfloat64 x\n\t\tfloat64 y\n\t\tfloat64 z\n" +
		"\tQuaternion orientation\n\t\tfloat64 x 0\n\t\tfloat64 y 0\n\t\tfloat64 z 0\n\t\tfloat64 w 1\n"
	if err != nil || got != want {
		t.Errorf("ShowInterface = %q, %v\nwant %q", got, err, want)
	}
	if !strings.Contains(strings.Join(dynmsg.ListInterfaces(reg), "\n"), "    lifecycle_msgs/msg/State\n") {
		t.Error("a package of the install that we do not ship is not listed")
	}
}
