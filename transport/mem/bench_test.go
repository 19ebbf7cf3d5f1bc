package mem_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/transport/mem"
)

// The echo benchmarks follow the Python afor's benchmark: two topics, one
// message in flight, each side answering the other. ns/op is a round trip
// (two hops); ns/hop is reported too. BenchmarkEchoChannels is the same
// pattern on raw Go channels, the floor to compare with.

func BenchmarkEchoChannels(b *testing.B) {
	hello, world := make(chan int64, 10), make(chan int64, 10)
	hops := int64(2 * b.N)
	done := make(chan struct{}, 2)
	side := func(in <-chan int64, out chan<- int64) {
		defer func() { done <- struct{}{} }()
		for v := range in {
			out <- v + 1
			if v >= hops {
				return
			}
		}
	}
	go side(hello, world)
	go side(world, hello)
	b.ResetTimer()
	hello <- 0
	<-done
	<-done
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(hops), "ns/hop")
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

// BenchmarkEchoAfor is the Python pattern exactly: two goroutines, each
// ranging over ListenReliable on its topic and publishing the value plus one
// on the other, until 2*b.N hops are done.
func BenchmarkEchoAfor(b *testing.B) {
	ctx, cancel := context.WithCancel(b.Context())
	defer cancel()
	bus := mem.NewBus()
	defer bus.Close()
	hello, _ := mem.Subscribe[int64](bus, "bench/hello")
	world, _ := mem.Subscribe[int64](bus, "bench/world")
	helloPub, _ := mem.NewPublisher[int64](bus, "bench/hello")
	worldPub, _ := mem.NewPublisher[int64](bus, "bench/world")
	hops := int64(2 * b.N)
	done := make(chan struct{}, 2)
	side := func(in *afor.Sub[int64], out *mem.Publisher[int64]) {
		defer func() { done <- struct{}{} }()
		for v := range in.ListenReliable(ctx, afor.Fresh()) {
			if v >= hops {
				out.Publish(v + 1) // let the other side see the end too
				return
			}
			out.Publish(v + 1)
		}
	}
	go side(hello, worldPub)
	go side(world, helloPub)
	for hello.Stats().Listeners == 0 || world.Stats().Listeners == 0 {
		runtime.Gosched() // both loops registered
	}
	b.ResetTimer()
	helloPub.Publish(0)
	<-done
	<-done
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(hops), "ns/hop")
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
