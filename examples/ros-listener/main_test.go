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

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/internal/exampletest"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/transport/zenoh"
)

// The test binary doubles as the example, so the listener really runs in a
// process of its own.
func TestMain(m *testing.M) { exampletest.Main(m, run) }

// listeningOn reads the example's "listening on ENDPOINT" line.
func listeningOn(t *testing.T, lines <-chan string) string {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("output ended before the listener said where it listens")
			}
			if ep, ok := strings.CutPrefix(l, "listening on "); ok {
				return strings.Split(ep, ",")[0]
			}
		case <-timeout:
			t.Fatal("the listener did not say where it listens within 20 s")
		}
	}
}

// talk runs a ROS node "talker" in the test process, connected to ep, that
// publishes "hello world: N" on topic at 50 Hz, once a subscription is in
// the graph, until ctx ends.
func talk(t *testing.T, ctx context.Context, ep, topic string) {
	t.Helper()
	node, err := ros.NewNode(ctx, "talker", ros.WithLogger(slog.New(slog.DiscardHandler)),
		ros.WithMiddleware(ros.Zenoh(zenoh.Config{Connect: []string{ep}})))
	if err != nil {
		t.Fatal(err)
	}
	pub, err := ros.NewPublisher[std_msgs.String](node, topic, ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() {
		<-done
		_ = node.Close()
	})
	go func() {
		defer close(done)
		if err := node.Graph().WaitForSubscriber(ctx, topic); err != nil {
			return
		}
		rate, err := afor.NewRate(50)
		if err != nil {
			return
		}
		defer rate.Close()
		n := 0
		for range rate.Listen(ctx) { // the latest tick: no backlog if a publication is slow
			n++
			if pub.Publish(ctx, &std_msgs.String{Data: fmt.Sprintf("hello world: %d", n)}) != nil {
				return
			}
		}
	}()
}

// The listener prints who publishes (from the graph) and every message
// with its info, in order.
func TestListenerHearsGoTalker(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) }) // after the talker closes
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	listener, out := exampletest.Start(t, ctx, "-listen tcp/127.0.0.1:0 -count 3")
	ep := listeningOn(t, out)
	exampletest.Expect(t, out, "subscribed to /chatter")
	tctx, stopTalking := context.WithCancel(ctx)
	defer stopTalking()
	talk(t, tctx, ep, "/chatter")
	exampletest.Expect(t, out, "publisher ")
	// The first message heard may be any: the talker starts once it sees
	// the subscription. Then each is the next.
	var first int
	var lines []string
	for l := range out {
		lines = append(lines, l)
	}
	if err := listener.Wait(); err != nil {
		t.Fatalf("listener: %v", err)
	}
	stopTalking()
	if len(lines) != 3 {
		t.Fatalf("listener printed %q, want 3 messages", lines)
	}
	for i, l := range lines {
		var n, seq int
		if _, err := fmt.Sscanf(l, "I heard: [hello world: %d] (seq %d from", &n, &seq); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if i == 0 {
			first = n
		}
		if n != first+i || seq != n {
			t.Errorf("line %q: want message %d with sequence number %d", l, first+i, first+i)
		}
	}
}

// The graph line names the talker's node, type and QoS.
func TestListenerDescribesPublisher(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	listener, out := exampletest.Start(t, ctx, "-listen tcp/127.0.0.1:0 -count 1 --ros-args -r chatter:=/robot1/chatter")
	ep := listeningOn(t, out)
	exampletest.Expect(t, out, "subscribed to /robot1/chatter")
	tctx, stopTalking := context.WithCancel(ctx)
	defer stopTalking()
	talk(t, tctx, ep, "/robot1/chatter")
	var pub string
	for l := range out {
		if strings.HasPrefix(l, "publisher ") {
			pub = l
		}
	}
	if err := listener.Wait(); err != nil {
		t.Fatalf("listener: %v", err)
	}
	stopTalking()
	if want := "node /talker, std_msgs/msg/String, keep_last(10), reliable, volatile"; !strings.Contains(pub, want) {
		t.Errorf("publisher line %q, want it to say %q", pub, want)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range []string{"-mode router", "-count x", "-- --ros-args -r bad"} {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		err := run(ctx, strings.Fields(args), io.Discard)
		cancel()
		if err == nil {
			t.Errorf("run %q: no error", args)
		}
	}
}
