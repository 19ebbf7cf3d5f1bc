package afor_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/afor-go/afor"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func mustEqual[T comparable](t *testing.T, got, want T) {
	t.Helper()
	if got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestWaitForValue(t *testing.T) {
	ctx := t.Context()
	s := afor.NewSub[int]()
	defer s.Close()
	if _, ok := s.Value(); ok {
		t.Fatal("new sub has a value")
	}
	w := s.ArmNext(ctx)            // a waiting WaitForValue is a WaitForNext
	mustEqual(t, s.Input(0), true) // the zero value is a message
	v, err := w.Wait(ctx)
	mustEqual(t, err, nil)
	mustEqual(t, v, 0)
	s.Input(7)
	for range 3 {
		v, err := s.WaitForValue(ctx)
		mustEqual(t, err, nil)
		mustEqual(t, v, 7)
	}
}

func TestWaitForNewTimesOutWithoutInput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := afor.NewSub[string]()
		defer s.Close()
		s.Input("old")
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		defer cancel()
		_, err := s.WaitForNew(ctx)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want deadline exceeded", err)
		}
		mustEqual(t, s.Stats().Waiters, 0)
	})
}

func TestWaitForNewReturnsNewestAfterCall(t *testing.T) {
	ctx := t.Context()
	s := afor.NewSub[int]()
	defer s.Close()
	s.Input(-1)
	w := s.ArmNew(ctx)
	for i := range 5 {
		s.Input(i)
	}
	v, err := w.Wait(ctx)
	mustEqual(t, err, nil)
	mustEqual(t, v, 4)
	mustEqual(t, s.Stats().Waiters, 0)
}

func TestWaitForNextReturnsFirstAfterCall(t *testing.T) {
	ctx := t.Context()
	s := afor.NewSub[string]()
	defer s.Close()
	s.Input("before")
	w := s.ArmNext(ctx)
	s.Input("hello2")
	for range 10 {
		s.Input("later")
	}
	v, err := w.Wait(ctx)
	mustEqual(t, err, nil)
	mustEqual(t, v, "hello2")
	v, err = w.Wait(ctx) // a second Wait returns the same result
	mustEqual(t, err, nil)
	mustEqual(t, v, "hello2")
}

func TestWaitForNextBlockingThenInput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := afor.NewSub[int]()
		defer s.Close()
		got := make(chan int)
		go func() {
			v, _ := s.WaitForNext(t.Context())
			got <- v
		}()
		synctest.Wait() // the goroutine is blocked in WaitForNext
		s.Input(1)
		s.Input(2)
		mustEqual(t, <-got, 1)
	})
}

func TestListenLockStep(t *testing.T) {
	for _, reliable := range []bool{false, true} {
		s := afor.NewSub[int]()
		s.Input(0)
		ctx, cancel := context.WithCancel(t.Context())
		var seq func(func(int) bool)
		if reliable {
			seq = s.ListenReliable(ctx)
		} else {
			seq = s.Listen(ctx)
		}
		var got []int
		for v := range seq {
			got = append(got, v)
			if len(got) == 20 {
				break
			}
			s.Input(len(got))
		}
		cancel()
		mustEqual(t, len(got), 20)
		for i, v := range got {
			mustEqual(t, v, i)
		}
		mustEqual(t, s.Stats().Listeners, 0)
		s.Close()
	}
}

func TestListenYieldsLatest(t *testing.T) {
	s := afor.NewSub[int]()
	defer s.Close()
	s.Input(0)
	var got []int
	next := 1
	for v := range s.Listen(t.Context()) {
		got = append(got, v)
		if len(got) == 20 {
			break
		}
		s.Input(next) // two values per iteration: only the second is seen
		s.Input(next + 1)
		next += 2
	}
	for i, v := range got {
		mustEqual(t, v, 2*i)
	}
	if st := s.Stats(); st.Dropped != 19 {
		t.Fatalf("dropped = %d, want 19", st.Dropped)
	}
}

