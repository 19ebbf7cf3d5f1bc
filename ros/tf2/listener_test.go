package tf2_test

import (
	"context"
	"log/slog"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/internal/netns"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/geometry_msgs"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/ros/tf2"
	"github.com/afor-go/afor/transport/dds"
	"github.com/afor-go/afor/transport/zenoh"
)

var quiet = ros.WithLogger(slog.New(slog.DiscardHandler))

// motion is the robot of the interop tests: transforms that are exact
// functions of their stamps, linear in translation and turning about Z at
// a constant rate, so that interpolating between two samples gives the
// function's value in between exactly.
type motion struct{ t0 time.Time }

// odom is map -> odom and base odom -> base_link at t.
func (m motion) odom(t time.Time) geometry_msgs.Transform {
	s := t.Round(0).Sub(m.t0.Round(0)).Seconds() // on the wall clock, as the stamps
	return geometry_msgs.Transform{Translation: geometry_msgs.Vector3{X: 0.5 + 0.1*s, Y: -0.2}, Rotation: tf2.QuaternionFromRPY(0, 0, 0.05*s)}
}

func (m motion) base(t time.Time) geometry_msgs.Transform {
	s := t.Round(0).Sub(m.t0.Round(0)).Seconds()
	return geometry_msgs.Transform{Translation: geometry_msgs.Vector3{X: 1.0 * s, Y: 0.5 * s}, Rotation: tf2.QuaternionFromRPY(0, 0, 0.3*s)}
}

func (m motion) dynamic(t time.Time) []geometry_msgs.TransformStamped {
	h := func(frame string) std_msgs.Header { return std_msgs.Header{FrameID: frame, Stamp: tf2.TimeStamp(t)} }
	return []geometry_msgs.TransformStamped{
		{Header: h("map"), ChildFrameID: "odom", Transform: m.odom(t)},
		{Header: h("odom"), ChildFrameID: "base_link", Transform: m.base(t)},
	}
}

// The static links: base_link -> camera_link and base_link -> laser from
// one broadcaster, camera_link -> camera_optical from another.
var (
	staticCamera  = geometry_msgs.Transform{Translation: geometry_msgs.Vector3{X: 0.2, Z: 0.3}, Rotation: tf2.QuaternionFromRPY(0, 0.1, 0)}
	staticLaser   = geometry_msgs.Transform{Translation: geometry_msgs.Vector3{X: 0.1, Z: 0.2}, Rotation: tf2.QuaternionFromRPY(0, 0, 0)}
	staticOptical = geometry_msgs.Transform{Rotation: tf2.QuaternionFromRPY(-math.Pi/2, 0, -math.Pi/2)}
)

// opticalInMap is the expected pose of camera_optical in map at t.
func (m motion) opticalInMap(t time.Time) geometry_msgs.Transform {
	return tf2.Compose(tf2.Compose(tf2.Compose(m.odom(t), m.base(t)), staticCamera), staticOptical)
}

func checkTransform(t *testing.T, what string, got, want geometry_msgs.Transform) {
	t.Helper()
	g, w := got.Translation, want.Translation
	gq, wq := quatOf(got.Rotation), quatOf(want.Rotation)
	if !closeVec([3]float64{g.X, g.Y, g.Z}, [3]float64{w.X, w.Y, w.Z}) || !closeQuat(gq, wq) {
		t.Errorf("%s: got %+v, want %+v", what, got, want)
	}
}

// twoNodes opens the publishing side and the listening side of a test on
// one middleware.
type twoNodes func(t *testing.T) (pubA, pubB *ros.Node, listen func() *ros.Node)

// lateJoiner says whether the listener of a middleware's scenario is
// created after the static broadcasters published: on every middleware,
// since a sub keeps what arrives before its first consumer (the in-memory
// middleware delivers a transient-local history inside Subscribe, Zenoh's
// may come before the listener binds its callback).
var lateJoiner = map[string]bool{"memory": true, "zenoh": true, "dds": true}

func memoryNodes(t *testing.T) (*ros.Node, *ros.Node, func() *ros.Node) {
	net := ros.NewMemoryNetwork()
	mw := ros.WithMiddleware(ros.Memory(net))
	return newNode(t, "static_a", mw), newNode(t, "static_b", mw), func() *ros.Node { return newNode(t, "go_listener", mw) }
}

func zenohNodes(t *testing.T) (*ros.Node, *ros.Node, func() *ros.Node) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	ca, err := ros.Open(ctx, ros.WithMiddleware(ros.Zenoh(zenoh.Config{Listen: []string{"tcp/127.0.0.1:0"}})), quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ca.Close() })
	nodeOf := func(c *ros.Context, name string) *ros.Node {
		n, err := c.NewNode(name)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	return nodeOf(ca, "static_a"), nodeOf(ca, "static_b"), func() *ros.Node {
		cb, err := ros.Open(t.Context(), ros.WithMiddleware(ros.Zenoh(zenoh.Config{Connect: ca.ListenAddrs()})), quiet)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cb.Close() })
		return nodeOf(cb, "go_listener")
	}
}

func ddsNodes(t *testing.T) (*ros.Node, *ros.Node, func() *ros.Node) {
	netns.Require(t)
	mw := ros.WithMiddleware(ros.DDS(dds.Config{Range: dds.RangeLocalhost, NoMulticast: true, Getenv: func(string) string { return "" }}))
	dom := ros.WithDomainID(31)
	return newNode(t, "static_a", mw, dom), newNode(t, "static_b", mw, dom), func() *ros.Node { return newNode(t, "go_listener", mw, dom) }
}

