package cdrtest

import (
	"bytes"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/msgs/action_msgs"
	"github.com/afor-go/afor/ros/msgs/builtin_interfaces"
	"github.com/afor-go/afor/ros/msgs/geometry_msgs"
	"github.com/afor-go/afor/ros/msgs/nav_msgs"
	"github.com/afor-go/afor/ros/msgs/sensor_msgs"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/ros/msgs/unique_identifier_msgs"
)

// buildDriver compiles testdata/driver.c against idlc's output for
// testdata/oracle.idl, or skips when the tools are missing.
func buildDriver(t *testing.T) string {
	t.Helper()
	idlc, err := exec.LookPath("idlc")
	if err != nil {
		t.Skip("idlc not found: install the Debian package cyclonedds-tools")
	}
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc not found")
	}
	if _, err := os.Stat("/usr/include/dds/ddsi/ddsi_cdrstream.h"); err != nil {
		t.Skip("Cyclone DDS headers not found: install the Debian package cyclonedds-dev")
	}
	dir := t.TempDir()
	idl, err := filepath.Abs("testdata/oracle.idl")
	if err != nil {
		t.Fatal(err)
	}
	run := func(name string, args ...string) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
	}
	run(idlc, "-o", dir, idl)
	driver, err := filepath.Abs("testdata/driver.c")
	if err != nil {
		t.Fatal(err)
	}
	run(gcc, "-Wall", "-Werror", "-o", "driver", driver, "oracle.c", "-I.", "-lddsc")
	return filepath.Join(dir, "driver")
}

func header() std_msgs.Header {
	return std_msgs.Header{Stamp: builtin_interfaces.Time{Sec: 1700000000, Nanosec: 42}, FrameID: "odom"}
}

// goValues returns values of the types that oracle.idl mirrors.
func goValues() []cdr.Message {
	h := header()
	layout := std_msgs.MultiArrayLayout{Dim: []std_msgs.MultiArrayDimension{{Label: "rows", Size: 2, Stride: 6}, {Label: "", Size: 3, Stride: 3}}, DataOffset: 7}
	return []cdr.Message{
		&builtin_interfaces.Time{Sec: -1, Nanosec: 1},
		&h,
		&std_msgs.Header{},
		&std_msgs.ColorRGBA{R: 0.25, G: 1, B: -0, A: 3.4e38},
		&std_msgs.Int16MultiArray{Layout: layout, Data: []int16{-1, 2, -300}},
		&std_msgs.UInt64MultiArray{Layout: layout, Data: []uint64{1 << 63, 5}},
		&std_msgs.UInt64MultiArray{},
		&geometry_msgs.Pose{Position: geometry_msgs.Point{X: 1, Y: -2, Z: 3}, Orientation: geometry_msgs.Quaternion{W: 1}},
		&sensor_msgs.Image{Header: h, Height: 2, Width: 2, Encoding: "rgb8", IsBigendian: 1, Step: 6, Data: []byte("abcdefghijkl")},
		&sensor_msgs.PointCloud2{Header: h, Height: 1, Width: 1,
			Fields:      []sensor_msgs.PointField{{Name: "x", Datatype: 7, Count: 1}, {Name: "rgb", Offset: 4, Datatype: 6, Count: 1}},
			IsBigendian: true, PointStep: 8, RowStep: 8, Data: []byte{1, 2, 3, 4, 5, 6, 7, 8}, IsDense: false},
		&sensor_msgs.JointState{Header: h, Name: []string{"shoulder", "elbow", "wrist"}, Position: []float64{0.1, 0.2, 0.3}, Velocity: []float64{1}},
		&sensor_msgs.Imu{Header: h, Orientation: geometry_msgs.Quaternion{X: 0.5, W: 0.5}, OrientationCovariance: [9]float64{-1},
			AngularVelocityCovariance: [9]float64{8: 2}, LinearAcceleration: geometry_msgs.Vector3{X: 1, Y: 2, Z: 3}},
		&nav_msgs.OccupancyGrid{Header: h, Info: nav_msgs.MapMetaData{MapLoadTime: builtin_interfaces.Time{Sec: 9}, Resolution: 0.05, Width: 3, Height: 1,
			Origin: geometry_msgs.Pose{Orientation: geometry_msgs.Quaternion{W: 1}}}, Data: []int8{-1, 0, 100}},
		&action_msgs.GoalStatusArray{StatusList: []action_msgs.GoalStatus{
			{GoalInfo: action_msgs.GoalInfo{GoalID: unique_identifier_msgs.UUID{UUID: [16]uint8{15: 0xff}}, Stamp: builtin_interfaces.Time{Sec: 3}}, Status: 2},
			{Status: -1}}},
	}
}

