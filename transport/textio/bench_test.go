package textio

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/afor-go/afor"
)

// benchInput is 10,000 lines of about 40 bytes, like a robot's log.
var benchInput = func() []byte {
	var b bytes.Buffer
	for i := range 10_000 {
		fmt.Fprintf(&b, "pose x=%d.%03d y=%d.%03d theta=0.%04d\n", i, i%1000, i/7, i%997, i%10000)
	}
	return b.Bytes()
}()

const benchLines = 10_000

// BenchmarkScanner is the primitive underneath: bufio.Scanner with a string
// per line.
func BenchmarkScanner(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchInput)))
	for b.Loop() {
		sc := bufio.NewScanner(bytes.NewReader(benchInput))
		n := 0
		for sc.Scan() {
			if sc.Text() != "" {
				n++
			}
		}
		if n != benchLines {
			b.Fatal(n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchLines), "ns/line")
}

// BenchmarkFromReader reads the same input into a sub with no consumer (the
// sub keeps the latest line).
func BenchmarkFromReader(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchInput)))
	for b.Loop() {
		sub := FromReader(bytes.NewReader(benchInput))
		<-sub.Done()
		if n := sub.Stats().Inputs; n != benchLines {
			b.Fatal(n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchLines), "ns/line")
}

// BenchmarkFromReaderReliable adds a ListenReliable consumer that sees every
// line (unbounded queue), in another goroutine.
func BenchmarkFromReaderReliable(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchInput)))
	for b.Loop() {
		start := make(chan struct{})
		sub := FromReader(bytes.NewReader(benchInput), WithStartSignal(start))
		all := sub.ListenReliable(context.Background(), afor.QueueSize(0))
		close(start)
		n := 0
		for range all {
			n++
		}
		if n != benchLines {
			b.Fatal(n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchLines), "ns/line")
}
