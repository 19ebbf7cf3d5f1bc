package ros

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/afor-go/afor/ros/msgs/std_msgs"
)

// TestWaitForSubscriptionsFirstMessage checks, on each network middleware,
// that a message published right after WaitForSubscriptions returns
// reaches a new volatile subscription (the graph alone can list it before
// the DDS writer matched its reader), and that SubscriptionCount follows
// the subscription.
func TestWaitForSubscriptionsFirstMessage(t *testing.T) {
	if testing.Short() {
		t.Skip("network test")
	}
	for _, mw := range networkMiddlewares {
		t.Run(mw.name, func(t *testing.T) {
			a, b := mw.pair(t)
			na, nb := newTestNode(t, a, "a"), newTestNode(t, b, "b")
			for i := range 5 {
				topic := fmt.Sprintf("first_%d", i)
				pub, err := NewPublisher[std_msgs.String](na, topic, QoSDefault)
				if err != nil {
					t.Fatal(err)
				}
				if n := pub.SubscriptionCount(); n != 0 {
					t.Fatalf("SubscriptionCount %d before any subscription", n)
				}
				sub, err := Subscribe[std_msgs.String](nb, topic, QoSDefault)
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				next := sub.ArmNext(ctx)
				if err := pub.WaitForSubscriptions(ctx, 1); err != nil {
					t.Fatal(err)
				}
				if n := pub.SubscriptionCount(); n != 1 {
					t.Errorf("SubscriptionCount %d after WaitForSubscriptions(1)", n)
				}
				if err := pub.Publish(ctx, &std_msgs.String{Data: "first"}); err != nil {
					t.Fatal(err)
				}
				got, err := next.Wait(ctx)
				if err != nil || got.Data != "first" {
					t.Fatalf("first message: %v %q", err, got.Data)
				}
				sub.Close()
				for pub.SubscriptionCount() != 0 {
					if ctx.Err() != nil {
						t.Fatalf("SubscriptionCount still %d after the subscription closed", pub.SubscriptionCount())
					}
					time.Sleep(5 * time.Millisecond) // no signal for an endpoint's end on every middleware
				}
				cancel()
				_ = pub.Close()
			}
		})
	}
}
