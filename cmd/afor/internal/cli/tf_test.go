package cli

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/afor-go/afor/ros/msgs/builtin_interfaces"
	"github.com/afor-go/afor/ros/msgs/geometry_msgs"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/ros/tf2"
)

// broadcastTF publishes, from the world's node, map -> odom on /tf_static
// and odom -> base_link on /tf (every 20 ms, always the same stamp) until
// the test ends.
func (w *world) broadcastTF(ctx context.Context) {
	w.t.Helper()
	sb, err := tf2.NewStaticBroadcaster(w.node)
	if err != nil {
		w.t.Fatal(err)
	}
	if err := sb.SendTransform(ctx, geometry_msgs.TransformStamped{Header: std_msgs.Header{FrameID: "map"}, ChildFrameID: "odom",
		Transform: geometry_msgs.Transform{Translation: geometry_msgs.Vector3{X: 1}, Rotation: geometry_msgs.Quaternion{W: 1}}}); err != nil {
		w.t.Fatal(err)
	}
	br, err := tf2.NewBroadcaster(w.node)
	if err != nil {
		w.t.Fatal(err)
	}
	dyn := geometry_msgs.TransformStamped{
		Header:       std_msgs.Header{FrameID: "odom", Stamp: builtin_interfaces.Time{Sec: 1700000000, Nanosec: 5}},
		ChildFrameID: "base_link",
		Transform: geometry_msgs.Transform{Translation: geometry_msgs.Vector3{Y: 2, Z: 3},
			Rotation: tf2.QuaternionFromRPY(0, 0, math.Pi/3)},
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			_ = br.SendTransform(ctx, dyn)
			select {
			case <-tick.C:
			case <-ctx.Done():
				return
			}
		}
	}()
	w.t.Cleanup(func() { cancel(); <-done })
}

func TestTFEcho(t *testing.T) {
	w := newWorld(t)
	ctx := testCtx(t)
	w.broadcastTF(ctx)
	code, out, errOut := w.run(ctx, "tf", "echo", "map", "base_link", "--once")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// tf2_echo's layout, nanoseconds unpadded and the pitch of a yaw-only
	// rotation -0 (-asin(0)) as it prints them.
	want := `At time 1700000000.5
- Translation: [1.000, 2.000, 3.000]
- Rotation: in Quaternion [0.000, 0.000, 0.500, 0.866]
- Rotation: in RPY (radian) [0.000, -0.000, 1.047]
- Rotation: in RPY (degree) [0.000, -0.000, 60.000]
- Matrix:
  0.500 -0.866  0.000  1.000
  0.866  0.500  0.000  2.000
  0.000  0.000  1.000  3.000
  0.000  0.000  0.000  1.000
`
	if out != want {
		t.Errorf("tf echo printed\n%s\nwant\n%s", out, want)
	}
	// The inverse, twice.
	code, out, errOut = w.run(ctx, "tf", "echo", "base_link", "map", "--count", "2", "--rate", "50")
	if code != 0 || strings.Count(out, "At time") != 2 || !strings.Contains(out, "0.000, -60.000]\n") {
		t.Errorf("exit %d: %s%s", code, out, errOut)
	}
}

// Frames that never come: tf echo says why once a second until Ctrl-C.
func TestTFEchoWaits(t *testing.T) {
	w := newWorld(t)
	ctx, cancel := context.WithCancel(testCtx(t))
	var out, errOut syncBuffer
	wait := w.start(ctx, &out, &errOut, "tf", "echo", "map", "nowhere")
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(errOut.String(), "Waiting for transform map ->  nowhere:") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if code := wait(); code != 0 || !strings.Contains(errOut.String(), `"map" passed to lookupTransform argument target_frame does not exist`) {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
	if code, _, errOut := w.run(testCtx(t), "tf", "echo", "map"); code != 2 || !strings.Contains(errOut, "takes 2 argument(s)") {
		t.Errorf("one frame: exit %d, %s", code, errOut)
	}
	if code, _, errOut := w.run(testCtx(t), "tf", "echo", "map", "odom", "--rate", "0"); code != 2 {
		t.Errorf("rate 0: exit %d, %s", code, errOut)
	}
	if code, _, errOut := w.run(testCtx(t), "tf", "echo", "/map", "odom"); code != 1 || !strings.Contains(errOut, "cannot start with a '/'") {
		t.Errorf("/map: exit %d, %s", code, errOut)
	}
}

func TestTFFrames(t *testing.T) {
	w := newWorld(t)
	ctx := testCtx(t)
	w.broadcastTF(ctx)
	code, out, errOut := w.run(ctx, "tf", "frames", "--duration", "200ms")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, s := range []string{"odom: \n  parent: 'map'\n  broadcaster: '/peer'\n  rate: 10000.000\n", "base_link: \n  parent: 'odom'\n  broadcaster: '/peer'\n",
		"  most_recent_transform: 1700000000.000000\n"} {
		if !strings.Contains(out, s) {
			t.Errorf("tf frames misses %q:\n%s", s, out)
		}
	}
	code, out, errOut = w.run(ctx, "tf", "frames", "--duration", "200ms", "--text")
	if code != 0 || out != "Frame odom exists with parent map.\nFrame base_link exists with parent odom.\n" {
		t.Errorf("--text: exit %d: %q %s", code, out, errOut)
	}
	file := filepath.Join(t.TempDir(), "frames.gv")
	code, _, errOut = w.run(ctx, "tf", "frames", "--duration", "200ms", "--dot", file)
	dot, err := os.ReadFile(file)
	if code != 0 || err != nil || !strings.HasPrefix(string(dot), "digraph G {\n\"map\" -> \"odom\"[label=\" Broadcaster: /peer\\n") ||
		!strings.Contains(string(dot), `"odom" -> "base_link"`) {
		t.Errorf("--dot: exit %d, %v, %s\n%s", code, err, errOut, dot)
	}
}
