package rossync_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/internal/netns"
	"github.com/afor-go/afor/internal/peers"
	"github.com/afor-go/afor/msgsync"
	"github.com/afor-go/afor/msgsync/internal/ref"
	"github.com/afor-go/afor/msgsync/rossync"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/builtin_interfaces"
	"github.com/afor-go/afor/ros/msgs/sensor_msgs"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/transport/dds"
)

func header(ns int64, frame string) std_msgs.Header {
	return std_msgs.Header{Stamp: builtin_interfaces.Time{Sec: int32(ns / 1e9), Nanosec: uint32(ns % 1e9)}, FrameID: frame}
}

// exactPairs publishes count Imu and MagneticField messages with the same
// stamps from one node and checks that an exact synchronizer on another
// node, reached over mw, pairs every one of them.
func exactPairs(t *testing.T, mw ros.Middleware, count int) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sink, err := ros.NewNode(ctx, "sync", ros.WithMiddleware(mw))
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	imu, err := ros.Subscribe[sensor_msgs.Imu](sink, "imu", ros.QoSKeepAll())
	if err != nil {
		t.Fatal(err)
	}
	mag, err := ros.Subscribe[sensor_msgs.MagneticField](sink, "mag", ros.QoSKeepAll())
	if err != nil {
		t.Fatal(err)
	}
	pairs := msgsync.Exact(rossync.In(imu), rossync.In(mag), msgsync.QueueSize(count))
	defer pairs.Close()
	got := pairs.Listener(ctx, afor.QueueSize(0))

	source, err := ros.NewNode(ctx, "sensors", ros.WithMiddleware(mw))
	if err != nil {
		t.Fatal(err)
	}
	defer source.Close()
	imuPub, err := ros.NewPublisher[sensor_msgs.Imu](source, "imu", ros.QoSKeepAll())
	if err != nil {
		t.Fatal(err)
	}
	magPub, err := ros.NewPublisher[sensor_msgs.MagneticField](source, "mag", ros.QoSKeepAll())
	if err != nil {
		t.Fatal(err)
	}
	if err := imuPub.WaitForSubscriptions(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := magPub.WaitForSubscriptions(ctx, 1); err != nil {
		t.Fatal(err)
	}
	t0 := int64(1_700_000_000) * 1e9
	for k := range count {
		st := t0 + int64(k)*10e6
		i := sensor_msgs.Imu{Header: header(st, "imu")}
		m := sensor_msgs.MagneticField{Header: header(st, "mag")}
		if k%3 == 0 { // the magnetometer first, now and then
			err = magPub.Publish(ctx, &m)
			err = firstErr(err, imuPub.Publish(ctx, &i))
		} else {
			err = imuPub.Publish(ctx, &i)
			err = firstErr(err, magPub.Publish(ctx, &m))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for k := range count {
		p, err := got.Next(ctx)
		if err != nil {
			t.Fatalf("pair %d: %v (stats %+v)", k, err, pairs.Stats())
		}
		want := time.Unix(0, t0+int64(k)*10e6)
		if a, b := rossync.Stamp(p.A.Header), rossync.Stamp(p.B.Header); !a.Equal(want) || !b.Equal(want) ||
			p.A.Header.FrameID != "imu" || p.B.Header.FrameID != "mag" {
			t.Fatalf("pair %d: %v %s, %v %s; want both at %v", k, a, p.A.Header.FrameID, b, p.B.Header.FrameID, want)
		}
	}
	if st := pairs.Stats(); st.Sets != uint64(count) || slices.Max(st.Dropped) != 0 {
		t.Errorf("stats %+v", st)
	}
}

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// TestExactMemory pairs two topics end to end over the in-memory
// middleware.
func TestExactMemory(t *testing.T) {
	exactPairs(t, ros.Memory(ros.NewMemoryNetwork()), 500)
}

// TestExactDDS pairs two topics end to end over DDS between two Go nodes
// (each its own participant) on 127.0.0.1.
func TestExactDDS(t *testing.T) {
	netns.Require(t)
	exactPairs(t, ros.DDS(dds.Config{DomainID: 7, Range: dds.RangeLocalhost, NoMulticast: true}), 300)
}

// TestApproximateRclpy feeds an approximate synchronizer from rclpy on
// Fast DDS: sensor_msgs Imu at about 50 Hz and MagneticField at about
// 20 Hz, jittered, with lost messages, published by rclpy as a bag player
// would. Every stamp rclpy published must reach the Go node, and the sets
// must be those the exhaustive reference computes from the stamps.
func TestApproximateRclpy(t *testing.T) {
	netns.Require(t)
	py := peers.Python(t, "rclpy", "sensor_msgs")
	const domain = 11
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	mw := ros.DDS(dds.Config{Range: dds.RangeSubnet, Getenv: func(string) string { return "" }})
	node, err := ros.NewNode(ctx, "go_sync", ros.WithMiddleware(mw), ros.WithDomainID(domain))
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	var id [4]byte
	_, _ = rand.Read(id[:])
	prefix := "/sync_" + hex.EncodeToString(id[:])
	imu, err := ros.Subscribe[sensor_msgs.Imu](node, prefix+"/imu", ros.QoSKeepAll())
	if err != nil {
		t.Fatal(err)
	}
	mag, err := ros.Subscribe[sensor_msgs.MagneticField](node, prefix+"/mag", ros.QoSKeepAll())
	if err != nil {
		t.Fatal(err)
	}
	// Every stamp received, per topic, in arrival order.
	imuCache := msgsync.NewCache(rossync.In(imu), 10000)
	defer imuCache.Close()
	magCache := msgsync.NewCache(rossync.In(mag), 10000)
	defer magCache.Close()
	pairs := msgsync.Approximate(rossync.In(imu), rossync.In(mag), msgsync.QueueSize(1000))
	defer pairs.Close()
	got := pairs.Listener(ctx, afor.QueueSize(0))

	const count = 150
	cmd := exec.Command(py, filepath.Join("testdata", "rclpy_imu_mag.py"), prefix, strconv.Itoa(count), "42")
	cmd.Env = append(os.Environ(), "RMW_IMPLEMENTATION=rmw_fastrtps_cpp", "FASTDDS_BUILTIN_TRANSPORTS=UDPv4",
		"ROS_DOMAIN_ID="+strconv.Itoa(domain), "ROS_AUTOMATIC_DISCOVERY_RANGE=SUBNET")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = stdin.Close()
		timer := time.AfterFunc(10*time.Second, func() { _ = cmd.Process.Kill() })
		defer timer.Stop()
		_ = cmd.Wait()
	}()
	events := make(chan map[string]any, 4)
	go func() {
		defer close(events)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var ev map[string]any
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				events <- ev
			}
		}
	}()
	var published [2][]int64
	for done := false; !done; {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatal("rclpy_imu_mag.py ended early")
			}
			switch ev["ev"] {
			case "error":
				t.Fatalf("rclpy_imu_mag.py: %v", ev["error"])
			case "done":
				for i, key := range []string{"imu", "mag"} {
					for _, v := range ev[key].([]any) {
						published[i] = append(published[i], int64(v.(float64)))
					}
				}
				done = true
			}
		case <-ctx.Done():
			t.Fatal("no end of publication from rclpy_imu_mag.py")
		}
	}
	// (float64 holds these stamps, about 2^36 ns, exactly.)

	// The last message of each topic, a second after the others, settles
	// every set before it.
	last := time.Unix(0, published[0][len(published[0])-1])
	if _, err := imuCache.WaitFor(ctx, last); err != nil {
		t.Fatalf("imu: %v", err)
	}
	if _, err := magCache.WaitFor(ctx, last); err != nil {
		t.Fatalf("mag: %v", err)
	}
	var received [2][]int64
	for _, m := range imuCache.Interval(time.Unix(0, 0), last) {
		received[0] = append(received[0], rossync.Stamp(m.Header).UnixNano())
	}
	for _, m := range magCache.Interval(time.Unix(0, 0), last) {
		received[1] = append(received[1], rossync.Stamp(m.Header).UnixNano())
	}
	for i := range 2 {
		if !slices.Equal(received[i], published[i]) {
			t.Fatalf("topic %d: received %d stamps %v, rclpy published %d %v", i, len(received[i]), received[i], len(published[i]), published[i])
		}
	}

	want := ref.Approximate(published[:], 1<<62, 0, 1)
	for k, set := range want {
		p, err := got.Next(ctx)
		if err != nil {
			t.Fatalf("set %d: %v", k, err)
		}
		a, b := rossync.Stamp(p.A.Header).UnixNano(), rossync.Stamp(p.B.Header).UnixNano()
		if a != published[0][set[0]] || b != published[1][set[1]] {
			t.Fatalf("set %d: (%d, %d), want (%d, %d)", k, a, b, published[0][set[0]], published[1][set[1]])
		}
	}
	st := pairs.Stats()
	if st.Sets != uint64(len(want)) || slices.Max(st.Pending) != 0 {
		t.Errorf("%d sets expected; stats %+v", len(want), st)
	}
	t.Logf("%d imu and %d mag messages from rclpy: %d sets, %v dropped", len(published[0]), len(published[1]), st.Sets, st.Dropped)
}
