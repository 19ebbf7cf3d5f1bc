package interfaces_test

import (
	"fmt"
	"io/fs"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/afor-go/afor/ros/idl"
	"github.com/afor-go/afor/ros/interfaces"
)

// Published RIHS01 hashes (ROS 2 Jazzy/Kilted; see
// shared/notes/ros2-interop.md §3).
var golden = map[string]string{
	"std_msgs/msg/String":                 "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18",
	"std_msgs/msg/Empty":                  "RIHS01_20b625256f32d5dbc0d04fee44f43c41e51c70d3502f84b4a08e7a9c26a96312",
	"std_msgs/msg/Header":                 "RIHS01_f49fb3ae2cf070f793645ff749683ac6b06203e41c891e17701b1cb597ce6a01",
	"std_msgs/msg/Bool":                   "RIHS01_feb91e995ff9ebd09c0cb3d2aed18b11077585839fb5db80193b62d74528f6c9",
	"builtin_interfaces/msg/Time":         "RIHS01_b106235e25a4c5ed35098aa0a61a3ee9c9b18d197f398b0e4206cea9acf9c197",
	"geometry_msgs/msg/Vector3":           "RIHS01_cc12fe83e4c02719f1ce8070bfd14aecd40f75a96696a67a2a1f37f7dbb0765d",
	"geometry_msgs/msg/Twist":             "RIHS01_9c45bf16fe0983d80e3cfe750d6835843d265a9a6c46bd2e609fcddde6fb8d2a",
	"geometry_msgs/msg/PoseStamped":       "RIHS01_10f3786d7d40fd2b54367835614bff85d4ad3b5dab62bf8bca0cc232d73b4cd8",
	"example_interfaces/srv/AddTwoInts":   "RIHS01_e118de6bf5eeb66a2491b5bda11202e7b68f198d6f67922cf30364858239c81a",
	"std_srvs/srv/SetBool":                "RIHS01_abe9e4bb6b41b40e6789712c00ec8871923e089af3f667a79992a428cff2da0a",
	"std_srvs/srv/Trigger":                "RIHS01_eeff2cd6fa5ad9d27cdf4dec64818317839b62f212a91e6b5304b634b2062c5f",
	"example_interfaces/action/Fibonacci": "RIHS01_9508051da1ea4658de144b09bd0690ff3de52104683d847aed764d2915906f51",
	// tf2_msgs: rosidl_generator_type_description on the shipped files
	// (ros/idl's TestOracleRosidl); TFMessage's is the one rmw_zenoh puts
	// into the key expressions of /tf and /tf_static.
	"tf2_msgs/msg/TFMessage":          "RIHS01_e369d0f05a23ae52508854b66f6aa0437f3449d652e8cbf22d5abe85d020f087",
	"tf2_msgs/msg/TF2Error":           "RIHS01_db2485e7d6a0ec75bf087e058ee45df682acc3a621ca7780503d10aac141809a",
	"tf2_msgs/srv/FrameGraph":         "RIHS01_0d1fbc6222c018ba5f33822904a2fdd4063705289956d3fdde07cd8c50fe8067",
	"tf2_msgs/action/LookupTransform": "RIHS01_0b8adf6bc0b5958879e3265b41a457e03558fe523890a81252c70eba97a82c5d",
}

func TestGoldenHashes(t *testing.T) {
	r, err := interfaces.Registry()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range golden {
		got, err := r.TypeHash(name)
		if err != nil {
			t.Errorf("TypeHash(%s): %v", name, err)
			continue
		}
		if got != want {
			t.Errorf("TypeHash(%s) = %s, want %s", name, got, want)
		}
	}
}

func TestRegistryComplete(t *testing.T) {
	r, err := interfaces.Registry()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Check(); err != nil {
		t.Fatal(err)
	}
	// Every registered type hashes, which needs every reference resolved.
	for _, m := range r.Messages() {
		if _, err := r.TypeHash(m.FullName()); err != nil {
			t.Errorf("%s: %v", m.FullName(), err)
		}
	}
	for _, s := range r.Services() {
		if _, err := r.TypeHash(s.FullName()); err != nil {
			t.Errorf("%s: %v", s.FullName(), err)
		}
	}
	for _, a := range r.Actions() {
		if _, err := r.TypeHash(a.FullName()); err != nil {
			t.Errorf("%s: %v", a.FullName(), err)
		}
	}
}

