package rmwdds

import (
	"testing"

	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/transport/dds"
)

// BenchmarkHop measures one hop, publish to delivery, between two
// participants on loopback: through the rmw seam (Session) and, as the
// primitive underneath, a transport/dds writer and a callback reader
// (NewReaderFunc, which the session's subscriptions use) with the same
// QoS.
func BenchmarkHop(b *testing.B) {
	payload := encodeString("hello, bench")
	b.Run("dds", func(b *testing.B) {
		a, c := benchPair(b)
		dt, dq, err := topicFor("/bench", stringType, qosDefault)
		if err != nil {
			b.Fatal(err)
		}
		got := make(chan struct{}, 1)
		if _, err := dds.NewReaderFunc(c.p, dt, dq, func(dds.Sample) { got <- struct{}{} }); err != nil {
			b.Fatal(err)
		}
		w, err := dds.NewWriter(a.p, dt, dq)
		if err != nil {
			b.Fatal(err)
		}
		if err := w.WaitMatched(b.Context(), 1); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if err := w.Write(b.Context(), payload); err != nil {
				b.Fatal(err)
			}
			<-got
		}
	})
	b.Run("session", func(b *testing.B) {
		a, c := benchPair(b)
		na, err := a.CreateNode(rmw.NodeName{Namespace: "/", Name: "a"})
		if err != nil {
			b.Fatal(err)
		}
		nc, err := c.CreateNode(rmw.NodeName{Namespace: "/", Name: "c"})
		if err != nil {
			b.Fatal(err)
		}
		got := make(chan struct{}, 1)
		if _, err := nc.CreateSubscription("/bench", stringType, qosDefault, func(rmw.Message) { got <- struct{}{} }); err != nil {
			b.Fatal(err)
		}
		pub, err := na.CreatePublisher("/bench", stringType, qosDefault)
		if err != nil {
			b.Fatal(err)
		}
		if err := pub.(*publisher).w.WaitMatched(b.Context(), 1); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if err := pub.Publish(b.Context(), payload); err != nil {
				b.Fatal(err)
			}
			<-got
		}
	})
}

func benchPair(b *testing.B) (*Session, *Session) {
	d := 150 + int(testDomain.Add(1))%50
	open := func() *Session {
		s, err := Open(b.Context(), Config{DomainID: d, DDS: dds.Config{Range: dds.RangeLocalhost, Getenv: func(string) string { return "" }}})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = s.Close() })
		return s
	}
	return open(), open()
}

// BenchmarkCyclone measures the Cyclone header on a 1 kB request against
// the copy it adds.
func BenchmarkCyclone(b *testing.B) {
	payload := make([]byte, 1024)
	payload[1] = 1
	buf := make([]byte, 0, 2048)
	b.Run("copy", func(b *testing.B) {
		for b.Loop() {
			buf = append(buf[:0], payload...)
		}
	})
	b.Run("append", func(b *testing.B) {
		for b.Loop() {
			buf, _ = AppendCyclone(buf[:0], payload, CycloneHeader{ClientID: 1, Seq: 2})
		}
	})
	b.Run("cut", func(b *testing.B) {
		in, _ := AppendCyclone(nil, payload, CycloneHeader{ClientID: 1, Seq: 2})
		for b.Loop() {
			_, _, _ = CutCyclone(in)
		}
	})
}
