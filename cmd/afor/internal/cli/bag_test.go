package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
)

// TestBagRecordInfoPlay records a topic with `afor bag record`, prints the
// bag with `afor bag info` and plays it back with `afor bag play`.
func TestBagRecordInfoPlay(t *testing.T) {
	w := newWorld(t)
	ctx := testCtx(t)
	pub, err := ros.NewPublisher[std_msgs.String](w.node, "/chatter", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "my_bag")
	rctx, stop := context.WithCancel(ctx)
	var out, errOut syncBuffer
	wait := w.start(rctx, &out, &errOut, "bag", "record", "/chatter", "-o", dir, "--storage-preset-profile", "zstd_fast")
	if err := pub.WaitForSubscriptions(ctx, 1); err != nil {
		t.Fatal(err)
	}
	const n = 20
	for i := range n {
		if err := pub.Publish(ctx, &std_msgs.String{Data: fmt.Sprint("m", i)}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	stop()
	if code := wait(); code != 0 {
		t.Fatalf("record: exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(errOut.String(), "Recorded 20 messages on 1 topics") {
		t.Errorf("record said %q", errOut.String())
	}

	code, info, stderr := runPlain(ctx, "bag", "info", dir)
	if code != 0 {
		t.Fatalf("info: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"\nFiles:             my_bag_0.mcap\n", "Storage id:        mcap\n", "Messages:          20\n",
		"Topic information: Topic: /chatter | Type: std_msgs/msg/String | Count: 20 | Serialization Format: cdr\n",
		"Service:           0\nService information: \n"} {
		if !strings.Contains(info, want) {
			t.Errorf("info lacks %q:\n%s", want, info)
		}
	}
	code, names, _ := runPlain(ctx, "bag", "info", "-t", filepath.Join(dir, "my_bag_0.mcap"))
	if code != 0 || names != "/chatter\n" {
		t.Errorf("info -t: %d %q", code, names)
	}

	sub, err := ros.Subscribe[std_msgs.String](w.node, "/replayed", ros.QoSKeepAll())
	if err != nil {
		t.Fatal(err)
	}
	got := sub.Listener(ctx, afor.QueueSize(0))
	code, _, stderr = w.run(ctx, "bag", "play", dir, "-r", "4", "--remap", "/chatter:=/replayed", "--delay", "0.05")
	if code != 0 {
		t.Fatalf("play: exit %d: %s", code, stderr)
	}
	for i := range n {
		m, err := got.Next(ctx)
		if err != nil || m.Data != fmt.Sprint("m", i) {
			t.Fatalf("replayed %d: %q %v", i, m.Data, err)
		}
	}
	if code, _, stderr := w.run(ctx, "bag", "record"); code != 2 || !strings.Contains(stderr, "-a") {
		t.Errorf("record with nothing to record: %d %q", code, stderr)
	}
	if code, _, stderr := w.run(ctx, "bag", "play", dir, "-r", "0"); code != 2 {
		t.Errorf("play -r 0: %d %q", code, stderr)
	}
}

// runPlain runs a command that opens no ROS context.
func runPlain(ctx context.Context, args ...string) (int, string, string) {
	var out, errOut syncBuffer
	code := Run(ctx, Env{Stdout: &out, Stderr: &errOut}, args)
	return code, out.String(), errOut.String()
}
