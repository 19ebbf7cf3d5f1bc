package afor_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/afor-go/afor"
)

func TestSoftWaitFor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := afor.NewSub[int]()
		defer s.Close()
		start := time.Now()
		_, err := afor.SoftWaitFor(t.Context(), 50*time.Millisecond, s.WaitForNext)
		if !errors.Is(err, afor.ErrSoftTimeout) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want soft timeout", err)
		}
		mustEqual(t, time.Since(start), 50*time.Millisecond)
		mustEqual(t, s.Stats().Waiters, 0) // the wait was cancelled

		s.Input(3)
		v, err := afor.SoftWaitFor(t.Context(), time.Second, s.WaitForValue)
		mustEqual(t, err, nil)
		mustEqual(t, v, 3)

		boom := errors.New("boom")
		_, err = afor.SoftWaitFor(t.Context(), time.Second, func(context.Context) (int, error) { return 0, boom })
		mustEqual(t, err, boom)

		// An outer cancellation is never reported as a soft timeout.
		outer, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
		defer cancel()
		_, err = afor.SoftWaitFor(outer, time.Second, s.WaitForNext)
		mustEqual(t, errors.Is(err, afor.ErrSoftTimeout), false)
		mustEqual(t, errors.Is(err, context.DeadlineExceeded), true)
	})
}

func TestSoftTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reached := false
		timedOut, err := afor.SoftTimeout(t.Context(), time.Millisecond, func(ctx context.Context) error {
			select {
			case <-time.After(time.Second):
				reached = true
			case <-ctx.Done():
				return ctx.Err()
			}
			return nil
		})
		mustEqual(t, timedOut, true)
		mustEqual(t, err, nil)
		mustEqual(t, reached, false)

		timedOut, err = afor.SoftTimeout(t.Context(), time.Second, func(ctx context.Context) error { return nil })
		mustEqual(t, timedOut, false)
		mustEqual(t, err, nil)

		outer, cancel := context.WithCancel(t.Context())
		cancel()
		timedOut, err = afor.SoftTimeout(outer, time.Second, func(ctx context.Context) error {
			<-ctx.Done()
			return ctx.Err()
		})
		mustEqual(t, timedOut, false)
		mustEqual(t, errors.Is(err, context.Canceled), true)
	})
}
