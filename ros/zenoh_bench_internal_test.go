package ros

import (
	"context"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
)

// BenchmarkZenohEcho is a round trip through the ROS layer between two Go
// nodes over rmw_zenoh on TCP loopback (two hops). bench/ compares the
// same with the raw Zenoh callback underneath.
func BenchmarkZenohEcho(b *testing.B) {
	a, e := zenohPairB(b)
	na, err := a.NewNode("a")
	if err != nil {
		b.Fatal(err)
	}
	ne, err := e.NewNode("echo")
	if err != nil {
		b.Fatal(err)
	}
	pingPub, _ := NewPublisher[std_msgs.Int32](na, "ping", QoSKeepAll())
	pongPub, _ := NewPublisher[std_msgs.Int32](ne, "pong", QoSKeepAll())
	pingSub, _ := Subscribe[std_msgs.Int32](ne, "ping", QoSKeepAll())
	pongSub, _ := Subscribe[std_msgs.Int32](na, "pong", QoSKeepAll())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	ready := make(chan struct{})
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
	var in std_msgs.Int32
	// Wait for the route both ways.
	for {
		w := pongSub.ArmNext(ctx)
		in.Data = -1
		_ = pingPub.Publish(ctx, &in)
		wctx, wcancel := context.WithTimeout(ctx, 50*time.Millisecond)
		_, err := w.Wait(wctx)
		wcancel()
		if err == nil {
			break
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		w := pongSub.ArmNext(ctx)
		in.Data = int32(i)
		_ = pingPub.Publish(ctx, &in)
		if v, err := w.Wait(ctx); err != nil || v.Data != int32(i) {
			b.Fatalf("echo %d: %v %v", i, v, err)
		}
	}
	b.StopTimer()
	pingSub.Close()
	<-done
}
