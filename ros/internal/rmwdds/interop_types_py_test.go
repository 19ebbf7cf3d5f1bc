package rmwdds

import (
	"bytes"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/netns"
	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/ros/msgs/builtin_interfaces"
	"github.com/afor-go/afor/ros/msgs/geometry_msgs"
	"github.com/afor-go/afor/ros/msgs/sensor_msgs"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/ros/msgs/test_msgs"
	"github.com/afor-go/afor/transport/dds"
)

// named is a generated ROS message type.
type named interface {
	TypeName() string
	DDSTypeName() string
	TypeHash() string
}

func rmwType(m named) rmw.Type {
	return rmw.Type{Name: m.TypeName(), DDSName: m.DDSTypeName(), Hash: m.TypeHash()}
}

// echoCase is a topic the rclpy echo peer sends back: Go publishes payload
// on /go_<name> and expects, on /py_<name>, a message that decode finds
// equal to what it sent.
type echoCase struct {
	name    string
	typ     rmw.Type
	qos     rmw.QoS
	payload []byte
	same    func([]byte) bool
}

// caseOf builds the echo case of message v.
func caseOf[T any, PT interface {
	*T
	cdr.Message
}](t *testing.T, name string, v T, q rmw.QoS) echoCase {
	t.Helper()
	c := cdr.Codec[T, PT]()
	b, err := c.Append(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	return echoCase{name: name, typ: rmwType(PT(&v)), qos: q, payload: b, same: func(p []byte) bool {
		// Compared re-encoded: decoding may give nil for an empty
		// sequence.
		got, err := c.Decode(p)
		if err != nil {
			return false
		}
		back, err := c.Append(nil, got)
		return err == nil && bytes.Equal(back, b)
	}}
}

// TestInteropRclpyTypes sends messages of several types to an rclpy node
// on Fast DDS, which echoes them back: a nested message with a sequence of
// structs (geometry_msgs/PoseArray), one with string and float64 sequences
// (sensor_msgs/JointState), a 0.9 MB sensor_msgs/Image (fragmented both
// ways), a std_msgs/String with the sensor-data QoS (best effort), and
// test_msgs' BoundedSequences, UnboundedSequences, Arrays and Nested
// (every primitive, in sequences, arrays and structs); a
// RELIABLE Go reader of rclpy's BEST_EFFORT writer is reported
// incompatible (RELIABILITY).
func TestInteropRclpyTypes(t *testing.T) {
	netns.Require(t)
	d := 150 + int(testDomain.Add(1))%50
	ctx := waitCtx(t)
	sensor := rmw.QoS{History: rmw.HistoryKeepLast, Depth: 5, Reliability: rmw.ReliabilityBestEffort, Durability: rmw.DurabilityVolatile}
	stamp := std_msgs.Header{Stamp: builtin_interfaces.Time{Sec: 17, Nanosec: 42}, FrameID: "map"}
	img := sensor_msgs.Image{Header: stamp, Height: 480, Width: 640, Encoding: "rgb8", Step: 1920, Data: make([]byte, 640*480*3)}
	for i := range img.Data {
		img.Data[i] = byte(i * 7)
	}
	basic := test_msgs.BasicTypes{BoolValue: true, ByteValue: 0xfe, CharValue: 'x', Float32Value: -0.5, Float64Value: 1e300,
		Int8Value: -7, Uint8Value: 200, Int16Value: -300, Uint16Value: 60000, Int32Value: -70000, Uint32Value: 4e9,
		Int64Value: -1 << 40, Uint64Value: 1 << 63}
	cases := []echoCase{
		caseOf(t, "pose", geometry_msgs.PoseArray{Header: stamp, Poses: []geometry_msgs.Pose{
			{Position: geometry_msgs.Point{X: 1, Y: 2, Z: 3}, Orientation: geometry_msgs.Quaternion{W: 1}},
			{Position: geometry_msgs.Point{X: -1.5}, Orientation: geometry_msgs.Quaternion{X: 0.5, Y: 0.5, Z: 0.5, W: 0.5}},
		}}, qosDefault),
		caseOf(t, "joints", sensor_msgs.JointState{Header: stamp, Name: []string{"shoulder", "elbow", "wrist"},
			Position: []float64{0.1, 0.2, 0.3}, Velocity: []float64{1, 2, 3}, Effort: []float64{}}, qosDefault),
		caseOf(t, "image", img, qosDefault),
		caseOf(t, "sensor", std_msgs.String{Data: "best effort"}, sensor),
		caseOf(t, "bounded", test_msgs.BoundedSequences{BoolValues: []bool{true, false}, ByteValues: []byte{0xff},
			Int8Values: []int8{-128, 127}, Uint16Values: []uint16{65535}, Int32Values: []int32{-1, 2, 3},
			Float32Values: []float32{1.5}, Float64Values: []float64{-2.25, 0}, Int64Values: []int64{-1 << 63},
			Uint64Values: []uint64{1<<64 - 1}, StringValues: []string{"", "bounded"},
			BasicTypesValues: []test_msgs.BasicTypes{basic}, DefaultsValues: []test_msgs.Defaults{{Int8Value: -50}},
			Int16ValuesDefault: []int16{0, 32767, -32768}, StringValuesDefault: []string{"", "max value", "min value"},
			AlignmentCheck: 7}, qosDefault),
		caseOf(t, "unbounded", test_msgs.UnboundedSequences{CharValues: []uint8{'a', 'b'}, Uint32Values: []uint32{1, 1 << 31},
			StringValues: []string{"one", "two", "three", "four"}, BasicTypesValues: []test_msgs.BasicTypes{basic, {}, basic},
			AlignmentCheck: -3}, qosDefault),
		caseOf(t, "arrays", test_msgs.Arrays{BoolValues: [3]bool{true, false, true}, Float64Values: [3]float64{1, -1, 0.5},
			Int8Values: [3]int8{-1, 0, 1}, StringValues: [3]string{"a", "", "ccc"},
			BasicTypesValues: [3]test_msgs.BasicTypes{basic, {}, basic}, AlignmentCheck: 9}, qosDefault),
		caseOf(t, "nested", test_msgs.Nested{BasicTypesValue: basic}, qosDefault),
	}

	s, err := Open(ctx, Config{DomainID: d, DDS: dds.Config{Range: dds.RangeSubnet, Getenv: func(string) string { return "" }}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	n, err := s.CreateNode(rmw.NodeName{Namespace: "/", Name: "gotypes"})
	if err != nil {
		t.Fatal(err)
	}
	echoed := make(chan string, 64)
	pubs := make([]rmw.Publisher, len(cases))
	for i, c := range cases {
		if _, err := n.CreateSubscription("/py_"+c.name, c.typ, c.qos, func(m rmw.Message) {
			if c.same(m.Payload) {
				select {
				case echoed <- c.name:
				default:
				}
			} else {
				t.Errorf("%s: echo of %d bytes differs from what was sent (%d bytes)", c.name, len(m.Payload), len(c.payload))
			}
		}); err != nil {
			t.Fatal(err)
		}
		if pubs[i], err = n.CreatePublisher("/go_"+c.name, c.typ, c.qos); err != nil {
			t.Fatal(err)
		}
	}
	// A RELIABLE reader of rclpy's BEST_EFFORT writer is incompatible: it is
	// not matched, and transport/dds reports the policy.
	bad, err := n.CreateSubscription("/py_sensor", stringType, qosDefault, func(rmw.Message) {
		t.Error("the incompatible subscription got a message")
	})
	if err != nil {
		t.Fatal(err)
	}
	events := startRclpy(t, ctx, "rclpy_echo_peer.py", d, "std_msgs.msg", "sensor_msgs.msg", "geometry_msgs.msg", "test_msgs.msg")

	pending := map[string]bool{}
	for _, c := range cases {
		pending[c.name] = true
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for len(pending) > 0 {
		select {
		case name := <-echoed:
			delete(pending, name)
		case _, ok := <-events:
			if !ok {
				t.Fatal("rclpy peer ended")
			}
		case <-tick.C:
			for i, c := range cases {
				if pending[c.name] {
					if err := pubs[i].Publish(ctx, c.payload); err != nil {
						t.Fatal(err)
					}
				}
			}
		case <-ctx.Done():
			t.Fatalf("no echo from rclpy of %v", pending)
		}
	}
	if err := bad.(*subscription).r.WaitStatus(ctx, func(st dds.MatchStatus) bool {
		return st.Incompatible.Count > 0
	}); err != nil {
		t.Fatalf("incompatible QoS not reported: %v", err)
	}
	if st := bad.(*subscription).r.Status(); st.Matched != 0 || st.Incompatible.LastPolicy != "RELIABILITY" {
		t.Errorf("incompatible reader status %+v", st)
	}
}
