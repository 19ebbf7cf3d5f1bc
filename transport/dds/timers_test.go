package dds

import (
	"context"
	"math"
	"testing"
	"time"
)

func TestDueByOnlyLowers(t *testing.T) {
	p := &Participant{wake: make(chan struct{}, 1)}
	p.wakeAt.Store(math.MaxInt64)
	t0 := time.Unix(1000, 0)
	p.dueBy(t0)
	if got := p.wakeAt.Load(); got != t0.UnixNano() {
		t.Fatalf("wakeAt = %d, want %d", got, t0.UnixNano())
	}
	if len(p.wake) != 1 {
		t.Fatal("dueBy did not signal the loop")
	}
	<-p.wake
	p.dueBy(t0.Add(time.Second))
	if got := p.wakeAt.Load(); got != t0.UnixNano() || len(p.wake) != 0 {
		t.Fatalf("a later dueBy changed wakeAt to %d or signalled", got)
	}
	p.dueBy(t0.Add(-time.Second))
	if got := p.wakeAt.Load(); got != t0.Add(-time.Second).UnixNano() || len(p.wake) != 1 {
		t.Fatalf("an earlier dueBy gave wakeAt %d, signalled %v", got, len(p.wake) == 1)
	}
}

func TestEarliest(t *testing.T) {
	a, b := time.Unix(10, 0), time.Unix(20, 0)
	for _, c := range []struct{ x, y, want time.Time }{
		{a, b, a}, {b, a, a}, {time.Time{}, b, b}, {a, time.Time{}, a}, {time.Time{}, time.Time{}, time.Time{}},
	} {
		if got := earliest(c.x, c.y); !got.Equal(c.want) {
			t.Errorf("earliest(%v, %v) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
}

// TestIdleTickSleeps checks that a participant with a matched reader and
// writer and nothing unacknowledged does not need its timers before the
// idle period, and that an unacknowledged sample brings the next tick back
// to the heartbeat schedule.
func TestIdleTickSleeps(t *testing.T) {
	p := newTestParticipant(t, Config{DomainID: nextDomain(), Range: RangeLocalhost})
	tp := Topic{Name: "timers/idle", TypeName: "Bytes"}
	w, err := NewWriter(p, tp, QoS{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(p, tp, QoS{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := w.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := r.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	next := r.Sub().ArmNext(ctx)
	if err := w.Write(ctx, []byte{0, 1, 0, 0, 1, 2, 3, 4}); err != nil {
		t.Fatal(err)
	}
	if _, err := next.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	// The reader acknowledges on the writer's next HEARTBEAT; the
	// writer's tick is due until then.
	for {
		w.mu.Lock()
		unacked := w.unacked()
		due := w.nextTick(time.Now())
		w.mu.Unlock()
		if !unacked {
			break
		}
		if time.Until(due) > heartbeatPeriod+tickPeriod {
			t.Fatalf("unacknowledged writer due in %v", time.Until(due))
		}
		select {
		case <-ctx.Done():
			t.Fatal("sample never acknowledged")
		case <-time.After(10 * time.Millisecond):
		}
	}
	// Everything is acknowledged and every reliable writer has sent its
	// HEARTBEAT: only announcements and leases are left.
	for {
		now := time.Now()
		if d := w.tick(now); !d.IsZero() {
			t.Fatalf("idle writer due at %v", d.Sub(now))
		}
		d := r.tick(now)
		if d.IsZero() {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("idle reader still due in %v", d.Sub(now))
		case <-time.After(10 * time.Millisecond):
		}
	}
	now := time.Now()
	if d := p.tick(now).Sub(now); d <= tickPeriod {
		t.Fatalf("idle participant due again in %v", d)
	}
}
