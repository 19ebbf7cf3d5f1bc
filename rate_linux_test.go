//go:build linux

package afor

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// A Rate waits on a kernel timer, except in a synctest bubble, whose fake
// clock the kernel does not follow.
func TestRateKernelTimerOutsideBubblesOnly(t *testing.T) {
	kt, err := newKernelTicker(time.Now(), time.Millisecond)
	if err != nil {
		t.Fatalf("no kernel timer on Linux: %v", err)
	}
	kt.close()
	if _, err := kt.wait(); err == nil {
		t.Fatal("wait after close: no error")
	}
	synctest.Test(t, func(t *testing.T) {
		if _, err := newKernelTicker(time.Now(), time.Millisecond); !errors.Is(err, errors.ErrUnsupported) {
			t.Fatalf("in a bubble: err %v, want ErrUnsupported", err)
		}
	})
}

// Every tick of the kernel timer comes on its slot, never before its time,
// and a slow consumer still gets every tick (CatchUp).
func TestRateKernelTicksOnTheirSlots(t *testing.T) {
	const period = time.Millisecond
	r, err := NewRate(1000)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	l := r.Listener(t.Context(), QueueSize(0))
	var prev time.Time
	for i := range 40 {
		if i == 10 {
			time.Sleep(20 * period) // a slow loop body
		}
		tick, err := l.Next(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if now := time.Now(); now.Before(tick) {
			t.Fatalf("tick %d delivered %v before its time", i, tick.Sub(now))
		}
		if i > 0 && tick.Sub(prev) != period {
			t.Fatalf("tick %d is %v after the one before, want %v", i, tick.Sub(prev), period)
		}
		prev = tick
	}
	if n := r.Skipped(); n != 0 {
		t.Fatalf("CatchUp skipped %d ticks", n)
	}
}

// With Skip, the ticks that expired while the rate's goroutine was held
// up are counted and left out, and the next tick is on its slot.
func TestRateKernelSkip(t *testing.T) {
	const period = time.Millisecond
	r, err := NewRate(1000, OnMissed(Skip))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// The callback runs in the rate's goroutine: it holds it up after the
	// first tick and records the second with the count skipped before it.
	var ticks []time.Time
	var skipped0, skipped uint64
	done := make(chan struct{})
	r.OnInput(func(tick time.Time) {
		switch len(ticks) {
		case 0:
			// Ticks may have been skipped before the first one already
			// (the rate's goroutine descheduled on a loaded machine).
			skipped0 = r.Skipped()
			time.Sleep(20 * period)
		case 1:
			skipped = r.Skipped() - skipped0
		case 2:
			return
		}
		ticks = append(ticks, tick)
		if len(ticks) == 2 {
			close(done)
		}
	})
	select {
	case <-done:
	case <-t.Context().Done():
		t.Fatal(t.Context().Err())
	}
	if skipped < 15 {
		t.Fatalf("skipped %d ticks while held up for 20 periods", skipped)
	}
	if got, want := ticks[1].Sub(ticks[0]), time.Duration(skipped+1)*period; got != want {
		t.Fatalf("next tick %v after the first, want %v (%d skipped)", got, want, skipped)
	}
}
