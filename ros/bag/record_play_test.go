package bag_test

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/bag"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/transport/zenoh"
)

func openMem(t testing.TB, net *ros.MemoryNetwork) *ros.Context {
	t.Helper()
	c, err := ros.Open(context.Background(), ros.WithMiddleware(ros.Memory(net)), ros.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func newNode(t testing.TB, c *ros.Context, name string, opts ...ros.Option) *ros.Node {
	t.Helper()
	n, err := c.NewNode(name, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRecordThenPlay records a talker, a latched topic and a topic that
// appears later on the in-memory middleware, then plays the bag back to
// a listener: every message, in order, with the latched one delivered to
// a subscription made after it was played.
func TestRecordThenPlay(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	net := ros.NewMemoryNetwork()
	src := newNode(t, openMem(t, net), "talker")
	latched, err := ros.NewPublisher[std_msgs.String](src, "/map_name", ros.QoSTransientLocal(1))
	if err != nil {
		t.Fatal(err)
	}
	if err := latched.Publish(ctx, &std_msgs.String{Data: "warehouse"}); err != nil {
		t.Fatal(err)
	}
	chatter, err := ros.NewPublisher[std_msgs.String](src, "/chatter", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	hidden, err := ros.NewPublisher[std_msgs.String](src, "/_hidden", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	defer hidden.Close()

	recNode := newNode(t, openMem(t, net), "recorder")
	path := filepath.Join(t.TempDir(), "rec")
	w, err := bag.Create(path, bag.WriterOptions{Compression: bag.CompressionZstd})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := bag.Record(ctx, recNode, w, bag.RecordOptions{Exclude: regexp.MustCompile(`/rosout|/parameter_events`)})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, func() bool { return len(rec.Topics()) == 2 }, "recording /chatter and /map_name")
	waitSubs(t, ctx, chatter)
	const n = 50
	for i := range n {
		if err := chatter.Publish(ctx, &std_msgs.String{Data: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond)
	}
	// A topic that appears while recording.
	late, err := ros.NewPublisher[std_msgs.String](src, "/late", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, func() bool { return len(rec.Topics()) == 3 }, "recording /late")
	waitSubs(t, ctx, late)
	if err := late.Publish(ctx, &std_msgs.String{Data: "late"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, func() bool { return rec.Stats().Written == n+2 }, "every message written")
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if st := rec.Stats(); st.Dropped != 0 || st.Received != n+2 {
		t.Fatalf("stats %+v", st)
	}
	r, err := bag.Open(path, bag.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ti, ok := r.Topic("/map_name")
	if !ok || ti.MessageCount != 1 || len(ti.OfferedQoS) != 1 || ti.OfferedQoS[0].Durability != 1 || ti.TypeHash != (std_msgs.String{}).TypeHash() {
		t.Fatalf("/map_name: %+v", ti)
	}
	if _, ok := r.Topic("/_hidden"); ok {
		t.Error("a hidden topic was recorded")
	}

	// Play it to a listener on another context.
	dst := newNode(t, openMem(t, net), "listener")
	sub, err := ros.Subscribe[std_msgs.String](dst, "/chatter", ros.QoSKeepAll())
	if err != nil {
		t.Fatal(err)
	}
	got := sub.Listener(ctx, afor.QueueSize(0))
	player := newNode(t, openMem(t, net), "player")
	start := time.Now()
	st, err := bag.Play(ctx, player, r, bag.PlayOptions{Rate: 2, Topics: []string{"/chatter", "/map_name"}, Delay: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if st.Published != n+1 {
		t.Fatalf("published %d", st.Published)
	}
	for i := range n {
		m, err := got.Next(ctx)
		if err != nil || m.Data != fmt.Sprint(i) {
			t.Fatalf("message %d: %q %v", i, m.Data, err)
		}
	}
	if d := time.Since(start); d < st.BagTime/2 {
		t.Errorf("played %v of bag time in %v at rate 2", st.BagTime, d)
	}
	_ = start
}

func waitFor(t testing.TB, ctx context.Context, cond func() bool, what string) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func waitSubs(t testing.TB, ctx context.Context, p interface {
	WaitForSubscriptions(context.Context, int) error
}) {
	t.Helper()
	if err := p.WaitForSubscriptions(ctx, 1); err != nil {
		t.Fatal(err)
	}
}

// TestPlayOffsetDurationLoop plays a part of a bag (from an offset, for a
// duration) again and again.
func TestPlayOffsetDurationLoop(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	net := ros.NewMemoryNetwork()
	path := writeBag(t, t.TempDir(), bag.WriterOptions{}, sampleMessages(t, 10)) // /chatter "hello 0".."hello 9", 10 ms apart
	r, err := bag.Open(path, bag.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	dst := newNode(t, openMem(t, net), "listener")
	sub, err := ros.Subscribe[std_msgs.String](dst, "/chatter", ros.QoSKeepAll())
	if err != nil {
		t.Fatal(err)
	}
	got := sub.Listener(ctx, afor.QueueSize(0))
	player := newNode(t, openMem(t, net), "player")
	pctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	var st bag.PlayStats
	go func() {
		var err error
		st, err = bag.Play(pctx, player, r, bag.PlayOptions{Topics: []string{"/chatter"}, StartOffset: 50 * time.Millisecond,
			Duration: 30 * time.Millisecond, Loop: true, Delay: 20 * time.Millisecond})
		done <- err
	}()
	for loop := range 3 {
		for _, want := range []string{"hello 5", "hello 6", "hello 7"} {
			m, err := got.Next(ctx)
			if err != nil || m.Data != want {
				t.Fatalf("loop %d: %q %v, want %q", loop, m.Data, err, want)
			}
		}
	}
	stop()
	if err := <-done; err != context.Canceled {
		t.Fatalf("Play: %v", err)
	}
	if st.Loops < 2 {
		t.Errorf("stats %+v", st)
	}
}

// TestRecordZenoh records over rmw_zenoh's conventions (two Go contexts
// linked over TCP): a latched topic and a talker, then plays them back
// over the same link.
func TestRecordZenoh(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	quiet := ros.WithLogger(slog.New(slog.DiscardHandler))
	a, err := ros.Open(ctx, ros.WithMiddleware(ros.Zenoh(zenoh.Config{Listen: []string{"tcp/127.0.0.1:0"}})), quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := ros.Open(ctx, ros.WithMiddleware(ros.Zenoh(zenoh.Config{Connect: a.ListenAddrs()[:1]})), quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	src := newNode(t, a, "talker")
	latched, err := ros.NewPublisher[std_msgs.String](src, "/state", ros.QoSTransientLocal(1))
	if err != nil {
		t.Fatal(err)
	}
	if err := latched.Publish(ctx, &std_msgs.String{Data: "ready"}); err != nil {
		t.Fatal(err)
	}
	chatter, err := ros.NewPublisher[std_msgs.String](src, "/chatter", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "zenoh")
	w, err := bag.Create(path, bag.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := bag.Record(ctx, newNode(t, b, "recorder"), w, bag.RecordOptions{Topics: []string{"/state", "/chatter"}})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, func() bool { return len(rec.Topics()) == 2 }, "recording both topics")
	waitSubs(t, ctx, chatter)
	for i := range 30 {
		if err := chatter.Publish(ctx, &std_msgs.String{Data: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
	}
	waitFor(t, ctx, func() bool { return rec.Stats().Written == 31 }, "the latched message and 30 more")
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := bag.Open(path, bag.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if ti, _ := r.Topic("/state"); ti.MessageCount != 1 || ti.OfferedQoS[0].Durability != 1 {
		t.Fatalf("/state: %+v", ti)
	}
	// Played back to the talker's side, the original latched publisher gone.
	if err := latched.Close(); err != nil {
		t.Fatal(err)
	}
	sub, err := ros.Subscribe[std_msgs.String](src, "/state", ros.QoSTransientLocal(1))
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	first := sub.ArmNext(ctx)
	if _, err := bag.Play(ctx, newNode(t, b, "player"), r, bag.PlayOptions{Rate: 10, Delay: 200 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if m, err := first.Wait(ctx); err != nil || m.Data != "ready" {
		t.Fatalf("played /state: %q %v", m.Data, err)
	}
}
