package msgs_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os/exec"
	"reflect"
	"testing"

	"github.com/afor-go/afor/internal/peers"
	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/msgs/builtin_interfaces"
	"github.com/afor-go/afor/ros/msgs/geometry_msgs"
	"github.com/afor-go/afor/ros/msgs/nav_msgs"
	"github.com/afor-go/afor/ros/msgs/sensor_msgs"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/ros/msgs/std_srvs"
)

type oracleCase struct {
	Name  string `json:"name,omitempty"`
	Type  string `json:"type"`
	Hex   string `json:"hex"`
	Error string `json:"error,omitempty"`
}

// runOracle sends req to testdata/rclpy_oracle.py and decodes its answer.
func runOracle(t *testing.T, py string, req any) []oracleCase {
	t.Helper()
	in, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "testdata/rclpy_oracle.py")
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("rclpy oracle: %v\n%s", err, stderr.Bytes())
	}
	var res []oracleCase
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("rclpy oracle answer: %v\n%s", err, out)
	}
	return res
}

// consumed decodes payload into m and returns how many body bytes the
// members took. rmw_fastrtps_cpp hands out a buffer sized by its own
// estimate, which can exceed what it wrote by unset trailing bytes (8 for
// a JointState with empty float64 sequences, 3 for a SetBool_Request);
// readers ignore them, so sizes are compared on what the members took.
func consumed(t *testing.T, m cdr.Message, payload []byte) int {
	t.Helper()
	d, err := cdr.NewDecoder(payload)
	if err != nil {
		t.Fatal(err)
	}
	m.DecodeCDR(&d)
	if err := d.Err(); err != nil {
		t.Fatalf("%s: %v", m.TypeName(), err)
	}
	return d.Offset()
}

func newOf(m cdr.Message) cdr.Message {
	return reflect.New(reflect.TypeOf(m).Elem()).Interface().(cdr.Message)
}

// TestRclpyDecodesOurBytes has rclpy (rmw_fastrtps_cpp typesupport, Fast-CDR)
// deserialize our payloads and serialize them again; decoding rclpy's bytes
// in Go must give back the original value, and re-encoding it our bytes
// (rclpy leaves padding bytes unset and may append trailing ones, so its
// bytes are compared through a decode).
func TestRclpyDecodesOurBytes(t *testing.T) {
	py := peers.Python(t, "rclpy.serialization")
	samples := sampleMessages()
	var cases []oracleCase
	ours := map[string][]byte{}
	for _, m := range samples {
		b, err := m.AppendCDR(nil)
		if err != nil {
			t.Fatal(err)
		}
		ours[m.TypeName()] = b
		cases = append(cases, oracleCase{Type: m.TypeName(), Hex: hex.EncodeToString(b)})
	}
	res := runOracle(t, py, map[string]any{"mode": "roundtrip", "cases": cases})
	if len(res) != len(samples) {
		t.Fatalf("%d answers for %d cases", len(res), len(samples))
	}
	checked := 0
	for i, r := range res {
		m := samples[i]
		if r.Error == "unavailable" {
			t.Logf("%s: no Python package, not checked", r.Type)
			continue
		}
		if r.Error != "" {
			t.Errorf("%s: rclpy failed on our bytes: %s", r.Type, r.Error)
			continue
		}
		theirs, err := hex.DecodeString(r.Hex)
		if err != nil {
			t.Fatal(err)
		}
		if n := consumed(t, newOf(m), theirs); n != len(ours[r.Type])-cdr.HeaderSize {
			t.Errorf("%s: rclpy re-encoded %d bytes, we wrote %d\nours   % x\ntheirs % x", r.Type, len(theirs), len(ours[r.Type]), ours[r.Type], theirs)
			continue
		}
		got := newOf(m)
		if err := got.UnmarshalCDR(theirs); err != nil {
			t.Errorf("%s: decoding rclpy's bytes: %v", r.Type, err)
			continue
		}
		if !reflect.DeepEqual(normalize(got), normalize(m)) {
			t.Errorf("%s: value changed through rclpy\n got %+v\nwant %+v", r.Type, got, m)
			continue
		}
		again, _ := got.AppendCDR(nil)
		if !bytes.Equal(again, ours[r.Type]) {
			t.Errorf("%s: bytes changed through rclpy", r.Type)
			continue
		}
		checked++
	}
	t.Logf("%d of %d types checked against rclpy", checked, len(samples))
	if checked < 8 {
		t.Errorf("only %d types checked", checked)
	}
}

