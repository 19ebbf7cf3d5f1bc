package dynmsg_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os/exec"
	"testing"

	"github.com/afor-go/afor/internal/peers"
	"github.com/afor-go/afor/ros/dynmsg"
)

// oracleTypes are the types the rclpy oracle fills with random values.
var oracleTypes = []string{
	"test_msgs/msg/BasicTypes", "test_msgs/msg/Arrays", "test_msgs/msg/BoundedSequences",
	"test_msgs/msg/BoundedPlainSequences", "test_msgs/msg/UnboundedSequences",
	"test_msgs/msg/Strings", "test_msgs/msg/WStrings", "test_msgs/msg/Nested",
	"test_msgs/msg/MultiNested", "test_msgs/msg/Defaults", "test_msgs/msg/Constants",
	"test_msgs/msg/Empty", "test_msgs/msg/Builtins",
	"std_msgs/msg/String", "std_msgs/msg/Header", "std_msgs/msg/Float64MultiArray",
	"std_msgs/msg/ByteMultiArray", "std_msgs/msg/Char", "std_msgs/msg/Empty",
	"sensor_msgs/msg/Image", "sensor_msgs/msg/JointState", "sensor_msgs/msg/PointCloud2",
	"sensor_msgs/msg/Imu", "sensor_msgs/msg/LaserScan", "sensor_msgs/msg/NavSatFix",
	"geometry_msgs/msg/PoseStamped", "geometry_msgs/msg/TwistWithCovarianceStamped",
	"nav_msgs/msg/Odometry", "nav_msgs/msg/Path", "rcl_interfaces/msg/ParameterEvent",
	"rcl_interfaces/msg/Log", "action_msgs/msg/GoalStatusArray",
	"rcl_interfaces/srv/SetParameters_Request", "rcl_interfaces/srv/SetParameters_Response",
}

// oracleOptions are the ros2 topic echo flags tried on every message, in
// the oracle's spelling and ours.
var oracleOptions = []struct {
	py  map[string]any
	go_ dynmsg.FormatOptions
}{
	{map[string]any{}, dynmsg.FormatOptions{}},
	{map[string]any{"truncate": 128}, dynmsg.FormatOptions{TruncateLength: 128}},
	{map[string]any{"truncate": 2}, dynmsg.FormatOptions{TruncateLength: 2}},
	{map[string]any{"no_arr": true}, dynmsg.FormatOptions{NoArr: true}},
	{map[string]any{"no_str": true}, dynmsg.FormatOptions{NoStr: true}},
	{map[string]any{"flow": true}, dynmsg.FormatOptions{FlowStyle: true}},
	{map[string]any{"flow": true, "truncate": 1, "no_str": true}, dynmsg.FormatOptions{FlowStyle: true, TruncateLength: 1, NoStr: true}},
}

type oracleCase struct {
	Type  string   `json:"type"`
	Hex   string   `json:"hex"`
	YAML  []string `json:"yaml"`
	CSV   []string `json:"csv"`
	Repr  string   `json:"repr"`
	Error string   `json:"error,omitempty"`
}

// runEchoOracle sends req to testdata/echo_oracle.py and decodes its answer.
func runEchoOracle(t *testing.T, py string, req map[string]any) []oracleCase {
	t.Helper()
	opts := make([]map[string]any, len(oracleOptions))
	for i, o := range oracleOptions {
		opts[i] = o.py
	}
	req["options"] = opts
	in, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "testdata/echo_oracle.py")
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("echo oracle: %v\n%s", err, stderr.Bytes())
	}
	var res []oracleCase
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("echo oracle answer: %v\n%.2000s", err, out)
	}
	return res
}

// TestOracleRandomMessages has rclpy serialize messages filled with random
// (and deliberately awkward) values, and checks for each that we decode it,
// print exactly the YAML that ros2 topic echo's conversion and PyYAML
// print under every option set (and the --csv line, and Python's repr as
// ros2 service call prints it), and encode it to bytes that rclpy decodes
// back to the same YAML.
func TestOracleRandomMessages(t *testing.T) {
	py := peers.Python(t, "rclpy.serialization", "yaml", "numpy", "test_msgs.msg", "sensor_msgs.msg")
	reg := registry(t)
	// MultiNested nests arrays of arrays: a few of them make megabytes.
	counts := map[string]int{"test_msgs/msg/MultiNested": 2}
	cases := runEchoOracle(t, py, map[string]any{"mode": "random", "types": oracleTypes, "count": 6, "counts": counts, "seed": 7})
	if want := 6*(len(oracleTypes)-1) + 2; len(cases) != want {
		t.Fatalf("oracle answered %d cases, want %d", len(cases), want)
	}
	var back []map[string]string
	var ours [][]string
	for i, c := range cases {
		typ := mustType(t, reg, c.Type)
		raw, _ := hex.DecodeString(c.Hex)
		m, err := typ.Decode(raw)
		if err != nil {
			t.Errorf("case %d %s: Decode: %v", i, c.Type, err)
			continue
		}
		var yamls []string
		for j, o := range oracleOptions {
			got := typ.FormatYAML(m, o.go_)
			yamls = append(yamls, got)
			if got != c.YAML[j] {
				t.Errorf("case %d %s, options %v:\n got: %q\nwant: %q", i, c.Type, o.py, got, c.YAML[j])
			}
			if got := typ.FormatCSV(m, o.go_); got != c.CSV[j] {
				t.Errorf("case %d %s, options %v, CSV:\n got: %q\nwant: %q", i, c.Type, o.py, got, c.CSV[j])
			}
		}
		if j, err := typ.FormatJSON(m); err != nil || !json.Valid(j) {
			t.Errorf("case %d %s: FormatJSON: %v\n%s", i, c.Type, err, j)
		}
		if got := typ.FormatRepr(m); got != c.Repr {
			t.Errorf("case %d %s, repr:\n got: %q\nwant: %q", i, c.Type, got, c.Repr)
		}
		enc, err := typ.Encode(m)
		if err != nil {
			t.Errorf("case %d %s: Encode: %v", i, c.Type, err)
			continue
		}
		back = append(back, map[string]string{"type": c.Type, "hex": hex.EncodeToString(enc)})
		ours = append(ours, yamls)
	}
	if t.Failed() {
		return
	}
	res := runEchoOracle(t, py, map[string]any{"mode": "echo", "cases": back})
	for i, c := range res {
		if c.Error != "" {
			t.Errorf("rclpy could not decode our %s: %s", c.Type, c.Error)
			continue
		}
		for j := range oracleOptions {
			if c.YAML[j] != ours[i][j] {
				t.Errorf("rclpy read our %s as\n%s\nwe wrote\n%s", c.Type, c.YAML[j], ours[i][j])
			}
		}
	}
}
