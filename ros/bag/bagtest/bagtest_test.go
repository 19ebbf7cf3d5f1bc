package bagtest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/bag"
	"github.com/afor-go/afor/ros/bag/bagtest"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/transport/mem"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var t0 = time.Unix(1_700_000_000, 0)

// writeChatter writes n std_msgs/String messages "0".."n-1" on /chatter,
// 100 ms apart, and one on /other.
func writeChatter(t testing.TB, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "chatter")
	w, err := bag.Create(path, bag.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, topic := range []string{"/chatter", "/other"} {
		if err := w.AddTopic(bag.Topic{Name: topic, Type: "std_msgs/msg/String", TypeHash: std_msgs.String{}.TypeHash()}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		b, _ := (&std_msgs.String{Data: fmt.Sprint(i)}).AppendCDR(nil)
		if err := w.Write("/chatter", t0.Add(time.Duration(i)*100*time.Millisecond), time.Time{}, 0, b); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := (&std_msgs.String{Data: "other"}).AppendCDR(nil)
	if err := w.Write("/other", t0, time.Time{}, 0, b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestFeedAsFastAsTheConsumer feeds a bag's topic into the mem bus to a
// node under test (it appends "!" to each string), as fast
// as the node answers: Step waits for each answer, so nothing is lost
// however small the node's queues.
func TestFeedAsFastAsTheConsumer(t *testing.T) {
	path := writeChatter(t, 50)
	bus := mem.NewBus()
	defer bus.Close()
	in, err := mem.Subscribe[std_msgs.String](bus, "chatter")
	if err != nil {
		t.Fatal(err)
	}
	out, err := mem.NewPublisher[std_msgs.String](bus, "answers")
	if err != nil {
		t.Fatal(err)
	}
	answers, err := mem.Subscribe[std_msgs.String](bus, "answers")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the node under test
		defer wg.Done()
		for m := range in.Listen(ctx) {
			out.Publish(std_msgs.String{Data: m.Data + "!"})
		}
	}()
	pub, err := mem.NewPublisher[std_msgs.String](bus, "chatter")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var next *afor.Waiter[std_msgs.String]
	n := bagtest.FeedTopic(t, path, "/chatter", bagtest.FeedOptions{
		Step: func(ctx context.Context, _ bag.Message) error {
			a, err := next.Wait(ctx)
			got = append(got, a.Data)
			return err
		},
	}, func(ctx context.Context, m std_msgs.String) error {
		next = answers.ArmNext(ctx) // armed before the node can answer
		pub.Publish(m)
		return nil
	})
	cancel()
	wg.Wait()
	if n != 50 || len(got) != 50 || got[0] != "0!" || got[49] != "49!" {
		t.Fatalf("fed %d, answers %v", n, got)
	}
}

// TestPaced feeds at the recorded pace, in fake time.
func TestPaced(t *testing.T) {
	path := writeChatter(t, 11)
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var at []time.Duration
		for m := range bagtest.Messages(t, path, bagtest.FeedOptions{Rate: 2, Topics: []string{"/chatter"}}) {
			_ = m
			at = append(at, time.Since(start))
		}
		if len(at) != 11 || at[10] != 500*time.Millisecond || at[1] != 50*time.Millisecond {
			t.Fatalf("fed at %v", at)
		}
		var all []string
		for s := range bagtest.Decoded[std_msgs.String](t, path, "/other", bagtest.FeedOptions{}) {
			all = append(all, s.Data)
		}
		if len(all) != 1 || all[0] != "other" {
			t.Fatalf("other: %v", all)
		}
	})
}

// fakeT stands in for a test that fails, to see what the recorder keeps.
type fakeT struct {
	*testing.T
	failed   bool
	logs     []string
	cleanups []func()
}

func (f *fakeT) Failed() bool                   { return f.failed }
func (f *fakeT) Logf(format string, a ...any)   { f.logs = append(f.logs, fmt.Sprintf(format, a...)) }
func (f *fakeT) Cleanup(fn func())              { f.cleanups = append(f.cleanups, fn) }
func (f *fakeT) Errorf(format string, a ...any) { f.T.Errorf(format, a...) }
func (f *fakeT) end() {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
}

// TestRecorderKeepsWhatAFailingTestSaw records a sub; the failing test
// leaves a bag that reads back, a passing one leaves nothing.
func TestRecorderKeepsWhatAFailingTestSaw(t *testing.T) {
	for _, fail := range []bool{true, false} {
		ft := &fakeT{T: t, failed: fail}
		sub := afor.NewSub[std_msgs.String]()
		rec := bagtest.NewRecorder(ft, bagtest.RecorderOptions{})
		bagtest.RecordSub(rec, "/seen", sub)
		for i := range 5 {
			sub.Input(std_msgs.String{Data: fmt.Sprint("seen ", i)})
		}
		ft.end()
		sub.Input(std_msgs.String{Data: "after the test"})
		if !fail {
			if _, err := os.Stat(rec.Path()); !os.IsNotExist(err) {
				t.Errorf("a passing test left %s (%v)", rec.Path(), err)
			}
			continue
		}
		defer os.RemoveAll(filepath.Dir(rec.Path()))
		if len(ft.logs) != 1 || !strings.Contains(ft.logs[0], rec.Path()) {
			t.Errorf("logged %q", ft.logs)
		}
		var got []string
		for s := range bagtest.Decoded[std_msgs.String](t, rec.Path(), "/seen", bagtest.FeedOptions{}) {
			got = append(got, s.Data)
		}
		if len(got) != 5 || got[4] != "seen 4" {
			t.Errorf("recorded %v", got)
		}
	}
}
