package afor

import (
	"fmt"
	"math"
	"sync/atomic"
	"time"
)

// MissedTicks says what a [Rate] does with ticks whose time passed while
// nobody could deliver them (the process was descheduled, the machine was
// suspended).
type MissedTicks int

const (
	// CatchUp delivers every missed tick at once, each with its own
	// scheduled time, as the Python afor does. Listen collapses such a burst
	// to the latest tick; ListenReliable runs the loop body for each.
	CatchUp MissedTicks = iota
	// Skip drops ticks that are a period or more overdue and resumes at the
	// next slot still in the future, so ticks never come in a burst; the
	// dropped ticks are counted in [Rate.Skipped].
	Skip
)

// RateOption configures a [Rate].
type RateOption func(*rateOptions)

type rateOptions struct {
	missed MissedTicks
	subOps []Option
}

// OnMissed chooses the policy for missed ticks; the default is [CatchUp].
func OnMissed(m MissedTicks) RateOption { return func(o *rateOptions) { o.missed = m } }

// RateSubOptions passes options to the rate's [Sub].
func RateSubOptions(opts ...Option) RateOption {
	return func(o *rateOptions) { o.subOps = append(o.subOps, opts...) }
}

// Rate is a [Sub] of tick times that never drifts: tick k is due at
// start + k*period on the monotonic clock, whatever the time spent between
// ticks, and carries that scheduled time as its value. The first tick is due
// one period after NewRate. One goroutine drives it until [Sub.Close].
//
// On Linux that goroutine waits on a kernel timer (timerfd) through Go's
// network poller: each tick wakes the process once, within microseconds of
// its time. Go's timers, which an idle Go process waits for in whole
// milliseconds, would wake it twice and up to a millisecond late. Elsewhere,
// and in a testing/synctest bubble (whose fake clock only Go's timers
// follow), the rate uses Go's timers.
//
//	rate, _ := afor.NewRate(100)
//	defer rate.Close()
//	for range rate.ListenReliable(ctx) { // every tick, 100 Hz
//		step()
//	}
type Rate struct {
	*Sub[time.Time]
	period  time.Duration
	skipped atomic.Uint64
}

// NewRate starts a rate of hz ticks per second. hz must be positive, finite,
// and give a period of at least one nanosecond; otherwise the error matches
// [ErrInvalidRate].
func NewRate(hz float64, opts ...RateOption) (*Rate, error) {
	if math.IsNaN(hz) || math.IsInf(hz, 0) || hz <= 0 || hz > 1e9 {
		return nil, fmt.Errorf("%w: %v Hz (want a finite frequency in (0, 1e9])", ErrInvalidRate, hz)
	}
	o := rateOptions{}
	for _, opt := range opts {
		opt(&o)
	}
	if o.missed != CatchUp && o.missed != Skip {
		return nil, fmt.Errorf("%w: unknown missed-tick policy %d", ErrInvalidRate, o.missed)
	}
	subOpts := append([]Option{WithName(fmt.Sprintf("rate %gHz", hz))}, o.subOps...)
	r := &Rate{
		Sub:    NewSub[time.Time](subOpts...),
		period: time.Duration(float64(time.Second) / hz),
	}
	start := time.Now()
	if kt, err := newKernelTicker(start, r.period); err == nil {
		r.OnClose(kt.close)
		go r.runKernel(kt, start, o.missed)
		return r, nil
	}
	stop := make(chan struct{})
	r.OnClose(func() { close(stop) })
	go r.run(start, o.missed, stop)
	return r, nil
}

// Period returns the time between ticks.
func (r *Rate) Period() time.Duration { return r.period }

// Skipped returns how many ticks the [Skip] policy left out.
func (r *Rate) Skipped() uint64 { return r.skipped.Load() }

// runKernel delivers the ticks of a kernel timer (rate_linux.go) until it
// is closed.
func (r *Rate) runKernel(kt *kernelTicker, start time.Time, missed MissedTicks) {
	for k := int64(1); ; {
		n, err := kt.wait()
		if err != nil {
			return
		}
		if missed == Skip && n > 1 {
			// Ticks k .. k+n-2 are a period or more overdue.
			r.skipped.Add(n - 1)
			k += int64(n - 1)
			n = 1
		}
		for ; n > 0; n-- {
			if !r.Input(start.Add(time.Duration(k) * r.period)) {
				return
			}
			k++
		}
	}
}

// run delivers the ticks with Go's timers until stop is closed.
func (r *Rate) run(start time.Time, missed MissedTicks, stop <-chan struct{}) {
	timer := time.NewTimer(r.period)
	defer timer.Stop()
	for k := int64(1); ; k++ {
		due := start.Add(time.Duration(k) * r.period)
		if wait := time.Until(due); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-stop:
				return
			}
		} else {
			select {
			case <-stop:
				return
			default:
			}
			if late := -wait; missed == Skip && late >= r.period {
				// Ticks k .. k+n are all in the past: skip them and wait
				// for the next slot still in the future.
				n := int64(late / r.period)
				r.skipped.Add(uint64(n + 1))
				k += n
				continue
			}
		}
		if !r.Input(due) {
			return
		}
	}
}
