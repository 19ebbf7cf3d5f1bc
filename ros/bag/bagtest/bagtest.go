// Package bagtest makes recordings test fixtures: a bag (rosbag2 MCAP, as
// `ros2 bag record` or package bag writes it) feeds a test's topics, in
// receive-time order, at the recorded pace or as fast as the code under
// test takes them; and what a test saw is recorded into a bag that a
// failing test leaves behind, to open in Foxglove or replay with
// `ros2 bag play` or `afor bag play`.
//
// It lives beside package bag, not in afortest, because bags are ROS
// data: afortest stays free of package ros.
//
//	// feed the camera topic of a recording to the node under test, on the mem bus
//	pub, _ := mem.NewPublisher[sensor_msgs.Image](bus, "camera")
//	bagtest.FeedTopic(t, "testdata/drive", "/camera/image", bagtest.FeedOptions{},
//		func(ctx context.Context, img sensor_msgs.Image) error { return pub.Publish(img) })
//
//	// record what the test saw: kept when the test fails
//	rec := bagtest.NewRecorder(t, bagtest.RecorderOptions{})
//	bagtest.RecordSub(rec, "/detections", detections)
package bagtest

import (
	"context"
	"iter"
	"time"

	"github.com/afor-go/afor/ros/bag"
	"github.com/afor-go/afor/ros/cdr"
)

// FeedOptions configure the feeding of a bag's messages to a test.
type FeedOptions struct {
	// Topics selects the topics fed; empty feeds them all.
	Topics []string
	// Rate paces the messages at this multiple of their recorded pace; 0
	// feeds them as fast as the consumer takes them (each publish or
	// Step returns before the next message).
	Rate float64
	// Start and End bound the receive times fed (Start <= t < End).
	Start, End time.Time
	// Step, when set, runs after each message is handed over: a test
	// waits there until the code under test has handled it (its output
	// arrived), so that an unpaced feed goes exactly as fast as the
	// consumer.
	Step func(ctx context.Context, m bag.Message) error
}

// open opens a bag for a test, failing it when the bag cannot be read;
// the bag closes with the test.
func open(t testing, path string) *bag.Reader {
	t.Helper()
	r, err := bag.Open(path, bag.ReaderOptions{})
	if err != nil {
		t.Fatalf("bagtest: %v", err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// testing is the part of testing.TB this package uses.
type testing interface {
	Helper()
	Fatalf(format string, args ...any)
	Errorf(format string, args ...any)
	Logf(format string, args ...any)
	Cleanup(func())
	Context() context.Context
	Failed() bool
	Name() string
}

// artifacts is testing.TB's ArtifactDir (Go 1.26).
type artifacts interface{ ArtifactDir() string }

// Messages returns the selected messages of the bag at path in receive-
// time order, paced by o.Rate (or pulled as fast as the loop body runs).
// A damaged bag fails the test, after the messages before the damage.
// The loop ends early when the test's context ends.
func Messages(t testing, path string, o FeedOptions) iter.Seq[bag.Message] {
	t.Helper()
	r := open(t, path)
	return func(yield func(bag.Message) bool) {
		ctx := t.Context()
		p := pacer{rate: o.Rate}
		for m, err := range r.Messages(bag.ReadOptions{Topics: o.Topics, Start: o.Start, End: o.End}) {
			if err != nil {
				t.Errorf("bagtest: %s: %v", path, err)
				return
			}
			if err := p.wait(ctx, m.Received); err != nil {
				return
			}
			if !yield(m) {
				return
			}
		}
	}
}

// pacer spaces messages by their receive times divided by rate (0: no
// pacing), from the first one, without drifting.
type pacer struct {
	rate        float64
	wall0, bag0 time.Time
}

func (p *pacer) wait(ctx context.Context, t time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if p.rate <= 0 {
		return nil
	}
	if p.wall0.IsZero() {
		p.wall0, p.bag0 = time.Now(), t
		return nil
	}
	d := time.Until(p.wall0.Add(time.Duration(float64(t.Sub(p.bag0)) / p.rate)))
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Feed hands every selected message of the bag at path to publish, in
// receive-time order, paced by o.Rate or as fast as publish (and o.Step)
// return, and returns the number fed. publish is typically an afor
// transport's publisher: mem.Publish, a zenoh.Publisher, a
// ros.RawPublisher. An error from publish or Step, or a damaged bag,
// fails the test. It stops early when the test's context ends.
func Feed(t testing, path string, o FeedOptions, publish func(ctx context.Context, m bag.Message) error) int {
	t.Helper()
	ctx := t.Context()
	n := 0
	for m := range Messages(t, path, o) {
		if err := publish(ctx, m); err != nil {
			if ctx.Err() == nil {
				t.Errorf("bagtest: feeding %s: %v", m.Topic, err)
			}
			return n
		}
		n++
		if o.Step != nil {
			if err := o.Step(ctx, m); err != nil {
				if ctx.Err() == nil {
					t.Errorf("bagtest: after %s at %v: %v", m.Topic, m.Received, err)
				}
				return n
			}
		}
	}
	return n
}

// FeedTopic feeds the messages of one topic of the bag at path, decoded
// into T (a generated message type), to publish, as [Feed] does. A message
// of another type fails the test.
func FeedTopic[T any, PT interface {
	*T
	cdr.Message
}](t testing, path, topic string, o FeedOptions, publish func(ctx context.Context, v T) error) int {
	t.Helper()
	o.Topics = []string{topic}
	return Feed(t, path, o, func(ctx context.Context, m bag.Message) error {
		v, err := bag.Decode[T, PT](m)
		if err != nil {
			return err
		}
		return publish(ctx, v)
	})
}

// Decoded returns the messages of one topic of the bag at path decoded
// into T, in receive-time order, as [Messages] does.
func Decoded[T any, PT interface {
	*T
	cdr.Message
}](t testing, path, topic string, o FeedOptions) iter.Seq[T] {
	t.Helper()
	o.Topics = []string{topic}
	msgs := Messages(t, path, o)
	return func(yield func(T) bool) {
		for m := range msgs {
			v, err := bag.Decode[T, PT](m)
			if err != nil {
				t.Errorf("bagtest: %v", err)
				return
			}
			if !yield(v) {
				return
			}
		}
	}
}
