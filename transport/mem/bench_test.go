package mem_test

import (
	"context"
	"iter"
	"testing"

	"github.com/afor-go/afor"
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

// echo starts the far side of the echo on a bus: every value on
// bench/hello comes back plus one on bench/world. It returns the publisher
// of bench/hello, the sub of bench/world and a stop function.
func echo(ctx context.Context) (*mem.Publisher[int64], *afor.Sub[int64], func()) {
	ctx, cancel := context.WithCancel(ctx)
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
	return helloPub, worldSub, func() {
		cancel()
		bus.Close()
		<-done
	}
}

// BenchmarkEchoAfor ranges over ListenReliable on both sides.
func BenchmarkEchoAfor(b *testing.B) {
	hello, world, stop := echo(b.Context())
	defer stop()
	next, stopPull := iter.Pull(world.ListenReliable(b.Context()))
	defer stopPull()
	var v int64
	for b.Loop() {
		hello.Publish(v)
		v, _ = next()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/hop")
}

// BenchmarkEchoAforListener is the same echo with a pull-style Listener on
// the benchmark side (no iterator adapter).
func BenchmarkEchoAforListener(b *testing.B) {
	hello, world, stop := echo(b.Context())
	defer stop()
	l := world.Listener(b.Context())
	var v int64
	for b.Loop() {
		hello.Publish(v)
		v, _ = l.Next(b.Context())
	}
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