// TestCycloneReadsOurBytes has Cyclone DDS validate (dds_stream_normalize),
// read and write again each of our payloads; what it writes must be our
// bytes exactly (Cyclone, like us, zeroes padding).
func TestCycloneReadsOurBytes(t *testing.T) {
	driver := buildDriver(t)
	for _, m := range goValues() {
		ours, err := m.AppendCDR(nil)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(driver, "decode", m.TypeName())
		cmd.Stdin = strings.NewReader(hex.EncodeToString(ours))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("%s: Cyclone rejected our bytes: %v\n%s\n% x", m.TypeName(), err, out, ours)
			continue
		}
		theirs, err := hex.DecodeString(strings.TrimSpace(string(out)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(theirs, ours) {
			t.Errorf("%s: Cyclone wrote back different bytes\nours   % x\ntheirs % x", m.TypeName(), ours, theirs)
		}
	}
	// And it rejects a corrupt one: a string length past the end.
	bad, _ := (&std_msgs.Header{FrameID: "x"}).AppendCDR(nil)
	bad[12] = 0x40
	cmd := exec.Command(driver, "decode", "std_msgs/msg/Header")
	cmd.Stdin = strings.NewReader(hex.EncodeToString(bad))
	if err := cmd.Run(); err == nil {
		t.Error("Cyclone accepted a corrupt payload: the oracle does not validate")
	}
	var h std_msgs.Header
	if err := h.UnmarshalCDR(bad); err == nil {
		t.Error("we accepted the same corrupt payload")
	}
}

// TestWeReadCycloneBytes decodes payloads that Cyclone DDS serialized from
// samples built in C (testdata/driver.c) and compares them with the same
// values built in Go.
func TestWeReadCycloneBytes(t *testing.T) {
	driver := buildDriver(t)
	h := std_msgs.Header{Stamp: builtin_interfaces.Time{Sec: -7, Nanosec: 999999999}, FrameID: "base_link"}
	data := make([]byte, 15)
	for i := range data {
		data[i] = byte(i * 17)
	}
	statuses := make([]action_msgs.GoalStatus, 2)
	for i := range statuses {
		for j := range 16 {
			statuses[i].GoalInfo.GoalID.UUID[j] = uint8(16*i + j)
		}
		statuses[i].GoalInfo.Stamp = builtin_interfaces.Time{Sec: int32(100 + i), Nanosec: 5}
	}
	statuses[0].Status, statuses[1].Status = 4, -1
	imu := &sensor_msgs.Imu{Header: h, Orientation: geometry_msgs.Quaternion{W: 1}, AngularVelocity: geometry_msgs.Vector3{Z: -0.25}}
	for i := range imu.OrientationCovariance {
		imu.OrientationCovariance[i] = float64(i) * 0.5
	}
	imu.LinearAccelerationCovariance[8] = 3
	want := []cdr.Message{
		&h,
		&sensor_msgs.JointState{Header: h, Name: []string{"elbow", ""}, Position: []float64{1.5, -2.25, 1e300}, Effort: []float64{0.125}},
		&sensor_msgs.PointCloud2{Header: h, Height: 1, Width: 3,
			Fields:    []sensor_msgs.PointField{{Name: "x", Datatype: 7, Count: 1}, {Name: "intensity", Offset: 4, Datatype: 2, Count: 1}},
			PointStep: 5, RowStep: 15, Data: data, IsDense: true},
		&action_msgs.GoalStatusArray{StatusList: statuses},
		&std_msgs.Int16MultiArray{Layout: std_msgs.MultiArrayLayout{Dim: []std_msgs.MultiArrayDimension{{Label: "rows", Size: 3, Stride: 3}}, DataOffset: 1},
			Data: []int16{-32768, 0, 32767}},
		imu,
	}
	for _, w := range want {
		out, err := exec.Command(driver, "encode", w.TypeName()).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", w.TypeName(), err, out)
		}
		theirs, err := hex.DecodeString(strings.TrimSpace(string(out)))
		if err != nil {
			t.Fatal(err)
		}
		got := reflect.New(reflect.TypeOf(w).Elem()).Interface().(cdr.Message)
		if err := got.UnmarshalCDR(theirs); err != nil {
			t.Errorf("%s: %v\n% x", w.TypeName(), err, theirs)
			continue
		}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("%s:\n got %+v\nwant %+v", w.TypeName(), got, w)
		}
		ours, _ := w.AppendCDR(nil)
		if !bytes.Equal(ours, theirs) {
			t.Errorf("%s: bytes differ\nours   % x\ntheirs % x", w.TypeName(), ours, theirs)
		}
	}
}
