package tf2_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/netns"
	"github.com/afor-go/afor/internal/peers"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/geometry_msgs"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/ros/tf2"
	"github.com/afor-go/afor/transport/dds"
)

// rclpyDomain is the ROS domain of the rclpy interop test (the test
// binary runs in a network namespace of its own).
const rclpyDomain = 57

// rclpyMiddleware is the DDS middleware that reaches rclpy on Fast DDS in
// the loopback namespace, and the environment of the rclpy process.
func rclpyMiddleware(t *testing.T) (ros.Option, []string, string) {
	netns.Require(t)
	py := peers.Python(t, "rclpy", "tf2_msgs")
	mw := ros.WithMiddleware(ros.DDS(dds.Config{Range: dds.RangeSubnet, Getenv: func(string) string { return "" }}))
	env := []string{"RMW_IMPLEMENTATION=rmw_fastrtps_cpp", "FASTDDS_BUILTIN_TRANSPORTS=UDPv4",
		"ROS_DOMAIN_ID=" + strconv.Itoa(rclpyDomain), "ROS_AUTOMATIC_DISCOVERY_RANGE=SUBNET"}
	return mw, env, py
}

type pyTF struct {
	Ev     string     `json:"ev"`
	Error  string     `json:"error"`
	Static bool       `json:"static"`
	Parent string     `json:"parent"`
	Child  string     `json:"child"`
	Stamp  int64      `json:"stamp"`
	T      [3]float64 `json:"t"`
	Q      [4]float64 `json:"q"`
	N      int        `json:"n"`
}

type specTF struct {
	Parent string     `json:"parent"`
	Child  string     `json:"child"`
	T      [3]float64 `json:"t"`
	Q      [4]float64 `json:"q"`
}

func specOf(parent, child string, x geometry_msgs.Transform) specTF {
	return specTF{parent, child, vecOf(x.Translation), quatOf(x.Rotation)}
}

// startRclpyTF runs testdata/rclpy_tf.py until the test ends and returns
// its events once it is ready.
func startRclpyTF(t *testing.T, py string, env []string, spec any) <-chan pyTF {
	t.Helper()
	arg, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, filepath.Join("testdata", "rclpy_tf.py"), string(arg))
	cmd.Env = append(os.Environ(), env...)
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
	events := make(chan pyTF, 4096)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(events)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var ev pyTF
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				select {
				case events <- ev:
				default: // the test stopped reading
				}
			}
		}
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		timer := time.AfterFunc(10*time.Second, func() { _ = cmd.Process.Kill() })
		defer timer.Stop()
		<-done
		_ = cmd.Wait()
	})
	select {
	case ev, ok := <-events:
		if !ok || ev.Ev != "ready" {
			t.Fatalf("rclpy_tf.py: %+v", ev)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("rclpy_tf.py is not ready")
	}
	return events
}

