package afortest_test

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/afortest"
)

// fakeTB records a failure instead of failing the real test.
type fakeTB struct {
	testing.TB
	mu       sync.Mutex
	failed   bool
	msg      string
	cleanups []func()
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.mu.Lock()
	f.failed, f.msg = true, fmt.Sprintf(format, args...)
	f.mu.Unlock()
	runtime.Goexit()
}

func (f *fakeTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }

// run runs body as a test on a fake TB and returns it.
func run(t *testing.T, body func(tb testing.TB)) *fakeTB {
	f := &fakeTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		body(f)
	}()
	<-done
	for _, c := range f.cleanups {
		c()
	}
	return f
}

func TestExpect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sub := afor.NewSub[int]()
		defer sub.Close()
		go func() {
			for i := range 5 {
				time.Sleep(10 * time.Millisecond)
				sub.Input(i)
			}
		}()
		got := afortest.Expect(t, sub, time.Second, func(v int) bool { return v == 3 })
		if got != 3 {
			t.Fatalf("Expect = %d", got)
		}
		f := run(t, func(tb testing.TB) {
			afortest.Expect(tb, sub, 100*time.Millisecond, func(v int) bool { return v > 10 })
		})
		if !f.failed || !strings.Contains(f.msg, "saw 1 value(s):\n\t4") {
			t.Fatalf("failure message = %q", f.msg)
		}
	})
}

func TestExpectNoneAndCollect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sub := afor.NewSub[string]()
		defer sub.Close()
		afortest.ExpectNone(t, sub, 50*time.Millisecond)

		rec := afortest.Record(t, sub) // armed before the traffic
		sub.Input("a")
		sub.Input("b")
		sub.Input("c")
		if got := rec.Collect(2, time.Second); strings.Join(got, "") != "ab" {
			t.Fatalf("Collect = %v", got)
		}
		f := run(t, func(tb testing.TB) { rec.ExpectNone(10 * time.Millisecond) })
		if f.failed {
			t.Fatalf("ExpectNone failed with nothing new: %s", f.msg)
		}
		go func() {
			time.Sleep(5 * time.Millisecond)
			sub.Input("late")
		}()
		f = run(t, func(tb testing.TB) { afortest.ExpectNone(tb, sub, 10*time.Millisecond) })
		if !f.failed || !strings.Contains(f.msg, "late") {
			t.Fatalf("ExpectNone message = %q", f.msg)
		}
		f = run(t, func(tb testing.TB) { afortest.Collect(tb, sub, 3, 10*time.Millisecond) })
		if !f.failed || !strings.Contains(f.msg, "wanted 3 values") {
			t.Fatalf("Collect message = %q", f.msg)
		}
	})
}

func TestExpectRate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, err := afor.NewRate(50)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		got := afortest.ExpectRate(t, r.Sub, 50, 0.05, time.Second)
		if got < 47.5 || got > 52.5 {
			t.Fatalf("rate = %v", got)
		}
		f := run(t, func(tb testing.TB) { afortest.ExpectRate(tb, r.Sub, 100, 0.1, 500*time.Millisecond) })
		if !f.failed || !strings.Contains(f.msg, "want 100.00 Hz") {
			t.Fatalf("ExpectRate message = %q", f.msg)
		}
	})
}
