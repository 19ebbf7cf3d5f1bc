package ros_test

import (
	"context"
	"testing"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
)

// BenchmarkPublish measures encoding and publishing one message with no
// subscriber: it must not allocate.
func BenchmarkPublish(b *testing.B) {
	n := memNode(b, ros.NewMemoryNetwork(), "n")
	pub, err := ros.NewPublisher[std_msgs.String](n, "chatter", ros.QoSDefault)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	msg := &std_msgs.String{Data: "hello world"}
	b.ReportAllocs()
	for b.Loop() {
		if err := pub.Publish(ctx, msg); err != nil {
			b.Fatal(err)
		}
	}
}

func TestPublishDoesNotAllocate(t *testing.T) {
	n := memNode(t, ros.NewMemoryNetwork(), "n")
	pub, err := ros.NewPublisher[std_msgs.String](n, "chatter", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	msg := &std_msgs.String{Data: "hello world"}
	_ = pub.Publish(ctx, msg) // grows the buffer
	if a := testing.AllocsPerRun(100, func() { _ = pub.Publish(ctx, msg) }); a != 0 {
		t.Errorf("Publish allocates %v times per message", a)
	}
}

// echo runs b.N round trips: ping is sent, the echo goroutine answers on
// pong, the loop waits for it.
func echo[T any](b *testing.B, ping func(int32), pong *afor.Sub[T], value func(T) int32) {
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		w := pong.ArmNext(ctx)
		ping(int32(i))
		if v, err := w.Wait(ctx); err != nil || value(v) != int32(i) {
			b.Fatalf("echo %d: %v, %v", i, v, err)
		}
	}
}

// BenchmarkEcho compares a round trip through the ROS layer on the
// in-memory middleware (encode, publish, decode, Sub, and back) with the
// same round trip between two raw afor.Subs: the difference is the cost of
// the layer.
func BenchmarkEcho(b *testing.B) {
	b.Run("raw_sub", func(b *testing.B) {
		ping, pong := afor.NewSub[int32](), afor.NewSub[int32]()
		defer ping.Close()
		defer pong.Close()
		ready := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			l := ping.ListenReliable(context.Background(), afor.Fresh())
			close(ready)
			for v := range l {
				pong.Input(v)
			}
		}()
		<-ready
		b.ReportAllocs()
		echo(b, func(v int32) { ping.Input(v) }, pong, func(v int32) int32 { return v })
		ping.Close()
		<-done
	})
	b.Run("ros_memory", func(b *testing.B) {
		net := ros.NewMemoryNetwork()
		a, e := memNode(b, net, "a"), memNode(b, net, "echo")
		pingPub, err := ros.NewPublisher[std_msgs.Int32](a, "ping", ros.QoSDefault)
		if err != nil {
			b.Fatal(err)
		}
		pongPub, err := ros.NewPublisher[std_msgs.Int32](e, "pong", ros.QoSDefault)
		if err != nil {
			b.Fatal(err)
		}
		pingSub, err := ros.Subscribe[std_msgs.Int32](e, "ping", ros.QoSDefault)
		if err != nil {
			b.Fatal(err)
		}
		pongSub, err := ros.Subscribe[std_msgs.Int32](a, "pong", ros.QoSDefault)
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		ready := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			l := pingSub.ListenReliable(ctx, afor.Fresh())
			close(ready)
			var out std_msgs.Int32
			for v := range l {
				out.Data = v.Data
				_ = pongPub.Publish(ctx, &out)
			}
		}()
		<-ready
		b.ReportAllocs()
		var in std_msgs.Int32
		echo(b, func(v int32) { in.Data = v; _ = pingPub.Publish(ctx, &in) }, pongSub, func(m std_msgs.Int32) int32 { return m.Data })
		pingSub.Close()
		<-done
	})
}
