package scenario

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// The benchmarks time the same scenario objects as the bench command, for
// benchstat across commits:
//
//	go test -run '^$' -bench . -count 10 ./bench/internal/scenario > new.txt
//	benchstat old.txt new.txt
//
// Echo reports ns/hop (two hops per iteration), throughput MB/s, request
// ns/op per call (its floor: one ping-pong of the same size). Compare afor
// rows with the native and floor rows of the same run, never across
// machines.

func BenchmarkEcho(b *testing.B) {
	ctx := context.Background()
	for _, size := range []int{HeaderSize, 1024} {
		for _, tr := range testTransports(b, "echo") {
			for _, mode := range []Mode{ModeAfor, ModeNative} {
				b.Run(fmt.Sprintf("%s/%s/size=%d", tr.Name, mode, size), func(b *testing.B) {
					e, err := NewEcho(ctx, tr, mode, size)
					if err != nil {
						b.Fatal(err)
					}
					benchEcho(b, e)
				})
			}
		}
		for _, f := range Floors() {
			b.Run(fmt.Sprintf("%s/floor/size=%d", f, size), func(b *testing.B) {
				e, err := NewEchoFloor(ctx, f, size)
				if err != nil {
					b.Fatal(err)
				}
				benchEcho(b, e)
			})
		}
	}
}

func benchEcho(b *testing.B, e *Echo) {
	ctx := context.Background()
	for b.Loop() {
		if err := e.RoundTrip(ctx); err != nil {
			e.Close()
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/hop")
	if err := e.Close(); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkThroughput(b *testing.B) {
	ctx := context.Background()
	for _, size := range []int{HeaderSize, 4096, 65536} {
		for _, tr := range testTransports(b, "throughput") {
			for _, mode := range []Mode{ModeAfor, ModeNative} {
				b.Run(fmt.Sprintf("%s/%s/size=%d", tr.Name, mode, size), func(b *testing.B) {
					w := tr.window(size, DefaultWindow)
					s, err := NewStream(ctx, tr, mode, StreamConfig{Size: size, Window: w, Queue: 2 * w})
					if err != nil {
						b.Fatal(err)
					}
					benchStream(b, s, size)
				})
			}
		}
		for _, f := range []Floor{FloorChan, FloorTCP, FloorTCPProc} {
			b.Run(fmt.Sprintf("%s/floor/size=%d", f, size), func(b *testing.B) {
				s, err := NewFloorStream(ctx, f, StreamConfig{Size: size, Window: DefaultWindow})
				if err != nil {
					b.Fatal(err)
				}
				benchStream(b, s, size)
			})
		}
	}
}

func benchStream(b *testing.B, s *Stream, size int) {
	ctx := context.Background()
	b.SetBytes(int64(size))
	for b.Loop() {
		if err := s.Send(ctx); err != nil {
			s.Close()
			b.Fatal(err)
		}
	}
	err := s.Drain(ctx)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		b.Fatal(err)
	}
	if _, _, dropped, failed := s.Counts(); dropped+failed != 0 {
		b.Fatalf("dropped %d, failed %d", dropped, failed)
	}
}

func BenchmarkRequest(b *testing.B) {
	ctx := context.Background()
	for _, tr := range testTransports(b, "request") {
		for _, mode := range []Mode{ModeAfor, ModeNative} {
			b.Run(tr.Name+"/"+string(mode), func(b *testing.B) {
				c, err := NewCalls(ctx, tr, mode, 64)
				if errors.Is(err, ErrUnsupported) {
					b.Skip(err)
				}
				if err != nil {
					b.Fatal(err)
				}
				for b.Loop() {
					if err := c.Call(ctx); err != nil {
						c.Close()
						b.Fatal(err)
					}
				}
				if err := c.Close(); err != nil {
					b.Fatal(err)
				}
			})
		}
	}
	for _, f := range []Floor{FloorChan, FloorTCP, FloorTCPProc} {
		b.Run(string(f)+"/floor", func(b *testing.B) {
			e, err := NewEchoFloor(ctx, f, 64)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := e.RoundTrip(ctx); err != nil {
					e.Close()
					b.Fatal(err)
				}
			}
			if err := e.Close(); err != nil {
				b.Fatal(err)
			}
		})
	}
}