func newNode(t *testing.T, name string, opts ...ros.Option) *ros.Node {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	n, err := ros.NewNode(ctx, name, append([]ros.Option{quiet}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	return n
}

// TestListenerBroadcasters runs Go broadcasters (two static ones that
// publish before the listener exists, one of them twice, and a dynamic one
// at 50 Hz) and a Go listener on each middleware: the late listener gets
// both static sets, and looks up the 4-link chain map -> camera_optical at
// the latest time and between samples.
func TestListenerBroadcasters(t *testing.T) {
	for _, c := range []struct {
		name  string
		nodes twoNodes
	}{{"memory", memoryNodes}, {"zenoh", zenohNodes}, {"dds", ddsNodes}} {
		t.Run(c.name, func(t *testing.T) { listenerScenario(t, c.nodes, lateJoiner[c.name]) })
	}
}

func listenerScenario(t *testing.T, nodes twoNodes, late bool) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	a, b, listen := nodes(t)
	m := motion{t0: time.Now()}
	buf := tf2.NewBuffer()
	var l *tf2.Listener
	startListener := func() {
		var err error
		if l, err = tf2.NewListener(listen(), buf); err != nil {
			t.Fatal(err)
		}
	}
	if !late {
		startListener()
	}

	sa, err := tf2.NewStaticBroadcaster(a)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := tf2.NewStaticBroadcaster(b)
	if err != nil {
		t.Fatal(err)
	}
	static := func(parent, child string, x geometry_msgs.Transform) geometry_msgs.TransformStamped {
		return geometry_msgs.TransformStamped{Header: std_msgs.Header{FrameID: parent}, ChildFrameID: child, Transform: x}
	}
	// Two calls: the broadcaster's one kept message holds both.
	for _, err := range []error{
		sa.SendTransform(ctx, static("base_link", "camera_link", staticCamera)),
		sa.SendTransform(ctx, static("base_link", "laser", staticLaser)),
		sb.SendTransform(ctx, static("camera_link", "camera_optical", staticOptical)),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := sa.Transforms(); len(got) != 2 {
		t.Fatalf("static set %+v", got)
	}

	br, err := tf2.NewBroadcaster(a)
	if err != nil {
		t.Fatal(err)
	}
	rate, err := afor.NewRate(50)
	if err != nil {
		t.Fatal(err)
	}
	defer rate.Close()
	pubCtx, stop := context.WithCancel(ctx)
	published := make(chan struct{})
	go func() {
		defer close(published)
		for range rate.Listen(pubCtx) {
			if err := br.SendTransform(pubCtx, m.dynamic(time.Now())...); err != nil && pubCtx.Err() == nil {
				t.Error(err)
				return
			}
		}
	}()
	defer func() { stop(); <-published }()

	if late {
		startListener()
	}
	defer l.Close()

	got, err := buf.WaitForTransform(ctx, "map", "camera_optical", tf2.Latest)
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.AllFramesAsString())
	}
	checkTransform(t, "camera_optical in map, latest", got.Transform, m.opticalInMap(tf2.StampTime(got.Header.Stamp)))
	// A time between two samples (20 ms apart), once the samples after it
	// have come.
	mid := tf2.StampTime(got.Header.Stamp).Add(30 * time.Millisecond)
	got, err = buf.WaitForTransform(ctx, "map", "camera_optical", mid)
	if err != nil {
		t.Fatal(err)
	}
	checkTransform(t, "camera_optical in map, interpolated", got.Transform, m.opticalInMap(mid))
	// The laser came in the same static message as the camera.
	got, err = buf.WaitForTransform(ctx, "laser", "camera_optical", tf2.Latest)
	if err != nil {
		t.Fatal(err)
	}
	checkTransform(t, "camera_optical in laser", got.Transform, tf2.Compose(tf2.Inverse(staticLaser), tf2.Compose(staticCamera, staticOptical)))
	if ids := buf.FrameIDs(); !slices.Equal(ids, []string{"base_link", "camera_link", "camera_optical", "laser", "map", "odom"}) {
		t.Errorf("frames %v", ids)
	}
	if s := l.Stats(); s.Messages < 3 || s.Rejected != 0 {
		t.Errorf("listener stats %+v", s)
	}
	// The broadcasters are named by the graph, once it knows them.
	yaml := buf.AllFramesAsYAML(time.Now())
	if !strings.Contains(yaml, "broadcaster: '/static_b'") && !strings.Contains(yaml, "broadcaster: 'Authority undetectable'") {
		t.Errorf("authority of camera_optical:\n%s", yaml)
	}
}

// A listener logs and counts the transforms the buffer refuses and keeps
// the others of the same message.
func TestListenerBadTransforms(t *testing.T) {
	a, _, listen := memoryNodes(t)
	ln := listen()
	buf := tf2.NewBuffer()
	l, err := tf2.NewListener(ln, buf)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	br, err := tf2.NewBroadcaster(a)
	if err != nil {
		t.Fatal(err)
	}
	good := tr("map", "odom", 0, 1, 0, 0, 0)
	self := tr("odom", "odom", 0, 1, 0, 0, 0)
	nan := tr("map", "base", 0, math.NaN(), 0, 0, 0)
	if err := br.SendTransform(t.Context(), self, good, nan); err != nil {
		t.Fatal(err)
	}
	if _, err := buf.WaitForTransform(t.Context(), "map", "odom", tf2.Latest); err != nil {
		t.Fatal(err)
	}
	if s := l.Stats(); s.Messages != 1 || s.Rejected != 2 || s.LastError == nil {
		t.Errorf("stats %+v", s)
	}
	if buf.FrameExists("base") {
		t.Error("a refused transform named a frame")
	}
}