func TestListenReliableTooFastKeepsOrder(t *testing.T) {
	s := afor.NewSub[int]()
	defer s.Close()
	seq := s.ListenReliable(t.Context(), afor.Fresh(), afor.QueueSize(60))
	s.Input(0)
	s.Input(1)
	next := 2
	var got []int
	for v := range seq {
		got = append(got, v)
		if len(got) == 30 {
			break
		}
		if next < 30 { // two values per iteration: all are kept, in order
			s.Input(next)
			s.Input(next + 1)
			next += 2
		}
	}
	for i, v := range got {
		mustEqual(t, v, i)
	}
	mustEqual(t, len(got), 30)
	mustEqual(t, s.Stats().Dropped, uint64(0))
}

func TestListenReliableOrderAndOverflow(t *testing.T) {
	ctx := t.Context()
	s := afor.NewSub[int]()
	defer s.Close()
	all := s.Listener(ctx, afor.Fresh(), afor.QueueSize(0))
	small := s.Listener(ctx, afor.Fresh())
	for i := 100; i < 115; i++ {
		s.Input(i)
	}
	mustEqual(t, small.Dropped(), uint64(5))
	mustEqual(t, s.Stats().Dropped, uint64(5))
	for want := 105; want < 115; want++ {
		v, err := small.Next(ctx)
		mustEqual(t, err, nil)
		mustEqual(t, v, want)
	}
	mustEqual(t, all.Len(), 15)
	for want := 100; want < 115; want++ {
		v, _ := all.Next(ctx)
		mustEqual(t, v, want)
	}
	mustEqual(t, all.Dropped(), uint64(0))
	all.Stop()
	small.Stop()
	mustEqual(t, s.Stats().Listeners, 0)
}

func TestFreshness(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := afor.NewSub[string]()
		defer s.Close()
		s.Input("current")
		for _, reliable := range []bool{false, true} {
			listen := s.Listen
			if reliable {
				listen = s.ListenReliable
			}
			for v := range listen(t.Context()) {
				mustEqual(t, v, "current")
				break
			}
			ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
			n := 0
			for range listen(ctx, afor.Fresh()) {
				n++
			}
			cancel()
			mustEqual(t, n, 0)
		}
		mustEqual(t, s.Stats().Listeners, 0)
	})
}

func TestRegistrationAtCallTime(t *testing.T) {
	s := afor.NewSub[int]()
	defer s.Close()
	seq := s.ListenReliable(t.Context(), afor.Fresh())
	s.Input(1) // before the first iteration: kept
	s.Input(2)
	var got []int
	for v := range seq {
		got = append(got, v)
		if len(got) == 2 {
			break
		}
	}
	mustEqual(t, slices.Equal(got, []int{1, 2}), true)
	n := 0
	for range seq { // a sequence is used once
		n++
	}
	mustEqual(t, n, 0)
}

func TestCloseWakesWaitsAndEndsLoops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := afor.NewSub[int]()
		waitErr := make(chan error, 2)
		go func() { _, err := s.WaitForNext(t.Context()); waitErr <- err }()
		go func() { _, err := s.WaitForValue(t.Context()); waitErr <- err }()
		seq := s.ListenReliable(t.Context())
		s.Input(1)
		s.Input(2)
		loopDone := make(chan []int)
		go func() {
			var got []int
			for v := range seq {
				got = append(got, v)
			}
			loopDone <- got
		}()
		synctest.Wait()
		s.Close()
		s.Close() // idempotent
		for range 2 {
			if err := <-waitErr; !errors.Is(err, afor.ErrClosed) {
				// WaitForNext/Value may have received 1 before Close
				if err != nil {
					t.Fatalf("wait err = %v", err)
				}
			}
		}
		mustEqual(t, slices.Equal(<-loopDone, []int{1, 2}), true) // queued values are drained
		mustEqual(t, s.Input(3), false)
		mustEqual(t, s.Err(), nil)
		_, err := s.WaitForNext(t.Context())
		mustEqual(t, errors.Is(err, afor.ErrClosed), true)
		select {
		case <-s.Done():
		default:
			t.Fatal("Done not closed")
		}
	})
}

