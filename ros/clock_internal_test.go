package ros

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/msgs/rosgraph_msgs"
)

func TestSimTimeMemory(t *testing.T) {
	a, b := memPair(t)
	simTimeSuite(t, a, b)
}

func TestSimTimeZenoh(t *testing.T) {
	a, b := zenohPair(t)
	simTimeSuite(t, a, b)
}

func simAt(sec float64) time.Time { return time.Unix(0, int64(sec*1e9)).UTC() }

// simTimeSuite drives a node of ca on sim time by /clock messages
// published from cb.
func simTimeSuite(t *testing.T, ca, cb *Context) {
	ctx := paramCtx(t)
	n := mustNode(t, ca, "sim", WithArgs([]string{"--ros-args", "-p", "use_sim_time:=true"}))
	clock := n.Clock()
	if !clock.IsSimTime() {
		t.Fatal("use_sim_time:=true did not switch to sim time")
	}
	if got := clock.Now(); !got.Equal(simAt(0)) {
		t.Errorf("Now before any /clock = %v, want the epoch", got)
	}
	src := mustNode(t, cb, "clock_source")
	pub, err := NewPublisher[rosgraph_msgs.Clock](src, "/clock", QoSClock)
	if err != nil {
		t.Fatal(err)
	}
	waitSubscribed(t, ctx, src, "/clock")
	publish := func(sec float64) {
		t.Helper()
		if err := pub.Publish(ctx, &rosgraph_msgs.Clock{Clock: timeMsg(simAt(sec))}); err != nil {
			t.Fatal(err)
		}
	}
	// Best effort: publish until the clock reads sec (a time before the
	// current one included).
	advance := func(sec float64) {
		t.Helper()
		for {
			clock.mu.Lock()
			changed := clock.changed
			clock.mu.Unlock()
			if clock.Now().Equal(simAt(sec)) {
				return
			}
			publish(sec)
			select {
			case <-changed:
			case <-time.After(50 * time.Millisecond):
			case <-ctx.Done():
				t.Fatalf("the clock never read %v: it reads %v", sec, clock.Now())
			}
		}
	}
	advance(1.5)
	if got := clock.Now(); !got.Equal(simAt(1.5)) {
		t.Fatalf("Now = %v", got)
	}

	// Sleep wakes when /clock passes its deadline.
	slept := make(chan error, 1)
	wake := clock.Now().Add(2 * time.Second)
	go func() { slept <- clock.SleepUntil(ctx, wake) }()

	rate, err := clock.NewRate(10)
	if err != nil {
		t.Fatal(err)
	}
	ticks := rate.Listener(ctx, afor.QueueSize(0))
	expect := func(secs ...float64) {
		t.Helper()
		for _, s := range secs {
			tick, err := ticks.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !tick.Equal(simAt(s)) {
				t.Fatalf("tick at %v, want %v", tick.Sub(simAt(0)), s)
			}
		}
	}
	advance(1.6)
	expect(1.6)
	advance(1.95) // a jump over several periods: each tick, no drift
	expect(1.7, 1.8, 1.9)
	advance(2.0)
	expect(2.0)
	select {
	case err := <-slept:
		t.Fatalf("Sleep(2s) from 1.5 returned at 2.0: %v", err)
	default:
	}
	advance(3.5)
	if err := <-slept; err != nil {
		t.Fatalf("Sleep: %v", err)
	}
	expect(2.1, 2.2, 2.3, 2.4, 2.5, 2.6, 2.7, 2.8, 2.9, 3.0, 3.1, 3.2, 3.3, 3.4, 3.5)
	// Time going backwards (a replay restarting) restarts the rate.
	advance(0.5)
	advance(0.75)
	expect(0.6, 0.7)

	// use_sim_time off: back to the system clock.
	if err := n.SetParametersAtomically(Parameter{Name: "use_sim_time", Value: false}); err != nil {
		t.Fatal(err)
	}
	if clock.IsSimTime() || time.Since(clock.Now()) > time.Hour {
		t.Errorf("after use_sim_time false: sim %v, now %v", clock.IsSimTime(), clock.Now())
	}
	if err := n.SetParametersAtomically(Parameter{Name: "use_sim_time", Value: int64(1)}); !errors.Is(err, ErrParameterType) {
		t.Errorf("use_sim_time as an integer: %v", err)
	}
	rate.Close()
}

func TestSystemClockSleep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newClock(nil)
		start := time.Now()
		if err := c.Sleep(context.Background(), 3*time.Second); err != nil {
			t.Fatal(err)
		}
		if got := time.Since(start); got != 3*time.Second {
			t.Errorf("slept %v", got)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if err := c.SleepUntil(ctx, time.Now().Add(time.Hour)); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("SleepUntil past the ctx: %v", err)
		}
		if err := c.SleepUntil(context.Background(), time.Now().Add(-time.Hour)); err != nil {
			t.Errorf("SleepUntil in the past: %v", err)
		}
	})
}

func TestClockRateSystemTime(t *testing.T) {
	a, _ := memPair(t)
	n := mustNode(t, a, "rate")
	if _, err := n.Clock().NewRate(0); !errors.Is(err, afor.ErrInvalidRate) {
		t.Errorf("NewRate(0): %v", err)
	}
	rate, err := n.Clock().NewRate(1000)
	if err != nil {
		t.Fatal(err)
	}
	ctx := paramCtx(t)
	l := rate.Listener(ctx, afor.QueueSize(0))
	first, err := l.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	second, err := l.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := second.Sub(first); d != time.Millisecond || rate.Period() != time.Millisecond {
		t.Errorf("ticks %v apart, period %v", d, rate.Period())
	}
	_ = n.Close() // closes the rate: the queued ticks, then ErrClosed
	for {
		if _, err := l.Next(ctx); err != nil {
			if !errors.Is(err, ErrClosed) {
				t.Errorf("after the node closed: %v", err)
			}
			break
		}
	}
}
