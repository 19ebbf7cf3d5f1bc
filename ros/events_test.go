package ros_test

import (
	"context"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
)

// quietNode is a node on net with its logs discarded.
func quietNode(t *testing.T, net *ros.MemoryNetwork, name string) *ros.Node {
	t.Helper()
	n, err := ros.NewNode(t.Context(), name, ros.WithMiddleware(ros.Memory(net)), ros.WithLogger(slog.New(slog.DiscardHandler)),
		ros.WithRosout(false), ros.WithParameterServices(false))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	return n
}

// Deadlines on the bubble's fake clock: counted from the first message,
// one per period without a message, on both sides.
func TestDeadlineMissed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		net := ros.NewMemoryNetwork()
		q := ros.QoSDefault.WithDeadline(100 * time.Millisecond)
		pub, err := ros.NewPublisher[std_msgs.String](quietNode(t, net, "talker"), "chatter", q)
		if err != nil {
			t.Fatal(err)
		}
		ln := quietNode(t, net, "listener")
		sub, err := ros.Subscribe[std_msgs.String](ln, "/chatter", q)
		if err != nil {
			t.Fatal(err)
		}
		ev, ok := ros.SubscriptionEventsOf(ln, sub)
		if !ok {
			t.Fatal("no events for the subscription")
		}
		offered := pub.Events().DeadlineMissed.Listener(t.Context(), afor.QueueSize(0))
		requested := ev.DeadlineMissed.Listener(t.Context(), afor.QueueSize(0))
		time.Sleep(time.Second) // nothing published: nothing missed
		synctest.Wait()
		if offered.Len() != 0 || requested.Len() != 0 {
			t.Fatalf("missed before the first message: %d %d", offered.Len(), requested.Len())
		}
		for range 5 {
			if err := pub.Publish(t.Context(), &std_msgs.String{Data: "x"}); err != nil {
				t.Fatal(err)
			}
			time.Sleep(90 * time.Millisecond)
		}
		synctest.Wait()
		if offered.Len() != 0 || requested.Len() != 0 {
			t.Fatalf("missed while publishing within the deadline: %d %d", offered.Len(), requested.Len())
		}
		stopped := time.Now().Add(-90 * time.Millisecond)
		time.Sleep(120 * time.Millisecond) // two periods go by after the last message
		synctest.Wait()
		for _, l := range []*afor.Listener[ros.DeadlineMissed]{offered, requested} {
			for i := 1; i <= 2; i++ {
				e, err := l.Next(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				want := ros.DeadlineMissed{Topic: "/chatter", TotalCount: i, TotalCountChange: 1}
				if e != want {
					t.Errorf("event %d: %+v, want %+v", i, e, want)
				}
			}
			if l.Len() != 0 {
				t.Errorf("%d more misses %v after the last message", l.Len(), time.Since(stopped))
			}
		}
	})
}

// A MANUAL_BY_TOPIC publisher that stops publishing loses its liveliness
// once per lapse; an AUTOMATIC one never does.
func TestLivelinessLost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		net := ros.NewMemoryNetwork()
		n := quietNode(t, net, "talker")
		manual, err := ros.NewPublisher[std_msgs.String](n, "manual",
			ros.QoSDefault.WithLiveliness(ros.LivelinessManualByTopic, 100*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		auto, err := ros.NewPublisher[std_msgs.String](n, "auto",
			ros.QoSDefault.WithLiveliness(ros.LivelinessAutomatic, 100*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		lost := manual.Events().LivelinessLost.Listener(t.Context(), afor.QueueSize(0))
		autoLost := auto.Events().LivelinessLost.Listener(t.Context(), afor.QueueSize(0))
		for round := 1; round <= 2; round++ {
			for _, p := range []*ros.Publisher[std_msgs.String, *std_msgs.String]{manual, auto} {
				if err := p.Publish(t.Context(), &std_msgs.String{}); err != nil {
					t.Fatal(err)
				}
			}
			time.Sleep(time.Second)
			synctest.Wait()
			e, err := lost.Next(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if want := (ros.LivelinessLost{Topic: "/manual", TotalCount: round, TotalCountChange: 1}); e != want {
				t.Errorf("round %d: %+v, want %+v", round, e, want)
			}
			if lost.Len() != 0 {
				t.Errorf("round %d: lost %d more times in one lapse", round, lost.Len())
			}
		}
		if autoLost.Len() != 0 {
			t.Error("an AUTOMATIC publisher lost its liveliness")
		}
	})
}

// Matched and liveliness changed from the graph (the memory middleware,
// as Zenoh): a subscription counts its publishers, which are alive while
// they exist.
func TestMatchedAndLivelinessFromGraph(t *testing.T) {
	net := ros.NewMemoryNetwork()
	ctx := testCtx(t)
	ln := quietNode(t, net, "listener")
	sub, err := ros.Subscribe[std_msgs.String](ln, "/chatter", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	ev, _ := ros.SubscriptionEventsOf(ln, sub)
	matched := ev.Matched.Listener(ctx, afor.Fresh(), afor.QueueSize(0))
	alive := ev.LivelinessChanged.Listener(ctx, afor.Fresh(), afor.QueueSize(0))
	tn := quietNode(t, net, "talker")
	pub, err := ros.NewPublisher[std_msgs.String](tn, "/chatter", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	pm, err := pub.Events().Matched.WaitForValue(ctx)
	if err != nil || pm != (ros.Matched{Topic: "/chatter", TotalCount: 1, TotalCountChange: 1, CurrentCount: 1, CurrentCountChange: 1}) {
		t.Errorf("publisher matched %+v %v", pm, err)
	}
	if m, err := matched.Next(ctx); err != nil || m != (ros.Matched{Topic: "/chatter", TotalCount: 1, TotalCountChange: 1, CurrentCount: 1, CurrentCountChange: 1}) {
		t.Errorf("subscription matched %+v %v", m, err)
	}
	if a, err := alive.Next(ctx); err != nil || a != (ros.LivelinessChanged{Topic: "/chatter", AliveCount: 1, AliveCountChange: 1}) {
		t.Errorf("liveliness %+v %v", a, err)
	}
	_ = tn.Close() // the publisher's node goes: its publisher is gone
	if m, err := matched.Next(ctx); err != nil || m != (ros.Matched{Topic: "/chatter", TotalCount: 1, CurrentCount: 0, CurrentCountChange: -1}) {
		t.Errorf("subscription unmatched %+v %v", m, err)
	}
	if a, err := alive.Next(ctx); err != nil || a != (ros.LivelinessChanged{Topic: "/chatter", AliveCount: 0, AliveCountChange: -1}) {
		t.Errorf("liveliness %+v %v", a, err)
	}
	sub.Close()
	if _, ok := ros.SubscriptionEventsOf(ln, sub); ok {
		t.Error("events of a closed subscription")
	}
	if _, err := ev.Matched.WaitForNext(context.Background()); err == nil {
		t.Error("the events of a closed subscription are open")
	}
}