func TestCloseWithErrorWrapsCause(t *testing.T) {
	boom := errors.New("link lost")
	s := afor.NewSub[int]()
	w := s.ArmNext(t.Context())
	s.CloseWithError(boom)
	_, err := w.Wait(t.Context())
	if !errors.Is(err, afor.ErrClosed) || !errors.Is(err, boom) {
		t.Fatalf("err = %v, want ErrClosed and cause", err)
	}
	mustEqual(t, s.Err(), boom)
}

func TestAbandonedWaiterUnregisters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := afor.NewSub[int]()
		defer s.Close()
		ctx, cancel := context.WithCancel(t.Context())
		s.ArmNext(ctx) // never waited
		s.ArmNew(ctx)
		mustEqual(t, s.Stats().Waiters, 2)
		cancel()
		synctest.Wait()
		mustEqual(t, s.Stats().Waiters, 0)

		w := s.ArmNext(t.Context())
		mustEqual(t, w.Stop(), true)
		mustEqual(t, s.Stats().Waiters, 0)
		_, err := w.Wait(t.Context())
		mustEqual(t, errors.Is(err, afor.ErrClosed), true)

		lctx, lcancel := context.WithCancel(t.Context())
		s.ListenReliable(lctx) // never ranged
		mustEqual(t, s.Stats().Listeners, 1)
		lcancel()
		synctest.Wait()
		mustEqual(t, s.Stats().Listeners, 0)
	})
}

func TestLoopEndsOnCtx(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := afor.NewSub[int]()
		defer s.Close()
		ctx, cancel := context.WithTimeout(t.Context(), 55*time.Millisecond)
		defer cancel()
		go func() {
			for i := range 10 {
				time.Sleep(10 * time.Millisecond)
				s.Input(i)
			}
		}()
		var got []int
		for v := range s.ListenReliable(ctx) {
			got = append(got, v)
		}
		mustEqual(t, slices.Equal(got, []int{0, 1, 2, 3, 4}), true)
		time.Sleep(time.Second) // let the producer finish inside the bubble
		mustEqual(t, s.Stats().Listeners, 0)
	})
}

func TestSlowConsumerDoesNotBlock(t *testing.T) {
	ctx := t.Context()
	s := afor.NewSub[int]()
	defer s.Close()
	stuck := s.Listener(ctx) // never read
	fast := s.Listener(ctx, afor.QueueSize(0))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 1000 {
			s.Input(i)
		}
	}()
	<-done
	for want := range 1000 {
		v, err := fast.Next(ctx)
		mustEqual(t, err, nil)
		mustEqual(t, v, want)
	}
	mustEqual(t, stuck.Dropped(), uint64(990))
}

func TestOnInputOrderAndRemove(t *testing.T) {
	s := afor.NewSub[int]()
	defer s.Close()
	var seen []int
	remove := s.OnInput(func(v int) {
		_, has := s.Value()
		if has {
			seen = append(seen, -v) // runs before the value is stored
		} else {
			seen = append(seen, v)
		}
	})
	s.Input(1)
	s.Input(2)
	remove()
	s.Input(3)
	mustEqual(t, slices.Equal(seen, []int{1, -2}), true)
}

func TestPanickingCallbackClosesSub(t *testing.T) {
	s := afor.NewSub[int](afor.WithLogger(discardLogger()))
	w := s.ArmNext(t.Context())
	s.OnInput(func(v int) {
		if v == 2 {
			panic("boom")
		}
	})
	mustEqual(t, s.Input(1), true)
	mustEqual(t, s.Input(2), false)
	mustEqual(t, s.Input(3), false)
	if !errors.Is(s.Err(), afor.ErrCallbackPanic) {
		t.Fatalf("Err = %v", s.Err())
	}
	v, err := w.Wait(t.Context())
	mustEqual(t, err, nil)
	mustEqual(t, v, 1)
	v, _ = s.Value()
	mustEqual(t, v, 1) // the value that panicked was not delivered
}

