package tf2_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/geometry_msgs"
	"github.com/afor-go/afor/ros/tf2"
)

// BenchmarkLookupChain10 looks up through a chain of 10 links (11 frames),
// each with 101 samples: at a time between samples (10 interpolations) and
// at the latest common time.
func BenchmarkLookupChain10(b *testing.B) {
	buf := chain(10)
	for _, c := range []struct {
		name string
		tm   time.Time
	}{{"interpolated", at(505 * time.Millisecond)}, {"latest", tf2.Latest}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := buf.LookupTransform("f0", "f10", c.tm); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	// In parallel: lookups share the read lock.
	b.Run("interpolated-parallel", func(b *testing.B) {
		tm := at(505 * time.Millisecond)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := buf.LookupTransform("f0", "f10", tm); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// BenchmarkComposeChain10 is the floor of a 10-link lookup: interpolating
// 10 pairs of transforms and composing them, with no buffer.
func BenchmarkComposeChain10(b *testing.B) {
	var links [10][2]geometry_msgs.Transform
	for i := range links {
		links[i][0] = tr("a", "b", 0, float64(i), 1, 0, 0.1*float64(i)).Transform
		links[i][1] = tr("a", "b", 0, float64(i)+0.1, 1, 0, 0.1*float64(i)+0.01).Transform
	}
	b.ReportAllocs()
	var sink geometry_msgs.Transform
	for b.Loop() {
		acc := geometry_msgs.Transform{Rotation: geometry_msgs.Quaternion{W: 1}}
		for i := range links {
			acc = tf2.Compose(tf2.Interpolate(links[i][0], links[i][1], 0.5), acc)
		}
		sink = acc
	}
	_ = sink
}

// BenchmarkSetTransform stores transforms of 20 frames, each frame with
// a sample every 10 ms of stamp (so that 10 s of history hold 1000 samples
// per frame and the oldest leave as new ones come): one at a time, and as
// TFMessages of 20 through SetTransforms. transforms/s is the throughput.
func BenchmarkSetTransform(b *testing.B) {
	const frames = 20
	msgs := make([][]geometry_msgs.TransformStamped, 3000)
	for k := range msgs {
		for i := 1; i <= frames; i++ {
			msgs[k] = append(msgs[k], tr(fmt.Sprint("f", i-1), fmt.Sprint("f", i), time.Duration(k)*10*time.Millisecond, float64(k), 0, 0, 0.001*float64(k)))
		}
	}
	shift := func(ts geometry_msgs.TransformStamped, round int) geometry_msgs.TransformStamped {
		ts.Header.Stamp.Sec += int32(round * 30)
		return ts
	}
	b.Run("one", func(b *testing.B) {
		buf := tf2.NewBuffer()
		n := 0
		for b.Loop() {
			k := n / frames
			if err := buf.SetTransform(shift(msgs[k%len(msgs)][n%frames], k/len(msgs)), "bench", false); err != nil {
				b.Fatal(err)
			}
			n++
		}
		b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "transforms/s")
	})
	b.Run("message", func(b *testing.B) {
		buf := tf2.NewBuffer()
		batch := make([]geometry_msgs.TransformStamped, frames)
		n := 0
		for b.Loop() {
			for i, ts := range msgs[n%len(msgs)] {
				batch[i] = shift(ts, n/len(msgs))
			}
			if err := buf.SetTransforms(batch, "bench", false); err != nil {
				b.Fatal(err)
			}
			n++
		}
		b.ReportMetric(float64(n*frames)/b.Elapsed().Seconds(), "transforms/s")
	})
}

// BenchmarkListener is the whole path on the in-memory middleware:
// a Broadcaster publishes TFMessages of 20 transforms, a Listener decodes
// them and stores them in its buffer. transforms/s is the throughput.
func BenchmarkListener(b *testing.B) {
	net := ros.NewMemoryNetwork()
	ctx := context.Background()
	pubNode, err := ros.NewNode(ctx, "pub", ros.WithMiddleware(ros.Memory(net)), quiet)
	if err != nil {
		b.Fatal(err)
	}
	defer pubNode.Close()
	subNode, err := ros.NewNode(ctx, "sub", ros.WithMiddleware(ros.Memory(net)), quiet)
	if err != nil {
		b.Fatal(err)
	}
	defer subNode.Close()
	buf := tf2.NewBuffer()
	l, err := tf2.NewListener(subNode, buf)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	br, err := tf2.NewBroadcaster(pubNode)
	if err != nil {
		b.Fatal(err)
	}
	const frames = 20
	batch := make([]geometry_msgs.TransformStamped, frames)
	for i := range batch {
		batch[i] = tr(fmt.Sprint("f", i), fmt.Sprint("f", i+1), 0, 1, 0, 0, 0)
	}
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		st := tf2.TimeStamp(at(time.Duration(n) * 10 * time.Millisecond))
		for i := range batch {
			batch[i].Header.Stamp = st
		}
		if err := br.SendTransform(ctx, batch...); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(n*frames)/b.Elapsed().Seconds(), "transforms/s")
	if s := l.Stats(); s.Messages != uint64(n) || s.Rejected != 0 {
		b.Fatalf("listener %+v after %d messages", s, n)
	}
}
