package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/ros/msgs/std_srvs"
	"github.com/afor-go/afor/transport/zenoh"
)

// TestROSCommandsOverZenoh runs the ROS commands over rmw_zenoh's
// conventions, against a Go node listening on a port of its choice: the
// type hashes are part of rmw_zenoh's keys, so this checks the raw path's.
func TestROSCommandsOverZenoh(t *testing.T) {
	ctx := testCtx(t)
	rc, err := ros.Open(ctx, ros.WithMiddleware(ros.Zenoh(zenoh.Config{Listen: []string{"tcp/127.0.0.1:0"}})), ros.WithDomainID(3))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	n, err := rc.NewNode("zpeer")
	if err != nil {
		t.Fatal(err)
	}
	pub, err := ros.NewPublisher[std_msgs.String](n, "chatter", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := ros.NewServer(n, "set_flag", std_srvs.SetBool{})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for r := range srv.ListenReliable(ctx) {
			_ = r.Respond(std_srvs.SetBoolResponse{Success: true, Message: "z"})
		}
	}()
	cli := ros.WithMiddleware(ros.Zenoh(zenoh.Config{Connect: rc.ListenAddrs()}))
	run := func(ctx context.Context, out, errOut *syncBuffer, args ...string) func() int {
		env := Env{Stdout: out, Stderr: errOut, ROSOptions: []ros.Option{cli, ros.WithDomainID(3)}}
		done := make(chan int, 1)
		go func() { done <- Run(ctx, env, args) }()
		return func() int { return <-done }
	}

	var out, errOut syncBuffer
	if code := run(ctx, &out, &errOut, "topic", "list", "-t", "--spin-time", "300ms")(); code != 0 || !strings.Contains(out.String(), "/chatter [std_msgs/msg/String]\n") {
		t.Fatalf("topic list: %d %q %q", code, out.String(), errOut.String())
	}

	var eout, eerr syncBuffer
	wait := run(ctx, &eout, &eerr, "topic", "echo", "/chatter", "--once", "--spin-time", "2s")
	for eout.String() == "" {
		if err := pub.Publish(ctx, &std_msgs.String{Data: "over zenoh"}); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("echo printed %q %q", eout.String(), eerr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	if code := wait(); code != 0 || eout.String() != "data: over zenoh\n---\n" {
		t.Fatalf("echo: %d %q %q", code, eout.String(), eerr.String())
	}

	var cout, cerr syncBuffer
	if code := run(ctx, &cout, &cerr, "service", "call", "/set_flag", "std_srvs/srv/SetBool", "{data: true}")(); code != 0 ||
		!strings.HasSuffix(cout.String(), "response:\nstd_srvs.srv.SetBool_Response(success=True, message='z')\n\n") {
		t.Fatalf("service call: %d %q %q", code, cout.String(), cerr.String())
	}
}
