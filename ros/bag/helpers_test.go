package bag_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/bag"
	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/msgs/builtin_interfaces"
	"github.com/afor-go/afor/ros/msgs/geometry_msgs"
	"github.com/afor-go/afor/ros/msgs/sensor_msgs"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/ros/msgs/test_msgs"
)

// written is a message a test wrote to a bag.
type written struct {
	topic, typ string
	t          time.Time
	data       []byte
}

// t0 is the receive time of the first sample message.
var t0 = time.Unix(1_700_000_000, 123_000_000)

// sampleMessages returns n messages of each of the sample topics, 10 ms
// apart: a string, a stamped pose, a small image, an IMU reading and two
// test_msgs types with every primitive and fixed arrays of nested types.
func sampleMessages(t testing.TB, n int) []written {
	t.Helper()
	var out []written
	add := func(topic string, at time.Time, m cdr.Message) {
		b, err := m.AppendCDR(nil)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, written{topic: topic, typ: m.TypeName(), t: at, data: b})
	}
	for i := range n {
		at := t0.Add(time.Duration(i) * 10 * time.Millisecond)
		stamp := builtin_interfaces.Time{Sec: int32(1_700_000_000 + i), Nanosec: uint32(i * 1000)}
		add("/chatter", at, &std_msgs.String{Data: fmt.Sprintf("hello %d", i)})
		add("/pose", at.Add(time.Microsecond), &geometry_msgs.PoseStamped{Header: std_msgs.Header{Stamp: stamp, FrameID: "map"},
			Pose: geometry_msgs.Pose{Position: geometry_msgs.Point{X: float64(i) * 0.5, Y: -1.25, Z: 3}, Orientation: geometry_msgs.Quaternion{W: 1}}})
		img := sensor_msgs.Image{Header: std_msgs.Header{Stamp: stamp, FrameID: "cam"}, Height: 2, Width: 3, Encoding: "mono8", Step: 3}
		for k := range 6 {
			img.Data = append(img.Data, uint8(i+k))
		}
		add("/camera/image", at.Add(2*time.Microsecond), &img)
		imu := sensor_msgs.Imu{Header: std_msgs.Header{Stamp: stamp, FrameID: "imu"}, Orientation: geometry_msgs.Quaternion{X: 0.1, W: 0.9},
			LinearAcceleration: geometry_msgs.Vector3{Z: 9.81 + float64(i)/100}}
		imu.OrientationCovariance[0], imu.AngularVelocityCovariance[4] = 0.01, -1
		add("/imu", at.Add(3*time.Microsecond), &imu)
		if i%4 == 0 {
			add("/basic", at.Add(4*time.Microsecond), &test_msgs.BasicTypes{BoolValue: true, ByteValue: 0xff, CharValue: 'a',
				Float32Value: 1.125 + float32(i), Float64Value: -2.5e-300, Int8Value: -128, Uint8Value: 255, Int16Value: -32768,
				Uint16Value: 65535, Int32Value: -1 << 31, Uint32Value: 1<<32 - 1, Int64Value: -1 << 63, Uint64Value: 1<<64 - 1})
			arr := test_msgs.Arrays{StringValues: [3]string{"a", "", "ünïcode"}, AlignmentCheck: int32(i)}
			arr.Float32Values = [3]float32{0.1, -0.5, 3e38}
			arr.BasicTypesValues[1].Int64Value = int64(i) << 40
			arr.Uint64ValuesDefault = [3]uint64{0, 1, 1<<64 - 1}
			add("/arrays", at.Add(5*time.Microsecond), &arr)
		}
	}
	return out
}

// writeBag writes msgs to a new bag in dir with o, with a QoS profile per
// topic ("/pose" transient local), and returns the bag's folder.
func writeBag(t testing.TB, dir string, o bag.WriterOptions, msgs []written) string {
	t.Helper()
	path := filepath.Join(dir, "sample_bag")
	w, err := bag.Create(path, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		q := ros.QoSDefault
		if m.topic == "/pose" {
			q = ros.QoSTransientLocal(1)
		}
		if err := w.AddTopic(bag.Topic{Name: m.topic, Type: m.typ, OfferedQoS: []bag.QoS{bag.QoSFromROS(q)}, TypeHash: hashOf(t, m.typ)}); err != nil {
			t.Fatal(err)
		}
		if err := w.Write(m.topic, m.t, m.t.Add(-time.Millisecond), 7, m.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

var hashes = map[string]string{
	"std_msgs/msg/String":           std_msgs.String{}.TypeHash(),
	"geometry_msgs/msg/PoseStamped": geometry_msgs.PoseStamped{}.TypeHash(),
	"sensor_msgs/msg/Image":         sensor_msgs.Image{}.TypeHash(),
	"sensor_msgs/msg/Imu":           sensor_msgs.Imu{}.TypeHash(),
	"test_msgs/msg/BasicTypes":      test_msgs.BasicTypes{}.TypeHash(),
	"test_msgs/msg/Arrays":          test_msgs.Arrays{}.TypeHash(),
}

func hashOf(t testing.TB, typ string) string {
	h, ok := hashes[typ]
	if !ok {
		t.Fatalf("no hash for %s", typ)
	}
	return h
}