func TestOnCloseHooks(t *testing.T) {
	s := afor.NewSub[int]()
	n := 0
	s.OnClose(func() { n++ })
	remove := s.OnClose(func() { n += 10 })
	remove()
	s.Close()
	s.Close()
	mustEqual(t, n, 1)
	s.OnClose(func() { n++ }) // already closed: runs at once
	mustEqual(t, n, 2)
}

func TestConcurrentProducersAndConsumers(t *testing.T) {
	ctx := t.Context()
	s := afor.NewSub[int]()
	const producers, per = 4, 500
	var wg sync.WaitGroup
	results := make([]int, 3)
	ready := make(chan struct{})
	for c := range 3 {
		l := s.Listener(ctx, afor.QueueSize(0), afor.Fresh())
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-ready
			for range l.All() {
				results[c]++
			}
		}()
	}
	close(ready)
	var pw sync.WaitGroup
	for p := range producers {
		pw.Add(1)
		go func() {
			defer pw.Done()
			for i := range per {
				s.Input(p*per + i)
				if i%50 == 0 {
					s.Stats()
					s.Value()
				}
			}
		}()
	}
	pw.Wait()
	s.Close()
	wg.Wait()
	for _, n := range results {
		mustEqual(t, n, producers*per)
	}
}

// TestBlockedWaitEndsWithItsRegistrationCtx cancels the ctx a listener or
// waiter was created with while Next or Wait blocks on that same ctx (or one
// derived from it without its own cancellation): the call must return the
// ctx's error.
func TestBlockedWaitEndsWithItsRegistrationCtx(t *testing.T) {
	type key struct{}
	synctest.Test(t, func(t *testing.T) {
		s := afor.NewSub[int]()
		defer s.Close()
		for _, derived := range []bool{false, true} {
			ctx, cancel := context.WithCancel(t.Context())
			waitCtx := ctx
			if derived {
				waitCtx = context.WithValue(ctx, key{}, 1)
			}
			l := s.Listener(ctx)
			w := s.ArmNext(ctx)
			errs := make(chan error, 2)
			go func() { _, err := l.Next(waitCtx); errs <- err }()
			go func() { _, err := w.Wait(waitCtx); errs <- err }()
			synctest.Wait() // both blocked
			cancel()
			for range 2 {
				mustEqual(t, errors.Is(<-errs, context.Canceled), true)
			}
			mustEqual(t, s.Stats().Listeners, 0)
			mustEqual(t, s.Stats().Waiters, 0)
		}
	})
}

// TestNextWithItsOwnCtx calls Next repeatedly with one ctx that is not the
// listener's (the listener then watches it) and once with a fresh ctx: a
// cancelled ctx ends only that wait, and the listener goes on.
func TestNextWithItsOwnCtx(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := afor.NewSub[int]()
		defer s.Close()
		l := s.Listener(t.Context())
		defer l.Stop()
		ctx, cancel := context.WithCancel(t.Context())
		for i := range 3 {
			go s.Input(i)
			v, err := l.Next(ctx)
			mustEqual(t, err, nil)
			mustEqual(t, v, i)
		}
		errc := make(chan error, 1)
		go func() { _, err := l.Next(ctx); errc <- err }()
		synctest.Wait() // blocked on the watched ctx
		cancel()
		mustEqual(t, errors.Is(<-errc, context.Canceled), true)
		_, err := l.Next(ctx) // still cancelled
		mustEqual(t, errors.Is(err, context.Canceled), true)

		other, cancelOther := context.WithCancel(t.Context())
		go func() { _, err := l.Next(other); errc <- err }()
		synctest.Wait()
		cancelOther()
		mustEqual(t, errors.Is(<-errc, context.Canceled), true)

		s.Input(7) // the listener survived both
		v, err := l.Next(t.Context())
		mustEqual(t, err, nil)
		mustEqual(t, v, 7)
		mustEqual(t, s.Stats().Listeners, 1)
	})
}
