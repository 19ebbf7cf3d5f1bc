package mem_test

import (
	"context"
	"testing"

	"github.com/afor-go/afor/transport/mem"
)

// The echo benchmarks follow the Python afor's benchmark: two topics, one
// message in flight, each side answering the other. One b.Loop iteration is
// a round trip (two hops); ns/hop is reported.

func BenchmarkEchoChannels(b *testing.B) {
	hello, world := make(chan int64, 1), make(chan int64, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for v := range hello {
			world <- v + 1
		}
	}()
	var v int64
	for b.Loop() {
		hello <- v
		v = <-world
	}
	close(hello)
	<-done
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/hop")
}

func BenchmarkEchoAfor(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	bus := mem.NewBus()
	helloSub, _ := mem.Subscribe[int64](bus, "bench/hello")
	worldSub, _ := mem.Subscribe[int64](bus, "bench/world")
	helloPub, _ := mem.NewPublisher[int64](bus, "bench/hello")
	worldPub, _ := mem.NewPublisher[int64](bus, "bench/world")
	done := make(chan struct{})
	go func() {
		defer close(done)
		for v := range helloSub.ListenReliable(ctx) {
			worldPub.Publish(v + 1)
		}
	}()
	world := worldSub.ListenReliable(ctx)
	next, stop := iterPull(world)
	defer stop()
	var v int64
	for b.Loop() {
		helloPub.Publish(v)
		v, _ = next()
	}
	cancel()
	bus.Close()
	<-done
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/hop")
}

// BenchmarkEchoAforListener is the same echo with a pull-style Listener on
// the benchmark side (no iterator adapter).
func BenchmarkEchoAforListener(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	bus := mem.NewBus()
	helloSub, _ := mem.Subscribe[int64](bus, "bench/hello")
	worldSub, _ := mem.Subscribe[int64](bus, "bench/world")
	helloPub, _ := mem.NewPublisher[int64](bus, "bench/hello")
	worldPub, _ := mem.NewPublisher[int64](bus, "bench/world")
	done := make(chan struct{})
	go func() {
		defer close(done)
		for v := range helloSub.ListenReliable(ctx) {
			worldPub.Publish(v + 1)
		}
	}()
	world := worldSub.Listener(ctx)
	var v int64
	for b.Loop() {
		helloPub.Publish(v)
		v, _ = world.Next(ctx)
	}
	cancel()
	bus.Close()
	<-done
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/hop")
}

// BenchmarkPublishOneSub measures Publish to one subscriber whose queue is
// drained by nobody (the producer-side cost alone).
func BenchmarkPublishOneSub(b *testing.B) {
	bus := mem.NewBus()
	defer bus.Close()
	_, _ = mem.Subscribe[int64](bus, "x/y")
	pub, _ := mem.NewPublisher[int64](bus, "x/*")
	for b.Loop() {
		pub.Publish(1)
	}
}