// TestRclpyBytesDecodeInGo decodes messages that rclpy built and serialized
// on its own, and compares them with the same values built in Go.
func TestRclpyBytesDecodeInGo(t *testing.T) {
	py := peers.Python(t, "rclpy.serialization")
	hdr := std_msgs.Header{Stamp: builtin_interfaces.Time{Sec: 1700000000, Nanosec: 123456789}, FrameID: "camera"}
	odom := &nav_msgs.Odometry{Header: hdr, ChildFrameID: "base_link"}
	odom.Pose.Pose.Position = geometry_msgs.Point{X: 1, Y: 2}
	odom.Pose.Covariance[35] = 1
	odom.Pose.Pose.Orientation.W = 1 // rclpy's Quaternion defaults to w = 1
	want := map[string]cdr.Message{
		"string":      &std_msgs.String{Data: "hello 0"},
		"header":      &hdr,
		"image":       &sensor_msgs.Image{Header: hdr, Height: 2, Width: 3, Encoding: "mono8", Step: 3, Data: []byte{1, 2, 3, 4, 5, 6}},
		"joint_state": &sensor_msgs.JointState{Header: hdr, Name: []string{"a", "", "joint_3"}, Position: []float64{0.5, -1}},
		"twist":       &geometry_msgs.Twist{Linear: geometry_msgs.Vector3{X: 0.5}, Angular: geometry_msgs.Vector3{Z: -0.1}},
		"imu": &sensor_msgs.Imu{Header: hdr, Orientation: geometry_msgs.Quaternion{W: 1},
			OrientationCovariance: [9]float64{1, 2, 3, 4, 5, 6, 7, 8, 9}, LinearAcceleration: geometry_msgs.Vector3{Z: 9.81}},
		"odometry": odom,
		"point_cloud2": &sensor_msgs.PointCloud2{Header: hdr, Height: 1, Width: 2,
			Fields: []sensor_msgs.PointField{{Name: "x", Offset: 0, Datatype: sensor_msgs.PointFieldFloat32, Count: 1},
				{Name: "y", Offset: 4, Datatype: sensor_msgs.PointFieldFloat32, Count: 1}},
			PointStep: 8, RowStep: 16, Data: bytes.Repeat([]byte{0xab}, 16), IsDense: true},
		"set_bool_request": &std_srvs.SetBoolRequest{Data: true},
	}
	res := runOracle(t, py, map[string]any{"mode": "produce"})
	if len(res) != len(want) {
		t.Fatalf("%d messages from rclpy, want %d", len(res), len(want))
	}
	for _, r := range res {
		w, ok := want[r.Name]
		if !ok {
			t.Fatalf("unexpected case %q", r.Name)
		}
		if r.Type != w.TypeName() {
			t.Errorf("%s: rclpy type %s, Go type %s", r.Name, r.Type, w.TypeName())
		}
		theirs, err := hex.DecodeString(r.Hex)
		if err != nil {
			t.Fatal(err)
		}
		got := newOf(w)
		if err := got.UnmarshalCDR(theirs); err != nil {
			t.Errorf("%s: %v\n% x", r.Name, err, theirs)
			continue
		}
		if !reflect.DeepEqual(normalize(got), normalize(w)) {
			t.Errorf("%s:\n got %+v\nwant %+v", r.Name, got, w)
		}
		ours, _ := w.AppendCDR(nil)
		if n := consumed(t, newOf(w), theirs); n != len(ours)-cdr.HeaderSize {
			t.Errorf("%s: we encode %d body bytes, rclpy %d", r.Name, len(ours)-cdr.HeaderSize, n)
		}
	}
}
