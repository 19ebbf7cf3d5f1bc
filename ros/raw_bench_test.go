package ros_test

import (
	"context"
	"testing"

	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
)

// BenchmarkRawVsTyped compares delivering one message through the raw API
// (RawPublisher, SubscribeRaw: the payload is copied, not decoded) with
// the typed API it shares its path with (Publisher, Subscribe: encode,
// decode), on the in-memory middleware.
func BenchmarkRawVsTyped(b *testing.B) {
	ctx := context.Background()
	b.Run("typed", func(b *testing.B) {
		net := ros.NewMemoryNetwork()
		pub, err := ros.NewPublisher[std_msgs.String](memNode(b, net, "a"), "chatter", ros.QoSDefault)
		if err != nil {
			b.Fatal(err)
		}
		sub, err := ros.Subscribe[std_msgs.String](memNode(b, net, "b"), "chatter", ros.QoSDefault)
		if err != nil {
			b.Fatal(err)
		}
		msg := &std_msgs.String{Data: "hello world"}
		b.ReportAllocs()
		for b.Loop() {
			w := sub.ArmNext(ctx)
			_ = pub.Publish(ctx, msg)
			if _, err := w.Wait(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw", func(b *testing.B) {
		net := ros.NewMemoryNetwork()
		t := rawTypeOf(std_msgs.String{})
		pub, err := ros.NewRawPublisher(memNode(b, net, "a"), "chatter", t, ros.QoSDefault)
		if err != nil {
			b.Fatal(err)
		}
		sub, err := ros.SubscribeRaw(memNode(b, net, "b"), "chatter", t, ros.QoSDefault)
		if err != nil {
			b.Fatal(err)
		}
		payload, _ := cdr.Marshal(&std_msgs.String{Data: "hello world"})
		b.ReportAllocs()
		for b.Loop() {
			w := sub.ArmNext(ctx)
			_ = pub.Publish(ctx, payload)
			if _, err := w.Wait(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}