// TestInteropRclpy runs against rclpy on Fast DDS: rclpy publishes /tf
// (map -> odom -> base_link, 50 Hz) and /tf_static from two nodes before
// the Go node starts; the Go listener gets both static sets and looks up
// the 4-link chain map -> camera_optical at the latest time and between
// samples. Then a Go broadcaster and static broadcaster publish and rclpy
// decodes what they sent.
func TestInteropRclpy(t *testing.T) {
	mw, env, py := rclpyMiddleware(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	t0 := time.Now().Round(0)
	m := motion{t0: t0}
	events := startRclpyTF(t, py, env, map[string]any{
		"t0":       t0.UnixNano(),
		"static_a": []specTF{specOf("base_link", "camera_link", staticCamera), specOf("base_link", "laser", staticLaser)},
		"static_b": []specTF{specOf("camera_link", "camera_optical", staticOptical)},
	})

	node := newNode(t, "go_tf", mw, ros.WithDomainID(rclpyDomain))
	buf := tf2.NewBuffer()
	l, err := tf2.NewListener(node, buf)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()

	got, err := buf.WaitForTransform(ctx, "map", "camera_optical", tf2.Latest)
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.AllFramesAsString())
	}
	checkTransform(t, "camera_optical in map, latest", got.Transform, m.opticalInMap(tf2.StampTime(got.Header.Stamp)))
	latest := tf2.StampTime(got.Header.Stamp)
	for _, d := range []time.Duration{7 * time.Millisecond, 33 * time.Millisecond, 251 * time.Millisecond} {
		tm := latest.Add(d)
		got, err := buf.WaitForTransform(ctx, "map", "camera_optical", tm)
		if err != nil {
			t.Fatal(err)
		}
		checkTransform(t, "camera_optical in map at latest+"+d.String(), got.Transform, m.opticalInMap(tm))
		got, err = buf.LookupTransform("camera_optical", "odom", tm)
		if err != nil {
			t.Fatal(err)
		}
		checkTransform(t, "odom in camera_optical", got.Transform, tf2.Inverse(tf2.Compose(tf2.Inverse(m.odom(tm)), m.opticalInMap(tm))))
	}
	got, err = buf.LookupTransform("laser", "camera_optical", tf2.Latest)
	if err != nil {
		t.Fatalf("%v\n%s\n%+v", err, buf.AllFramesAsYAML(tf2.Latest), l.Stats())
	}
	checkTransform(t, "camera_optical in laser", got.Transform, tf2.Compose(tf2.Inverse(staticLaser), tf2.Compose(staticCamera, staticOptical)))
	if ids := buf.FrameIDs(); !slices.Equal(ids, []string{"base_link", "camera_link", "camera_optical", "laser", "map", "odom"}) {
		t.Errorf("frames %v", ids)
	}
	t.Logf("from rclpy:\n%s", buf.AllFramesAsYAML(time.Now()))

	// Go -> rclpy: a static set built in two calls, and a dynamic
	// transform sent until rclpy has it (its subscription matches ours
	// some time after we publish).
	sb, err := tf2.NewStaticBroadcaster(node)
	if err != nil {
		t.Fatal(err)
	}
	br, err := tf2.NewBroadcaster(node)
	if err != nil {
		t.Fatal(err)
	}
	static1 := geometry_msgs.TransformStamped{Header: std_msgs.Header{FrameID: "base_link"}, ChildFrameID: "go_static_1", Transform: staticCamera}
	static2 := geometry_msgs.TransformStamped{Header: std_msgs.Header{FrameID: "go_static_1"}, ChildFrameID: "go_static_2", Transform: staticOptical}
	if err := sb.SendTransform(ctx, static1); err != nil {
		t.Fatal(err)
	}
	if err := sb.SendTransform(ctx, static2); err != nil {
		t.Fatal(err)
	}
	dyn := geometry_msgs.TransformStamped{Header: std_msgs.Header{FrameID: "map", Stamp: tf2.TimeStamp(t0.Add(1500 * time.Millisecond))},
		ChildFrameID: "go_dynamic", Transform: m.base(t0.Add(1500 * time.Millisecond))}
	seen := map[string]pyTF{}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for seen["go_dynamic"].Ev == "" || seen["go_static_2"].Ev == "" || seen["go_static_1"].Ev == "" {
		select {
		case ev, ok := <-events:
			if !ok || ev.Ev == "error" {
				t.Fatalf("rclpy_tf.py: %+v", ev)
			}
			seen[ev.Child] = ev
		case <-tick.C:
			if err := br.SendTransform(ctx, dyn); err != nil {
				t.Fatal(err)
			}
		case <-ctx.Done():
			t.Fatalf("rclpy received %v", seen)
		}
	}
	for _, c := range []struct {
		want   geometry_msgs.TransformStamped
		static bool
	}{{dyn, false}, {static1, true}, {static2, true}} {
		ev := seen[c.want.ChildFrameID]
		if ev.Parent != c.want.Header.FrameID || ev.Static != c.static || ev.Stamp != tf2.StampTime(c.want.Header.Stamp).UnixNano() ||
			!closeVec(ev.T, vecOf(c.want.Transform.Translation)) || !closeQuat(ev.Q, quatOf(c.want.Transform.Rotation)) {
			t.Errorf("rclpy decoded %+v, we sent %+v", ev, c.want)
		}
	}
	if ev := seen["go_static_2"]; ev.N != 2 {
		t.Errorf("the static set as rclpy got it last has %d transforms, want 2", ev.N)
	}
}
