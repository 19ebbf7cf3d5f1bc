package msgs_test

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/msgs/action_msgs"
	"github.com/afor-go/afor/ros/msgs/builtin_interfaces"
	"github.com/afor-go/afor/ros/msgs/example_interfaces"
	"github.com/afor-go/afor/ros/msgs/geometry_msgs"
	"github.com/afor-go/afor/ros/msgs/nav_msgs"
	"github.com/afor-go/afor/ros/msgs/sensor_msgs"
	"github.com/afor-go/afor/ros/msgs/service_msgs"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/ros/msgs/std_srvs"
	"github.com/afor-go/afor/ros/msgs/tf2_msgs"
	"github.com/afor-go/afor/ros/msgs/unique_identifier_msgs"
)

func TestGoldenBytes(t *testing.T) {
	cases := []struct {
		msg  cdr.Message
		want []byte
	}{
		{&std_msgs.String{Data: "hello 0"}, []byte{0, 1, 0, 0, 8, 0, 0, 0, 'h', 'e', 'l', 'l', 'o', ' ', '0', 0}},
		{&std_msgs.Empty{}, []byte{0, 1, 0, 0, 0}},
		{&std_msgs.Header{Stamp: builtin_interfaces.Time{Sec: 1, Nanosec: 2}, FrameID: "map"},
			[]byte{0, 1, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 'm', 'a', 'p', 0}},
		// int64 after int64: no padding; after the header bool, 7 bytes of padding.
		{&example_interfaces.AddTwoIntsRequest{A: 1, B: -1},
			[]byte{0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
		{&std_srvs.SetBoolRequest{Data: true}, []byte{0, 1, 0, 0, 1}},
		{&geometry_msgs.Vector3{X: 1}, []byte{0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
	}
	for _, c := range cases {
		t.Run(c.msg.TypeName(), func(t *testing.T) {
			got, err := c.msg.AppendCDR(nil)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, c.want) {
				t.Fatalf("got  % x\nwant % x", got, c.want)
			}
			fresh := reflect.New(reflect.TypeOf(c.msg).Elem()).Interface().(cdr.Message)
			if err := fresh.UnmarshalCDR(c.want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(fresh, c.msg) {
				t.Fatalf("decoded %+v, want %+v", fresh, c.msg)
			}
		})
	}
}

// TestTypeNamesAndHashes pins the RIHS01 values published by ROS 2 (rmw_zenoh
// design notes and ros2 interface hashes) on the generated types.
func TestTypeNamesAndHashes(t *testing.T) {
	cases := []struct {
		v        cdr.Named
		name     string
		dds      string
		hashHead string
	}{
		{&std_msgs.String{}, "std_msgs/msg/String", "std_msgs::msg::dds_::String_", "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18"},
		{&std_msgs.Empty{}, "std_msgs/msg/Empty", "std_msgs::msg::dds_::Empty_", "RIHS01_20b625256f32d5dbc0d04fee44f43c41e51c70d3502f84b4a08e7a9c26a96312"},
		{&std_msgs.Header{}, "std_msgs/msg/Header", "std_msgs::msg::dds_::Header_", "RIHS01_f49fb3ae2cf070f793645ff749683ac6b06203e41c891e17701b1cb597ce6a01"},
		{&builtin_interfaces.Time{}, "builtin_interfaces/msg/Time", "builtin_interfaces::msg::dds_::Time_", "RIHS01_b106235e25a4c5ed35098aa0a61a3ee9c9b18d197f398b0e4206cea9acf9c197"},
		{&geometry_msgs.Vector3{}, "geometry_msgs/msg/Vector3", "geometry_msgs::msg::dds_::Vector3_", "RIHS01_cc12fe83e4c02719f1ce8070bfd14aecd40f75a96696a67a2a1f37f7dbb0765d"},
		{&geometry_msgs.Twist{}, "geometry_msgs/msg/Twist", "geometry_msgs::msg::dds_::Twist_", "RIHS01_9c45bf16fe0983d80e3cfe750d6835843d265a9a6c46bd2e609fcddde6fb8d2a"},
		{&geometry_msgs.PoseStamped{}, "geometry_msgs/msg/PoseStamped", "geometry_msgs::msg::dds_::PoseStamped_", "RIHS01_10f3786d7d40fd2b54367835614bff85d4ad3b5dab62bf8bca0cc232d73b4cd8"},
		{example_interfaces.AddTwoInts{}, "example_interfaces/srv/AddTwoInts", "example_interfaces::srv::dds_::AddTwoInts_", "RIHS01_e118de6bf5eeb66a2491b5bda11202e7b68f198d6f67922cf30364858239c81a"},
		{&example_interfaces.AddTwoIntsRequest{}, "example_interfaces/srv/AddTwoInts_Request", "example_interfaces::srv::dds_::AddTwoInts_Request_", "RIHS01_"},
		{std_srvs.SetBool{}, "std_srvs/srv/SetBool", "std_srvs::srv::dds_::SetBool_", "RIHS01_abe9e4bb6b41b40e6789712c00ec8871923e089af3f667a79992a428cff2da0a"},
		{std_srvs.Trigger{}, "std_srvs/srv/Trigger", "std_srvs::srv::dds_::Trigger_", "RIHS01_eeff2cd6fa5ad9d27cdf4dec64818317839b62f212a91e6b5304b634b2062c5f"},
		{example_interfaces.Fibonacci{}, "example_interfaces/action/Fibonacci", "example_interfaces::action::dds_::Fibonacci_", "RIHS01_9508051da1ea4658de144b09bd0690ff3de52104683d847aed764d2915906f51"},
		{&example_interfaces.FibonacciSendGoalRequest{}, "example_interfaces/action/Fibonacci_SendGoal_Request", "example_interfaces::action::dds_::Fibonacci_SendGoal_Request_", "RIHS01_"},
	}
	for _, c := range cases {
		if got := c.v.TypeName(); got != c.name {
			t.Errorf("TypeName %q, want %q", got, c.name)
		}
		if got := c.v.DDSTypeName(); got != c.dds {
			t.Errorf("%s: DDSTypeName %q, want %q", c.name, got, c.dds)
		}
		if got := c.v.TypeHash(); len(got) != 71 || got[:len(c.hashHead)] != c.hashHead {
			t.Errorf("%s: TypeHash %q, want %q", c.name, got, c.hashHead)
		}
	}
}

// sampleMessages returns one populated value of a range of generated types:
// nested types, fixed arrays, bulk sequences, sequences of strings and of
// nested messages, constants.
func sampleMessages() []cdr.Message {
	hdr := std_msgs.Header{Stamp: builtin_interfaces.Time{Sec: 1700000000, Nanosec: 123456789}, FrameID: "camera"}
	return []cdr.Message{
		&sensor_msgs.Image{Header: hdr, Height: 2, Width: 3, Encoding: "mono8", IsBigendian: 0, Step: 3, Data: []byte{1, 2, 3, 4, 5, 6}},
		&sensor_msgs.Imu{Header: hdr, Orientation: geometry_msgs.Quaternion{W: 1},
			OrientationCovariance: [9]float64{1, 2, 3, 4, 5, 6, 7, 8, 9}, LinearAcceleration: geometry_msgs.Vector3{Z: 9.81}},
		&sensor_msgs.JointState{Header: hdr, Name: []string{"a", "", "joint_3"}, Position: []float64{0.5, -1}, Effort: []float64{}},
		&sensor_msgs.PointCloud2{Header: hdr, Height: 1, Width: 2,
			Fields:      []sensor_msgs.PointField{{Name: "x", Offset: 0, Datatype: sensor_msgs.PointFieldFloat32, Count: 1}, {Name: "y", Offset: 4, Datatype: sensor_msgs.PointFieldFloat32, Count: 1}},
			IsBigendian: false, PointStep: 8, RowStep: 16, Data: bytes.Repeat([]byte{0xab}, 16), IsDense: true},
		&sensor_msgs.LaserScan{Header: hdr, AngleMin: -1.5, AngleMax: 1.5, Ranges: []float32{1, 2, 3}, Intensities: []float32{0.5}},
		&sensor_msgs.CameraInfo{Header: hdr, Height: 480, Width: 640, DistortionModel: "plumb_bob", D: []float64{0.1, 0.2},
			K: [9]float64{1, 0, 320, 0, 1, 240, 0, 0, 1}, ROI: sensor_msgs.RegionOfInterest{DoRectify: true}},
		&nav_msgs.Odometry{Header: hdr, ChildFrameID: "base_link",
			Pose: geometry_msgs.PoseWithCovariance{Pose: geometry_msgs.Pose{Position: geometry_msgs.Point{X: 1, Y: 2}}, Covariance: [36]float64{35: 1}}},
		&nav_msgs.OccupancyGrid{Header: hdr, Info: nav_msgs.MapMetaData{Resolution: 0.05, Width: 2, Height: 2}, Data: []int8{-1, 0, 100, 50}},
		&std_msgs.Float64MultiArray{Layout: std_msgs.MultiArrayLayout{Dim: []std_msgs.MultiArrayDimension{{Label: "rows", Size: 2, Stride: 4}}, DataOffset: 1}, Data: []float64{1, 2, 3}},
		&action_msgs.GoalStatusArray{StatusList: []action_msgs.GoalStatus{
			{GoalInfo: action_msgs.GoalInfo{GoalID: unique_identifier_msgs.UUID{UUID: [16]uint8{1, 2, 3}}}, Status: action_msgs.GoalStatusStatusSucceeded}}},
		&example_interfaces.AddTwoIntsEvent{Info: service_msgs.ServiceEventInfo{EventType: service_msgs.ServiceEventInfoRequestSent, SequenceNumber: 7},
			Request: []example_interfaces.AddTwoIntsRequest{{A: 2, B: 3}}},
		&example_interfaces.FibonacciFeedbackMessage{Feedback: example_interfaces.FibonacciFeedback{Sequence: []int32{0, 1, 1, 2}}},
		&example_interfaces.WString{Data: "ハロー 🤖"},
		&std_msgs.ColorRGBA{R: 1, G: 0.5, B: 0.25, A: 1},
		&tf2_msgs.TFMessage{Transforms: []geometry_msgs.TransformStamped{
			{Header: hdr, ChildFrameID: "base_link", Transform: geometry_msgs.Transform{
				Translation: geometry_msgs.Vector3{X: 1, Y: -2, Z: 0.5}, Rotation: geometry_msgs.Quaternion{Z: 0.6, W: 0.8}}},
			{Header: std_msgs.Header{FrameID: "base_link"}, ChildFrameID: "laser", Transform: geometry_msgs.Transform{Rotation: geometry_msgs.Quaternion{W: 1}}}}},
	}
}

func TestRoundTrip(t *testing.T) {
	for _, m := range sampleMessages() {
		t.Run(m.TypeName(), func(t *testing.T) {
			b, err := m.AppendCDR([]byte("prefix"))
			if err != nil {
				t.Fatal(err)
			}
			if string(b[:6]) != "prefix" {
				t.Fatal("AppendCDR overwrote dst")
			}
			b = b[6:]
			got := reflect.New(reflect.TypeOf(m).Elem()).Interface().(cdr.Message)
			if err := got.UnmarshalCDR(b); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(normalize(got), normalize(m)) {
				t.Fatalf("round trip\n got %+v\nwant %+v", got, m)
			}
			// Every proper prefix of the payload fails cleanly.
			for n := 0; n < len(b); n++ {
				if err := got.UnmarshalCDR(b[:n]); err == nil {
					// A prefix can only decode if only trailing padding or
					// an optional tail is missing, which CDR never allows.
					t.Fatalf("prefix of %d/%d bytes decoded", n, len(b))
				} else if !errors.Is(err, cdr.ErrTruncated) {
					t.Fatalf("prefix of %d bytes: %v", n, err)
				}
			}
			// Big-endian payloads decode to the same value.
			be, err := cdr.AppendOptions(nil, m, cdr.Options{BigEndian: true})
			if err != nil {
				t.Fatal(err)
			}
			got2 := reflect.New(reflect.TypeOf(m).Elem()).Interface().(cdr.Message)
			if err := got2.UnmarshalCDR(be); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(normalize(got2), normalize(m)) {
				t.Fatalf("big-endian round trip\n got %+v\nwant %+v", got2, m)
			}
		})
	}
}

// normalize returns a copy of the message m with empty slices set to nil,
// since an empty sequence decodes to nil.
func normalize(m cdr.Message) any {
	v := reflect.New(reflect.TypeOf(m).Elem())
	v.Elem().Set(reflect.ValueOf(m).Elem())
	normValue(v.Elem())
	return v.Interface()
}

func normValue(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			normValue(v.Field(i))
		}
	case reflect.Array:
		for i := range v.Len() {
			normValue(v.Index(i))
		}
	case reflect.Slice:
		if v.Len() == 0 {
			v.Set(reflect.Zero(v.Type()))
			return
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		reflect.Copy(c, v)
		for i := range c.Len() {
			normValue(c.Index(i))
		}
		v.Set(c)
	}
}

func TestBoundedSequenceOnEncodeAndDecode(t *testing.T) {
	ev := &example_interfaces.AddTwoIntsEvent{Request: make([]example_interfaces.AddTwoIntsRequest, 2)}
	if _, err := ev.AppendCDR(nil); !errors.Is(err, cdr.ErrBoundExceeded) {
		t.Fatalf("encode 2 requests in a [<=1] field: %v", err)
	}
	// Forge the same payload by hand: the decoder must refuse it too.
	ev.Request = ev.Request[:1]
	b, err := ev.AppendCDR(nil)
	if err != nil {
		t.Fatal(err)
	}
	// The request count sits right after ServiceEventInfo (1+pad3+8+16+pad4+8 = 40 bytes).
	off := 4 + 40
	if b[off] != 1 {
		t.Fatalf("layout changed: % x", b)
	}
	b[off] = 2
	b = append(b, make([]byte, 16)...)
	var got example_interfaces.AddTwoIntsEvent
	if err := got.UnmarshalCDR(b); !errors.Is(err, cdr.ErrBoundExceeded) {
		t.Fatalf("decode: %v", err)
	}
}

func TestUnmarshalReusesSlices(t *testing.T) {
	src := &sensor_msgs.Image{Encoding: "mono8", Data: make([]byte, 1000)}
	b, _ := src.AppendCDR(nil)
	dst := &sensor_msgs.Image{Data: make([]byte, 0, 2000)}
	before := &dst.Data[:1][0]
	if err := dst.UnmarshalCDR(b); err != nil {
		t.Fatal(err)
	}
	if len(dst.Data) != 1000 || &dst.Data[0] != before {
		t.Fatal("Data was not decoded into the existing backing array")
	}
}

func TestDefaultsAndConstants(t *testing.T) {
	if sensor_msgs.NavSatStatusStatusGbasFix != 2 || sensor_msgs.NavSatStatusStatusUnknown != -2 || action_msgs.GoalStatusStatusCanceled != 5 {
		t.Fatal("constants")
	}
	// Quaternion defaults to the identity rotation (w = 1), also nested.
	var p geometry_msgs.PoseStamped
	p.SetDefaults()
	if p.Pose.Orientation != (geometry_msgs.Quaternion{W: 1}) {
		t.Fatalf("nested default: %+v", p.Pose.Orientation)
	}
}

func TestCodec(t *testing.T) {
	c := cdr.Codec[geometry_msgs.Twist]()
	in := geometry_msgs.Twist{Linear: geometry_msgs.Vector3{X: 0.5}, Angular: geometry_msgs.Vector3{Z: -0.1}}
	buf, err := c.Append(nil, in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.Decode(buf)
	if err != nil || out != in {
		t.Fatalf("%+v %v", out, err)
	}
	if c.TypeName() != "geometry_msgs/msg/Twist" || c.DDSTypeName() != "geometry_msgs::msg::dds_::Twist_" {
		t.Fatal(c.TypeName(), c.DDSTypeName())
	}
	// The codec shape the byte transports of package afor take.
	var _ interface {
		Append([]byte, geometry_msgs.Twist) ([]byte, error)
		Decode([]byte) (geometry_msgs.Twist, error)
	} = c
	if _, err := c.Decode([]byte{0, 1}); !errors.Is(err, cdr.ErrTruncated) {
		t.Fatalf("short payload: %v", err)
	}
}
