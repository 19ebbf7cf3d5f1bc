package ros

import (
	"testing"
	"time"

	"github.com/afor-go/afor/ros/internal/rmw"
)

func TestLostTracker(t *testing.T) {
	var got [][2]int
	l := lostTracker{report: func(total, change int) { got = append(got, [2]int{total, change}) }}
	a, b := rmw.GID{1}, rmw.GID{2}
	for _, m := range []struct {
		gid rmw.GID
		seq int64
	}{
		{a, 5}, // a late joiner: where a starts, no loss
		{a, 6},
		{a, 9},  // 7 and 8 lost
		{a, 8},  // late history: not a gap, not a reset
		{a, 10}, // in order again
		{b, 1},
		{b, 2},
		{b, 4},  // 3 lost
		{a, 0},  // unnumbered: ignored
		{a, 12}, // 11 lost
	} {
		l.saw(m.gid, m.seq)
	}
	want := [][2]int{{2, 2}, {3, 1}, {4, 1}}
	if len(got) != len(want) {
		t.Fatalf("reports %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("report %d: %v, want %v", i, got[i], want[i])
		}
	}
}

// The tracker forgets past maxTrackedPublishers publishers, then starts
// again: memory stays bounded, nothing is counted across the reset.
func TestLostTrackerBounded(t *testing.T) {
	reports := 0
	l := lostTracker{report: func(int, int) { reports++ }}
	for i := range maxTrackedPublishers + 10 {
		var g rmw.GID
		g[0], g[1] = byte(i), byte(i>>8)
		l.saw(g, 1)
	}
	if len(l.last) >= maxTrackedPublishers {
		t.Errorf("%d publishers tracked", len(l.last))
	}
	if reports != 0 {
		t.Errorf("%d reports", reports)
	}
}

// BenchmarkEventsPerMessage measures what the QoS events add to each
// message a subscription receives: the lost-message bookkeeping always,
// the deadline timer's hit when a deadline is set. Compare with
// BenchmarkEcho's per-hop cost.
func BenchmarkEventsPerMessage(b *testing.B) {
	b.Run("lost", func(b *testing.B) {
		l := lostTracker{report: func(int, int) {}}
		gid := rmw.GID{1}
		seq := int64(0)
		for b.Loop() {
			seq++
			l.saw(gid, seq)
		}
	})
	b.Run("deadline", func(b *testing.B) { // a subscription's: the time received is known
		d := newLeaseTimer(time.Hour, true, func(int, int) {})
		defer d.stop()
		at := time.Now()
		for b.Loop() {
			d.hitAt(at)
		}
	})
	b.Run("deadline-clock", func(b *testing.B) { // a publisher's: reads the clock
		d := newLeaseTimer(time.Hour, true, func(int, int) {})
		defer d.stop()
		for b.Loop() {
			d.hit()
		}
	})
}
