package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/afor-go/afor/internal/exampletest"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/transport/zenoh"
)

// The test binary doubles as the example, so the talker really runs in a
// process of its own.
func TestMain(m *testing.M) { exampletest.Main(m, run) }

// listener is a ROS node of the test process listening on a free port of
// 127.0.0.1, subscribed to topic.
func listener(t *testing.T, ctx context.Context, topic string) (ep string, sub func(context.Context) (ros.Received[std_msgs.String], error)) {
	t.Helper()
	node, err := ros.NewNode(ctx, "test_listener", ros.WithLogger(slog.New(slog.DiscardHandler)),
		ros.WithMiddleware(ros.Zenoh(zenoh.Config{Listen: []string{"tcp/127.0.0.1:0"}})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = node.Close() })
	s, err := ros.SubscribeInfo[std_msgs.String](node, topic, ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	l := s.Listener(ctx)
	return node.Context().ListenAddrs()[0], l.Next
}

// The talker waits for the test's subscription, then publishes -count
// strings at -rate, numbered from 1, each with the next sequence number.
func TestTalkerToGoListener(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) }) // after the nodes close
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	ep, next := listener(t, ctx, "/chatter")
	talker, out := exampletest.Start(t, ctx, "-connect "+ep+" -wait -count 3 -rate 50")
	exampletest.Expect(t, out, "waiting for a subscription to /chatter")
	for i := 1; i <= 3; i++ {
		exampletest.Expect(t, out, fmt.Sprintf("Publishing: 'hello world: %d'", i))
		m, err := next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("hello world: %d", i); m.Msg.Data != want || m.Info.Sequence != int64(i) {
			t.Errorf("message %d: %q with sequence number %d, want %q and %d", i, m.Msg.Data, m.Info.Sequence, want, i)
		}
	}
	exampletest.Drain(out)
	if err := talker.Wait(); err != nil {
		t.Fatalf("talker: %v", err)
	}
}

// ROS arguments after --ros-args remap the topic and the namespace, as for
// a ROS 2 node.
func TestTalkerRemapped(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) }) // after the nodes close
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	ep, next := listener(t, ctx, "/robot1/talk")
	talker, out := exampletest.Start(t, ctx, "-connect "+ep+" -wait -count 1 -rate 50 --ros-args -r __ns:=/robot1 -r chatter:=talk")
	exampletest.Expect(t, out, "waiting for a subscription to /robot1/talk")
	if m, err := next(ctx); err != nil || m.Msg.Data != "hello world: 1" {
		t.Fatalf("got %q, %v; want hello world: 1", m.Msg.Data, err)
	}
	exampletest.Drain(out)
	if err := talker.Wait(); err != nil {
		t.Fatalf("talker: %v", err)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range []string{"-mode router", "-rate 0", "-- --ros-args -r bad", "-listen tcp/127.0.0.1:0 --ros-args -r __node:=9lives"} {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		err := run(ctx, strings.Fields(args), io.Discard)
		cancel()
		if err == nil {
			t.Errorf("run %q: no error", args)
		}
	}
}
