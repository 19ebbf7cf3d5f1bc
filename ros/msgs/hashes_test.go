package msgs_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/afor-go/afor/internal/peers"
	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/msgs/action_msgs"
	"github.com/afor-go/afor/ros/msgs/actionlib_msgs"
	"github.com/afor-go/afor/ros/msgs/builtin_interfaces"
	"github.com/afor-go/afor/ros/msgs/diagnostic_msgs"
	"github.com/afor-go/afor/ros/msgs/example_interfaces"
	"github.com/afor-go/afor/ros/msgs/geometry_msgs"
	"github.com/afor-go/afor/ros/msgs/lifecycle_msgs"
	"github.com/afor-go/afor/ros/msgs/nav_msgs"
	"github.com/afor-go/afor/ros/msgs/rcl_interfaces"
	"github.com/afor-go/afor/ros/msgs/rmw_dds_common"
	"github.com/afor-go/afor/ros/msgs/rosgraph_msgs"
	"github.com/afor-go/afor/ros/msgs/sensor_msgs"
	"github.com/afor-go/afor/ros/msgs/service_msgs"
	"github.com/afor-go/afor/ros/msgs/shape_msgs"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/ros/msgs/std_srvs"
	"github.com/afor-go/afor/ros/msgs/stereo_msgs"
	"github.com/afor-go/afor/ros/msgs/test_msgs"
	"github.com/afor-go/afor/ros/msgs/tf2_msgs"
	"github.com/afor-go/afor/ros/msgs/trajectory_msgs"
	"github.com/afor-go/afor/ros/msgs/type_description_interfaces"
	"github.com/afor-go/afor/ros/msgs/unique_identifier_msgs"
	"github.com/afor-go/afor/ros/msgs/visualization_msgs"
)

func allTypes() []cdr.Named {
	var all []cdr.Named
	for _, f := range []func() []cdr.Named{action_msgs.Types, actionlib_msgs.Types, builtin_interfaces.Types,
		diagnostic_msgs.Types, example_interfaces.Types, geometry_msgs.Types, lifecycle_msgs.Types, nav_msgs.Types,
		rcl_interfaces.Types, rmw_dds_common.Types, rosgraph_msgs.Types, sensor_msgs.Types, service_msgs.Types,
		shape_msgs.Types, std_msgs.Types, std_srvs.Types, stereo_msgs.Types, test_msgs.Types, tf2_msgs.Types, trajectory_msgs.Types,
		type_description_interfaces.Types, unique_identifier_msgs.Types, visualization_msgs.Types} {
		all = append(all, f()...)
	}
	return all
}

func TestTypesNames(t *testing.T) {
	seen := map[string]bool{}
	for _, n := range allTypes() {
		name := n.TypeName()
		if seen[name] {
			t.Errorf("%s listed twice", name)
		}
		seen[name] = true
		parts := strings.Split(name, "/")
		if len(parts) != 3 || n.DDSTypeName() != parts[0]+"::"+parts[1]+"::dds_::"+parts[2]+"_" {
			t.Errorf("%s: DDS name %s", name, n.DDSTypeName())
		}
		if m, ok := n.(cdr.Message); ok {
			if _, err := m.AppendCDR(nil); err != nil {
				t.Errorf("%s: zero value does not encode: %v", name, err)
			}
		}
	}
	if len(seen) < 150 {
		t.Fatalf("only %d types", len(seen))
	}
}

// TestHashesAgainstWheels compares the type hash of every generated type
// with the hash that the ROS 2 wheels installed in the reference-peer
// environment ship in share/<pkg>/<kind>/<Name>.json (computed by rosidl's
// own generator).
func TestHashesAgainstWheels(t *testing.T) {
	py := peers.Python(t, "std_msgs")
	out, err := exec.Command(py, "-c", "import sys; print(sys.prefix)").Output()
	if err != nil {
		t.Fatal(err)
	}
	share := filepath.Join(strings.TrimSpace(string(out)), "share")
	want := map[string]string{}
	files, _ := filepath.Glob(filepath.Join(share, "*", "*", "*.json"))
	for _, f := range files {
		kind := filepath.Base(filepath.Dir(f))
		if kind != "msg" && kind != "srv" && kind != "action" {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			TypeHashes []struct {
				TypeName   string `json:"type_name"`
				HashString string `json:"hash_string"`
			} `json:"type_hashes"`
		}
		if json.Unmarshal(data, &doc) != nil {
			continue
		}
		for _, h := range doc.TypeHashes {
			want[h.TypeName] = h.HashString
		}
	}
	compared := 0
	perPkg := map[string]int{}
	for _, n := range allTypes() {
		pkg, _, _ := strings.Cut(n.TypeName(), "/")
		perPkg[pkg] += 0
		h, ok := want[n.TypeName()]
		if !ok {
			continue
		}
		compared++
		perPkg[pkg]++
		if got := n.TypeHash(); got != h {
			t.Errorf("%s: %s, the wheel says %s", n.TypeName(), got, h)
		}
	}
	t.Logf("%d generated type hashes match the wheels' (%d types listed there)", compared, len(want))
	if compared < 100 {
		t.Errorf("only %d hashes compared", compared)
	}
	// Every shipped package but example_interfaces (no wheel pinned) is
	// checked: a missing wheel is a missing pin in .ci/requirements-ros.txt.
	for pkg, n := range perPkg {
		if n == 0 && pkg != "example_interfaces" {
			t.Errorf("%s: no hash compared: is its wheel installed?", pkg)
		}
	}
}
