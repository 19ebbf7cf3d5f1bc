package ros

import (
	"context"
	"testing"
	"time"

	"github.com/afor-go/afor/ros/msgs/std_msgs"
)

// lateJoinMiddlewares is every middleware: the network ones and the
// in-process one.
var lateJoinMiddlewares = append([]struct {
	name string
	pair func(testing.TB) (*Context, *Context)
}{{"memory", memPair}}, networkMiddlewares...)

// A subscription created after a transient-local publisher (depth 10)
// published 30 messages, then consumed by a reliable listener attached
// right after Subscribe returns, as user code does, gets the last 10
// messages of the history, in order, then the live ones: none of the
// history that arrives before the listener is lost.
func TestTransientLocalLateJoinerGetsHistory(t *testing.T) {
	for _, mw := range lateJoinMiddlewares {
		t.Run(mw.name, func(t *testing.T) {
			a, b := mw.pair(t)
			talker := newTestNode(t, a, "talker")
			listener := newTestNode(t, b, "listener")
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			q := QoSTransientLocal(10)
			pub, err := NewPublisher[std_msgs.Int32](talker, "latched", q)
			if err != nil {
				t.Fatal(err)
			}
			const published = 30
			for i := range published {
				if err := pub.Publish(ctx, &std_msgs.Int32{Data: int32(i)}); err != nil {
					t.Fatal(err)
				}
			}
			sub, err := Subscribe[std_msgs.Int32](listener, "latched", q)
			if err != nil {
				t.Fatal(err)
			}
			next := published - q.Depth
			for m := range sub.ListenReliable(ctx) {
				if m.Data != int32(next) {
					t.Fatalf("got message %d, want %d: the history is lost or out of order", m.Data, next)
				}
				if next++; next == published+1 {
					break
				}
				if next == published {
					// A live message after the history comes after it.
					if err := pub.Publish(ctx, &std_msgs.Int32{Data: published}); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := ctx.Err(); err != nil {
				t.Fatalf("after message %d: %v", next-1, err)
			}
			if st := sub.Stats(); st.Dropped != 0 {
				t.Fatalf("%d messages dropped", st.Dropped)
			}
		})
	}
}
