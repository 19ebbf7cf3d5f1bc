// Package afortest helps test code that uses afor.
//
// For users' own go test suites it offers assertions on topic traffic: a
// [Recorder] armed before the traffic starts, and shortcuts [Expect],
// [ExpectNone], [Collect] and [ExpectRate]. On failure they print what was
// seen.
//
// For transports it offers the shared conformance suites [RunPubSub] and
// [RunReqRep], which every afor transport runs against itself.
package afortest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/afor-go/afor"
)

// Recorder records, in order, every value a sub receives after the recorder
// was created.
type Recorder[T any] struct {
	t      testing.TB
	sub    *afor.Sub[T]
	remove func()

	mu     sync.Mutex
	values []T
	times  []time.Time
	wake   chan struct{}
}

// Record starts recording sub's values; recording stops at the end of the
// test.
func Record[T any](t testing.TB, sub *afor.Sub[T]) *Recorder[T] {
	t.Helper()
	r := &Recorder[T]{t: t, sub: sub, wake: make(chan struct{}, 1)}
	r.remove = sub.OnInput(func(v T) {
		r.mu.Lock()
		r.values = append(r.values, v)
		r.times = append(r.times, time.Now())
		r.mu.Unlock()
		select {
		case r.wake <- struct{}{}:
		default:
		}
	})
	t.Cleanup(r.Stop)
	return r
}

// Stop ends the recording.
func (r *Recorder[T]) Stop() { r.remove() }

// Values returns a copy of the values recorded so far.
func (r *Recorder[T]) Values() []T {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]T(nil), r.values...)
}

// waitFor waits until cond holds for the recorded values (given from index
// from), within d or until the sub closes; it reports whether it held.
func (r *Recorder[T]) waitFor(d time.Duration, cond func(vals []T) bool) bool {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		ok := cond(r.values)
		r.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-r.wake:
		case <-deadline.C:
			r.mu.Lock()
			defer r.mu.Unlock()
			return cond(r.values)
		case <-r.sub.Done():
			r.mu.Lock()
			defer r.mu.Unlock()
			return cond(r.values)
		}
	}
}

// Expect fails the test unless a recorded value (already recorded, or
// arriving within d) satisfies match, and returns the first that does. A
// nil match accepts any value.
func (r *Recorder[T]) Expect(d time.Duration, match func(T) bool) T {
	r.t.Helper()
	idx := -1
	r.waitFor(d, func(vals []T) bool {
		for i, v := range vals {
			if match == nil || match(v) {
				idx = i
				return true
			}
		}
		return false
	})
	vals := r.Values()
	if idx < 0 {
		r.t.Fatalf("afortest: no matching value on %s within %v; %s", r.sub, d, describe(vals))
		var zero T
		return zero
	}
	return vals[idx]
}

// ExpectNone fails the test if any value is recorded within d from now.
func (r *Recorder[T]) ExpectNone(d time.Duration) {
	r.t.Helper()
	before := len(r.Values())
	if r.waitFor(d, func(vals []T) bool { return len(vals) > before }) {
		r.t.Fatalf("afortest: expected nothing on %s for %v; %s", r.sub, d, describe(r.Values()[before:]))
	}
}

// Collect waits until n values are recorded, within d, and returns the
// first n.
func (r *Recorder[T]) Collect(n int, d time.Duration) []T {
	r.t.Helper()
	if !r.waitFor(d, func(vals []T) bool { return len(vals) >= n }) {
		r.t.Fatalf("afortest: wanted %d values on %s within %v; %s", n, r.sub, d, describe(r.Values()))
	}
	return r.Values()[:n]
}

// Rate returns the observed frequency in Hz of the values recorded so far
// (0 with fewer than two values).
func (r *Recorder[T]) Rate() float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.times)
	if n < 2 {
		return 0
	}
	span := r.times[n-1].Sub(r.times[0])
	if span <= 0 {
		return 0
	}
	return float64(n-1) / span.Seconds()
}

// ExpectRate records for window and fails the test unless the observed
// frequency is within tolerance (a fraction, 0.1 for 10 %) of hz. It returns
// the observed frequency.
func (r *Recorder[T]) ExpectRate(hz, tolerance float64, window time.Duration) float64 {
	r.t.Helper()
	r.waitFor(window, func([]T) bool { return false })
	got := r.Rate()
	if got < hz*(1-tolerance) || got > hz*(1+tolerance) {
		r.t.Fatalf("afortest: rate on %s = %.2f Hz, want %.2f Hz ± %.0f%% (%d values in %v)",
			r.sub, got, hz, tolerance*100, len(r.Values()), window)
	}
	return got
}

// Expect waits up to d for a value of sub satisfying match (the current
// value counts) and returns it, failing the test otherwise.
func Expect[T any](t testing.TB, sub *afor.Sub[T], d time.Duration, match func(T) bool) T {
	t.Helper()
	r := Record(t, sub)
	defer r.Stop()
	if v, ok := sub.Value(); ok && (match == nil || match(v)) {
		return v
	}
	return r.Expect(d, match)
}

// ExpectNone fails the test if sub receives any value within d.
func ExpectNone[T any](t testing.TB, sub *afor.Sub[T], d time.Duration) {
	t.Helper()
	r := Record(t, sub)
	defer r.Stop()
	r.ExpectNone(d)
}

// Collect returns the next n values of sub, failing the test if they do not
// arrive within d.
func Collect[T any](t testing.TB, sub *afor.Sub[T], n int, d time.Duration) []T {
	t.Helper()
	r := Record(t, sub)
	defer r.Stop()
	return r.Collect(n, d)
}

// ExpectRate measures sub's frequency over window and fails the test unless
// it is within tolerance (a fraction) of hz.
func ExpectRate[T any](t testing.TB, sub *afor.Sub[T], hz, tolerance float64, window time.Duration) float64 {
	t.Helper()
	r := Record(t, sub)
	defer r.Stop()
	return r.ExpectRate(hz, tolerance, window)
}

// describe prints the values seen, the last 20 at most.
func describe[T any](vals []T) string {
	if len(vals) == 0 {
		return "saw nothing"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "saw %d value(s)", len(vals))
	start := 0
	if len(vals) > 20 {
		start = len(vals) - 20
		b.WriteString(", the last 20")
	}
	b.WriteString(":")
	for _, v := range vals[start:] {
		fmt.Fprintf(&b, "\n\t%v", v)
	}
	return b.String()
}

// within returns a context for one wait of the suites.
func within(t *testing.T, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(t.Context(), d)
}
