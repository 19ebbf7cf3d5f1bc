package afor_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/afor-go/afor"
)

// cancelled returns a ctx that has already ended.
func cancelled(t *testing.T) context.Context {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	return ctx
}

// A call whose ctx already ended does nothing and returns ctx's error, even
// when it could succeed at once; it takes nothing either.
func TestCancelledCtxDoesNoWork(t *testing.T) {
	dead := cancelled(t)
	s := afor.NewSub[int]()
	defer s.Close()
	s.Input(7)

	if v, err := s.WaitForValue(dead); !errors.Is(err, context.Canceled) {
		t.Fatalf("WaitForValue with a value held = %v, %v; want context.Canceled", v, err)
	}
	for v := range s.Listen(dead) {
		t.Fatalf("Listen yielded %v on a cancelled ctx", v)
	}
	for v := range s.ListenReliable(dead) {
		t.Fatalf("ListenReliable yielded %v on a cancelled ctx", v)
	}
	if _, err := s.WaitForNew(dead); !errors.Is(err, context.Canceled) {
		t.Fatalf("WaitForNew: %v", err)
	}
	if _, err := s.WaitForNext(dead); !errors.Is(err, context.Canceled) {
		t.Fatalf("WaitForNext: %v", err)
	}
	mustEqual(t, s.Stats().Listeners, 0)
	mustEqual(t, s.Stats().Waiters, 0)

	// A listener keeps its queue for a call with a live ctx.
	l := s.Listener(t.Context())
	defer l.Stop()
	if _, err := l.Next(dead); !errors.Is(err, context.Canceled) {
		t.Fatalf("Next: %v", err)
	}
	v, err := l.Next(t.Context())
	mustEqual(t, err, nil)
	mustEqual(t, v, 7)

	// An armed waiter keeps the value it got.
	w := s.ArmNext(t.Context())
	s.Input(8)
	if _, err := w.Wait(dead); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait: %v", err)
	}
	v, err = w.Wait(t.Context())
	mustEqual(t, err, nil)
	mustEqual(t, v, 8)

	ran := false
	if _, err := afor.SoftWaitFor(dead, time.Second, func(context.Context) (int, error) { ran = true; return 1, nil }); !errors.Is(err, context.Canceled) || ran {
		t.Fatalf("SoftWaitFor: err %v, ran %v", err, ran)
	}
	if _, err := afor.SoftTimeout(dead, time.Second, func(context.Context) error { ran = true; return nil }); !errors.Is(err, context.Canceled) || ran {
		t.Fatalf("SoftTimeout: err %v, ran %v", err, ran)
	}
}

// A loop started on a cancelled ctx takes none of a server's requests: they
// stay for the next listener instead of being failed as dropped.
func TestCancelledLoopLeavesServerBacklog(t *testing.T) {
	srv := afor.NewServer[int, int]()
	defer srv.Close()
	var failed error
	srv.Input(afor.NewResponder(1, func(_ int, err error) error { failed = err; return nil }))
	for range srv.ListenReliable(cancelled(t)) {
		t.Fatal("yielded a request on a cancelled ctx")
	}
	mustEqual(t, failed, nil)
	r, err := srv.WaitForValue(t.Context())
	mustEqual(t, err, nil)
	mustEqual(t, r.Request, 1)
}

// A loop whose ctx ends stops yielding, even values already queued.
func TestLoopYieldsNothingAfterCtxEnds(t *testing.T) {
	s := afor.NewSub[int]()
	defer s.Close()
	s.Input(0)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var got []int
	for v := range s.ListenReliable(ctx) {
		got = append(got, v)
		s.Input(1)
		s.Input(2)
		cancel()
	}
	if len(got) != 1 || got[0] != 0 {
		t.Fatalf("yielded %v, want [0]", got)
	}
}

func TestNegativeQueueSizePanics(t *testing.T) {
	for name, f := range map[string]func(){
		"QueueSize":            func() { afor.QueueSize(-1) },
		"WithDefaultQueueSize": func() { afor.WithDefaultQueueSize(-1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s(-1) did not panic", name)
				}
			}()
			f()
		}()
	}
}

// The zero value of Sub is usable, as its doc says.
func TestZeroSubIsUsable(t *testing.T) {
	var s afor.Sub[int]
	l := s.Listener(t.Context())
	for i := range afor.DefaultQueueSize + 1 {
		mustEqual(t, s.Input(i), true)
	}
	mustEqual(t, l.Dropped(), uint64(1)) // the default queue size applies
	v, err := s.WaitForValue(t.Context())
	mustEqual(t, err, nil)
	mustEqual(t, v, afor.DefaultQueueSize)
	done := s.Done()
	s.Close()
	<-done
	mustEqual(t, s.Input(1), false)
	if _, err := s.WaitForNext(t.Context()); !errors.Is(err, afor.ErrClosed) {
		t.Fatalf("WaitForNext after Close: %v", err)
	}
}