func TestRequiredTypesShipped(t *testing.T) {
	r, err := interfaces.Registry()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{
		"builtin_interfaces/msg/Time", "builtin_interfaces/msg/Duration",
		"std_msgs/msg/Header", "std_msgs/msg/String", "std_msgs/msg/Float64MultiArray",
		"geometry_msgs/msg/Pose", "geometry_msgs/msg/TransformStamped",
		"sensor_msgs/msg/Image", "sensor_msgs/msg/CompressedImage", "sensor_msgs/msg/Imu",
		"sensor_msgs/msg/LaserScan", "sensor_msgs/msg/JointState", "sensor_msgs/msg/PointCloud2",
		"sensor_msgs/msg/PointField", "sensor_msgs/msg/CameraInfo", "sensor_msgs/msg/RegionOfInterest",
		"sensor_msgs/msg/NavSatFix", "sensor_msgs/msg/NavSatStatus",
		"nav_msgs/msg/Odometry", "nav_msgs/msg/Path",
		"service_msgs/msg/ServiceEventInfo", "unique_identifier_msgs/msg/UUID",
		"action_msgs/msg/GoalStatusArray", "example_interfaces/msg/Int64",
		"actionlib_msgs/msg/GoalStatusArray", "diagnostic_msgs/msg/DiagnosticArray", "shape_msgs/msg/Mesh",
		"stereo_msgs/msg/DisparityImage", "trajectory_msgs/msg/JointTrajectory", "visualization_msgs/msg/MarkerArray",
		"lifecycle_msgs/msg/TransitionEvent", "type_description_interfaces/msg/TypeDescription",
	} {
		if _, err := r.Message(name); err != nil {
			t.Errorf("Message(%s): %v", name, err)
		}
	}
	for _, name := range []string{"std_srvs/srv/Empty", "std_srvs/srv/SetBool", "std_srvs/srv/Trigger",
		"example_interfaces/srv/AddTwoInts", "action_msgs/srv/CancelGoal", "diagnostic_msgs/srv/SelfTest",
		"lifecycle_msgs/srv/ChangeState", "lifecycle_msgs/srv/GetState", "lifecycle_msgs/srv/GetAvailableStates",
		"lifecycle_msgs/srv/GetAvailableTransitions", "type_description_interfaces/srv/GetTypeDescription",
		"visualization_msgs/srv/GetInteractiveMarkers"} {
		if _, err := r.Service(name); err != nil {
			t.Errorf("Service(%s): %v", name, err)
		}
	}
	if _, err := r.Action("example_interfaces/action/Fibonacci"); err != nil {
		t.Error(err)
	}
}

// The shipped files carry definitions only: no comments, no blank-only
// trailing white space, one space between type and name.
func TestFilesHaveNoComments(t *testing.T) {
	n := 0
	err := fs.WalkDir(interfaces.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		b, err := fs.ReadFile(interfaces.FS(), p)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, "#") || strings.TrimRight(line, " \t") != line {
				t.Errorf("%s:%d: %q", p, i+1, line)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Errorf("only %d files shipped", n)
	}
}

// TestFormatRoundTrip formats every shipped definition back to text and
// checks that the result describes and hashes the same.
func TestFormatRoundTrip(t *testing.T) {
	r, err := interfaces.Registry()
	if err != nil {
		t.Fatal(err)
	}
	out := fstest.MapFS{}
	for _, m := range r.Messages() {
		if m.Namespace == "msg" {
			out[m.Package+"/msg/"+m.Name+".msg"] = &fstest.MapFile{Data: m.Format()}
		}
	}
	for _, s := range r.Services() {
		if s.Namespace == "srv" {
			out[s.Package+"/srv/"+s.Name+".srv"] = &fstest.MapFile{Data: s.Format()}
		}
	}
	for _, a := range r.Actions() {
		out[a.Package+"/action/"+a.Name+".action"] = &fstest.MapFile{Data: a.Format()}
	}
	back := idl.NewRegistry()
	if err := back.LoadFS(out); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range r.Messages() {
		want, err := r.TypeHash(m.FullName())
		if err != nil {
			t.Fatal(err)
		}
		if got, err := back.TypeHash(m.FullName()); err != nil || got != want {
			t.Errorf("%s: %s, %v after formatting, want %s", m.FullName(), got, err, want)
		}
		// Default values too, which the hash leaves out.
		d1, err1 := r.TypeDescription(m.FullName())
		d2, err2 := back.TypeDescription(m.FullName())
		if err1 != nil || err2 != nil || !reflect.DeepEqual(d1, d2) {
			t.Errorf("%s: description changed after formatting: %v %v", m.FullName(), err1, err2)
		}
		n++
	}
	if n < 150 {
		t.Errorf("only %d messages", n)
	}
}

func ExampleRegistry() {
	r, err := interfaces.Registry()
	if err != nil {
		panic(err)
	}
	h, err := r.TypeHash("std_msgs/msg/String")
	if err != nil {
		panic(err)
	}
	fmt.Println(h)
	// Output: RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18
}

func ExampleFS() {
	b, err := fs.ReadFile(interfaces.FS(), "example_interfaces/srv/AddTwoInts.srv")
	if err != nil {
		panic(err)
	}
	fmt.Print(string(b))
	// Output:
	// int64 a
	// int64 b
	// ---
	// int64 sum
}
