package ros

import (
	"context"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
)

// A publisher that waits for its subscriptions' acknowledgments after its
// last message may close at once: the subscription gets everything, on
// every middleware.
func TestWaitForAllAckedThenClose(t *testing.T) {
	for _, mw := range lateJoinMiddlewares {
		t.Run(mw.name, func(t *testing.T) {
			a, b := mw.pair(t)
			talker := newTestNode(t, a, "talker")
			listener := newTestNode(t, b, "listener")
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			sub, err := Subscribe[std_msgs.Int32](listener, "acked", QoSKeepLast(100))
			if err != nil {
				t.Fatal(err)
			}
			l := sub.Listener(ctx, afor.QueueSize(0))
			pub, err := NewPublisher[std_msgs.Int32](talker, "acked", QoSKeepLast(100))
			if err != nil {
				t.Fatal(err)
			}
			if err := pub.WaitForSubscriptions(ctx, 1); err != nil {
				t.Fatal(err)
			}
			const n = 50
			for i := range n {
				if err := pub.Publish(ctx, &std_msgs.Int32{Data: int32(i)}); err != nil {
					t.Fatal(err)
				}
			}
			if err := pub.WaitForAllAcked(ctx); err != nil {
				t.Fatal(err)
			}
			if err := pub.Close(); err != nil {
				t.Fatal(err)
			}
			for i := range n {
				m, err := l.Next(ctx)
				if err != nil || m.Data != int32(i) {
					t.Fatalf("message %d: %v, %v", i, m.Data, err)
				}
			}
		})
	}
}
