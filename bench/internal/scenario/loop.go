package scenario

import (
	"context"
	"time"
)

// Progress receives a run's progress: the row running and the time spent on
// it so far. It is called from the measuring goroutine about every
// progressEvery; it must return quickly.
type Progress func(row string, spent time.Duration)

const progressEvery = 500 * time.Millisecond

// runSlack is added to a row's duration in its deadline: set-up, warm-up
// and the detection of a lost message.
const runSlack = 10 * time.Second

// timeLoop runs op until d has elapsed (checking the clock every few ops),
// and returns how many ops completed, the wall and CPU time they took, and
// the first error. warmup ops run first and are not counted.
func timeLoop(ctx context.Context, d time.Duration, warmup int, row string, progress Progress, op func(context.Context) error) (n int64, elapsed, cpu time.Duration, err error) {
	for range warmup {
		if err := op(ctx); err != nil {
			return 0, 0, 0, err
		}
	}
	cpu0, start := cpuTime(), time.Now()
	next := start.Add(progressEvery)
	check := int64(1)
	for {
		if err = op(ctx); err != nil {
			break
		}
		n++
		if n%check != 0 {
			continue
		}
		now := time.Now()
		if now.Sub(start) >= d {
			break
		}
		if progress != nil && now.After(next) {
			progress(row, now.Sub(start))
			next = now.Add(progressEvery)
		}
		// Look at the clock about every 50 µs of work: often enough to stop
		// on time, rarely enough to cost little on sub-µs ops.
		if per := now.Sub(start) / time.Duration(n); per > 0 {
			check = max(1, min(1024, int64(50*time.Microsecond/per)))
		}
	}
	return n, time.Since(start), cpuTime() - cpu0, err
}
