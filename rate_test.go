package afor_test

import (
	"errors"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/afor-go/afor"
)

func TestRateRejectsBadFrequencies(t *testing.T) {
	for _, hz := range []float64{0, -1, math.NaN(), math.Inf(1), math.Inf(-1), 2e9} {
		if _, err := afor.NewRate(hz); !errors.Is(err, afor.ErrInvalidRate) {
			t.Errorf("NewRate(%v) err = %v, want ErrInvalidRate", hz, err)
		}
	}
	if _, err := afor.NewRate(10, afor.OnMissed(7)); !errors.Is(err, afor.ErrInvalidRate) {
		t.Errorf("unknown policy err = %v", err)
	}
}

func TestRateTenTicksAt100Hz(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		r, err := afor.NewRate(100)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		mustEqual(t, r.Period(), 10*time.Millisecond)
		n := 0
		for tick := range r.ListenReliable(t.Context()) {
			n++
			mustEqual(t, tick.Sub(start), time.Duration(n)*10*time.Millisecond)
			if n == 10 {
				break
			}
		}
		mustEqual(t, time.Since(start), 100*time.Millisecond)
	})
}

func TestRateDoesNotDrift(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		r, _ := afor.NewRate(100)
		defer r.Close()
		n := 0
		for range r.ListenReliable(t.Context()) {
			time.Sleep(3 * time.Millisecond) // work inside each period
			n++
			if n == 1000 {
				break
			}
		}
		mustEqual(t, time.Since(start), 10*time.Second+3*time.Millisecond)
	})
}

func TestRateCatchUpDeliversMissedTicks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		r, _ := afor.NewRate(100)
		defer r.Close()
		l := r.Listener(t.Context(), afor.QueueSize(0))
		time.Sleep(55 * time.Millisecond) // the consumer is busy
		var ticks []time.Duration
		for range 7 {
			tick, err := l.Next(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			ticks = append(ticks, tick.Sub(start))
		}
		for i, d := range ticks {
			mustEqual(t, d, time.Duration(i+1)*10*time.Millisecond)
		}
		mustEqual(t, time.Since(start), 70*time.Millisecond)
		mustEqual(t, r.Skipped(), uint64(0))
	})
}

func TestRateSkipPolicy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		r, _ := afor.NewRate(100, afor.OnMissed(afor.Skip))
		defer r.Close()
		// Block the rate's own goroutine by making its Input slow: an
		// OnInput callback that sleeps on the first tick.
		first := true
		r.OnInput(func(time.Time) {
			if first {
				first = false
				time.Sleep(35 * time.Millisecond)
			}
		})
		l := r.Listener(t.Context(), afor.QueueSize(0))
		var ticks []time.Duration
		for range 3 {
			tick, _ := l.Next(t.Context())
			ticks = append(ticks, tick.Sub(start))
		}
		// tick 1 at 10ms returns at 45ms; ticks 2..4 (20..40ms) are more
		// than a period late and skipped; the next future slot is 50ms.
		want := []time.Duration{10 * time.Millisecond, 50 * time.Millisecond, 60 * time.Millisecond}
		for i := range want {
			mustEqual(t, ticks[i], want[i])
		}
		mustEqual(t, r.Skipped(), uint64(3))
	})
}

func TestRateCloseStopsGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, _ := afor.NewRate(1000)
		r.Close()
		synctest.Wait() // the bubble fails if the rate goroutine leaked
		_, err := r.WaitForNext(t.Context())
		mustEqual(t, errors.Is(err, afor.ErrClosed), true)
	})
}
