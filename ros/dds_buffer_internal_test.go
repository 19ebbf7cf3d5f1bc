package ros

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/afor-go/afor/ros/msgs/std_msgs"
)

// A publisher on DDS hands its encoded messages to the writer's history
// and encodes the next ones into the buffers the history lets go of: after
// three times the history's depth of large messages (each sent in
// fragments), a late joiner gets the last ones from the history as they
// were published.
func TestDDSPublisherBuffersStayIntact(t *testing.T) {
	a, b := ddsPair(t)
	talker := newTestNode(t, a, "talker")
	listener := newTestNode(t, b, "listener")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	q := QoSDefault.WithDurability(TransientLocal)
	pub, err := NewPublisher[std_msgs.UInt8MultiArray](talker, "big", q)
	if err != nil {
		t.Fatal(err)
	}
	pattern := func(i int) []byte { return bytes.Repeat([]byte{byte(i + 1)}, 100_000+i) } // two fragments
	const n = 32
	for i := range n {
		if err := pub.Publish(ctx, &std_msgs.UInt8MultiArray{Data: pattern(i)}); err != nil {
			t.Fatal(err)
		}
	}
	sub, err := Subscribe[std_msgs.UInt8MultiArray](listener, "big", q)
	if err != nil {
		t.Fatal(err)
	}
	l := sub.Listener(ctx)
	for i := n - q.Depth; i < n; i++ {
		got, err := l.Next(ctx)
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if !bytes.Equal(got.Data, pattern(i)) {
			t.Fatalf("message %d from the history: %d bytes of %d, not what was published", i, len(got.Data), got.Data[0]-1)
		}
	}
}
