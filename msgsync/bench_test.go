package msgsync_test

import (
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/msgsync"
)

// reading is a small sensor message.
type reading struct {
	stamp int64
	value [4]float64
}

func readingStamp(r reading) time.Time { return time.Unix(0, r.stamp) }

// BenchmarkMap is the primitive underneath: a derived sub fed from its
// source's producer goroutine, one input per op.
func BenchmarkMap(b *testing.B) {
	src := afor.NewSub[reading]()
	out := afor.Map(src, func(r reading) (reading, error) { return r, nil })
	defer out.Close()
	n := 0
	out.OnInput(func(reading) { n++ })
	b.ReportAllocs()
	for k := 0; b.Loop(); k++ {
		src.Input(reading{stamp: int64(k)})
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/input")
}

// BenchmarkSync: two inputs, one set per op (two inputs per op), in
// sets/s; allocs/op are per set, so per input they are half.
func BenchmarkSync(b *testing.B) {
	for _, bc := range []struct {
		name   string
		make   func(a, c *afor.Sub[reading]) *msgsync.Sync[msgsync.Pair[reading, reading]]
		stampA func(k int) int64
		stampB func(k int) int64
	}{
		{"exact", func(a, c *afor.Sub[reading]) *msgsync.Sync[msgsync.Pair[reading, reading]] {
			return msgsync.Exact(msgsync.In(a, readingStamp), msgsync.In(c, readingStamp))
		}, func(k int) int64 { return int64(k) * 1e6 }, func(k int) int64 { return int64(k) * 1e6 }},
		{"approximate", func(a, c *afor.Sub[reading]) *msgsync.Sync[msgsync.Pair[reading, reading]] {
			return msgsync.Approximate(msgsync.In(a, readingStamp), msgsync.In(c, readingStamp))
		}, func(k int) int64 { return int64(k)*1e6 + int64(k%7)*1e4 }, func(k int) int64 { return int64(k)*1e6 + 3e5 }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			a, c := afor.NewSub[reading](), afor.NewSub[reading]()
			s := bc.make(a, c)
			defer s.Close()
			sets := 0
			s.OnInput(func(msgsync.Pair[reading, reading]) { sets++ })
			b.ReportAllocs()
			for k := 0; b.Loop(); k++ {
				a.Input(reading{stamp: bc.stampA(k)})
				c.Input(reading{stamp: bc.stampB(k)})
			}
			if sets < b.N-1 {
				b.Fatalf("%d sets for %d ops", sets, b.N)
			}
			b.ReportMetric(float64(sets)/b.Elapsed().Seconds(), "sets/s")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/input")
		})
	}
}

// BenchmarkCache: one message cached per op (evicting the oldest of 100).
func BenchmarkCache(b *testing.B) {
	src := afor.NewSub[reading]()
	c := msgsync.NewCache(msgsync.In(src, readingStamp), 100)
	defer c.Close()
	b.ReportAllocs()
	for k := 0; b.Loop(); k++ {
		src.Input(reading{stamp: int64(k)})
	}
}
