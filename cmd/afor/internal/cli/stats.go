package cli

import (
	"fmt"
	"math"
	"time"
)

// hzStats computes what `ros2 topic hz` prints from the arrival times of
// messages: the mean rate, the min, max and standard deviation of the
// intervals, over a window of the last intervals.
type hzStats struct {
	window      int
	last        time.Time // arrival of the latest message
	intervals   []time.Duration
	lastPrinted time.Time // the arrival time of the last report
}

// add records a message that arrived at t. A time before the previous one
// (a clock reset) starts over.
func (s *hzStats) add(t time.Time) {
	if s.last.IsZero() || t.Before(s.last) {
		s.last = t
		s.intervals = s.intervals[:0]
		return
	}
	s.intervals = append(s.intervals, t.Sub(s.last))
	s.last = t
	if len(s.intervals) > s.window {
		s.intervals = s.intervals[1:]
	}
}

// report returns the report to print after the latest message, as ros2
// does: none for the first message with an interval, then one when a
// second of arrivals has passed since the last report.
func (s *hzStats) report() (string, bool) {
	switch {
	case len(s.intervals) == 0:
		return "", false
	case s.lastPrinted.IsZero():
		s.lastPrinted = s.last
		return "", false
	case s.last.Before(s.lastPrinted.Add(time.Second)):
		return "", false
	}
	s.lastPrinted = s.last
	n := float64(len(s.intervals))
	var sum float64
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, d := range s.intervals {
		x := d.Seconds()
		sum += x
		lo, hi = min(lo, x), max(hi, x)
	}
	mean := sum / n
	var sq float64
	for _, d := range s.intervals {
		sq += (d.Seconds() - mean) * (d.Seconds() - mean)
	}
	rate := 0.0
	if mean > 0 {
		rate = 1 / mean
	}
	return fmt.Sprintf("average rate: %.3f\n\tmin: %.3fs max: %.3fs std dev: %.5fs window: %d\n",
		rate, lo, hi, math.Sqrt(sq/n), len(s.intervals)), true
}

// bwStats computes what `ros2 topic bw` prints: the bandwidth over a
// window of the last messages, and their mean, min and max size.
type bwStats struct {
	window int
	times  []time.Time
	sizes  []int
}

func (s *bwStats) add(t time.Time, size int) {
	s.times = append(s.times, t)
	s.sizes = append(s.sizes, size)
	if len(s.times) > s.window {
		s.times, s.sizes = s.times[1:], s.sizes[1:]
	}
}

// report returns the report at now, or false with fewer than two messages.
func (s *bwStats) report(now time.Time) (string, bool) {
	if len(s.times) < 2 {
		return "", false
	}
	if !now.After(s.times[0]) {
		s.times, s.sizes = s.times[:0], s.sizes[:0]
		return "", false
	}
	total, lo, hi := 0, s.sizes[0], s.sizes[0]
	for _, n := range s.sizes {
		total += n
		lo, hi = min(lo, n), max(hi, n)
	}
	bps := float64(total) / now.Sub(s.times[0]).Seconds()
	mean := float64(total) / float64(len(s.sizes))
	unit := func(x float64) string { return fmt.Sprintf("%.0f B", x) }
	switch {
	case bps >= 1e6:
		unit = func(x float64) string { return fmt.Sprintf("%.2f MB", x/1e6) }
	case bps >= 1e3:
		unit = func(x float64) string { return fmt.Sprintf("%.2f KB", x/1e3) }
	}
	return fmt.Sprintf("%s/s from %d messages\n\tMessage size mean: %s min: %s max: %s\n",
		unit(bps), len(s.sizes), unit(mean), unit(float64(lo)), unit(float64(hi))), true
}
