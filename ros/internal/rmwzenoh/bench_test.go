package rmwzenoh

import (
	"context"
	"testing"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/transport/zenoh"
)

// BenchmarkEcho measures a ping-pong over two peer sessions on loopback:
// one rmw_zenoh publication each way per op. BenchmarkEchoRawZenoh is the
// same over the Zenoh publishers and subscribers underneath.
func BenchmarkEcho(b *testing.B) {
	s1, s2 := pair(b)
	ctx := context.Background()
	n1, _ := s1.CreateNode(rmw.NodeName{Name: "ping"})
	n2, _ := s2.CreateNode(rmw.NodeName{Name: "pong"})
	pong := make(chan struct{}, 1)
	pingPub, _ := n1.CreatePublisher("/ping", stringType, depth10)
	pongPub, _ := n2.CreatePublisher("/pong", stringType, depth10)
	if _, err := n2.CreateSubscription("/ping", stringType, depth10, func(m rmw.Message) { _ = pongPub.Publish(ctx, m.Payload) }); err != nil {
		b.Fatal(err)
	}
	if _, err := n1.CreateSubscription("/pong", stringType, depth10, func(rmw.Message) { pong <- struct{}{} }); err != nil {
		b.Fatal(err)
	}
	_ = pingPub.(*publisher).pub.WaitMatching(ctx)
	_ = pongPub.(*publisher).pub.WaitMatching(ctx)
	payload := cdrString("hello world")
	b.ResetTimer()
	for range b.N {
		if err := pingPub.Publish(ctx, payload); err != nil {
			b.Fatal(err)
		}
		<-pong
	}
}

func BenchmarkEchoRawZenoh(b *testing.B) {
	s1, s2 := pair(b)
	ctx := context.Background()
	pong := make(chan struct{}, 1)
	pingPub, _ := s1.z.DeclarePublisher("bench/ping")
	pongPub, _ := s2.z.DeclarePublisher("bench/pong")
	if _, err := s2.z.DeclareSubscriber("bench/ping", func(smp zenoh.Sample) { _ = pongPub.Put(ctx, smp.Payload) }); err != nil {
		b.Fatal(err)
	}
	if _, err := s1.z.DeclareSubscriber("bench/pong", func(zenoh.Sample) { pong <- struct{}{} }); err != nil {
		b.Fatal(err)
	}
	_ = pingPub.WaitMatching(ctx)
	_ = pongPub.WaitMatching(ctx)
	payload := cdrString("hello world")
	b.ResetTimer()
	for range b.N {
		if err := pingPub.Put(ctx, payload); err != nil {
			b.Fatal(err)
		}
		<-pong
	}
}

// BenchmarkServiceCall measures a service round trip between two peer
// sessions; BenchmarkServiceCallRawZenoh the query and reply underneath.
func BenchmarkServiceCall(b *testing.B) {
	s1, s2 := pair(b)
	ctx := context.Background()
	n1, _ := s1.CreateNode(rmw.NodeName{Name: "server"})
	n2, _ := s2.CreateNode(rmw.NodeName{Name: "client"})
	if _, err := n1.CreateService("/set_flag", setBoolType, depth10, func(r rmw.Request) { _ = r.Reply(r.Payload, nil) }); err != nil {
		b.Fatal(err)
	}
	cl, _ := n2.CreateClient("/set_flag", setBoolType, depth10)
	if err := cl.WaitReady(ctx); err != nil {
		b.Fatal(err)
	}
	c := afor.NewClient[[]byte, []byte](cl)
	req := []byte{0, 1, 0, 0, 1}
	b.ResetTimer()
	for range b.N {
		if _, err := c.Call(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkServiceCallRawZenoh(b *testing.B) {
	s1, s2 := pair(b)
	ctx := context.Background()
	qa, err := s1.z.DeclareQueryable("bench/srv", func(q *zenoh.Query) { _ = q.ReplyAndFinish(ctx, "bench/srv", q.Payload) }, zenoh.Complete())
	if err != nil {
		b.Fatal(err)
	}
	defer qa.Undeclare()
	c, _ := zenoh.NewClient(s2.z, "bench/srv", afor.BytesCodec{}, afor.BytesCodec{}, zenoh.WithTarget(zenoh.TargetAllComplete))
	if err := c.WaitForServer(ctx); err != nil {
		b.Fatal(err)
	}
	req := []byte{0, 1, 0, 0, 1}
	b.ResetTimer()
	for range b.N {
		if _, err := c.Call(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}
