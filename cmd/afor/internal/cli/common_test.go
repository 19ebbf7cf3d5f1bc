package cli

import (
	"strings"
	"testing"
)

// topic pub prints the message as rclpy's repr does, chars as numbers and
// fixed arrays of them as numpy arrays (what rclpy printed for
// test_msgs.msg.Arrays()).
func TestTopicPubPrintsRclpyRepr(t *testing.T) {
	w := newWorld(t)
	ctx := testCtx(t)
	code, out, errOut := w.run(ctx, "topic", "pub", "/arrays", "test_msgs/msg/Arrays", "--once", "-w", "0", "--keep-alive", "0s")
	if code != 0 {
		t.Fatalf("pub: %d %q", code, errOut)
	}
	for _, want := range []string{
		"publishing #1: test_msgs.msg.Arrays(bool_values=[False, False, False], byte_values=[b'\\x00', b'\\x00', b'\\x00'], char_values=array([0, 0, 0], dtype=uint8), ",
		"char_value=100, ",
		"char_values_default=array([  0,   1, 127], dtype=uint8), float32_values_default=array([ 1.125,  0.   , -1.125], dtype=float32), ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("pub printed %q, want it to contain %q", out, want)
		}
	}
}

// The list and type commands share their code: each keeps its own usage
// line and its own error for an unknown name.
func TestListAndTypeCommandsUsage(t *testing.T) {
	w := newWorld(t)
	ctx := testCtx(t)
	for _, c := range []struct{ args, want string }{
		{"topic list -h", "Usage: afor topic list [-t]\n\nList the topics of the ROS graph.\n"},
		{"service list -h", "-include-hidden-services\n"},
		{"action list -h", "Usage: afor action list [-t]\n\nList the actions of the ROS graph (with a server or a client).\n"},
		{"topic type -h", "Usage: afor topic type TOPIC\n"},
		{"service type -h", "Usage: afor service type NAME\n"},
		{"topic hz -h", "-window int\n    \twindow size, in messages, for the statistics (default 10000)\n"},
		{"topic bw -h", "-window int\n    \twindow size, in messages, for the statistics (default 100)\n"},
	} {
		code, out, errOut := w.run(ctx, strings.Fields(c.args)...)
		if code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("afor %s: %d %q %q, want %q in stdout", c.args, code, out, errOut, c.want)
		}
	}
	if strings.Contains(func() string { _, out, _ := w.run(ctx, "action", "list", "-h"); return out }(), "include-hidden") {
		t.Error("action list has --include-hidden-actions")
	}
	code, _, errOut := w.run(ctx, "service", "type", "/nowhere", "--spin-time", "10ms")
	if want := "unknown service /nowhere: not in the graph (afor service list shows the services)"; code != 1 || !strings.Contains(errOut, want) {
		t.Errorf("service type /nowhere: %d %q, want %q", code, errOut, want)
	}
}
