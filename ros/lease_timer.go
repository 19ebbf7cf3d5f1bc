package ros

import (
	"sync"
	"time"
)

// leaseTimer counts the periods that go by without a hit: a deadline
// (every period without a message is one more miss, repeating) or a
// liveliness lease (one loss, then nothing until the next hit). It starts
// at the first hit, as DDS times a deadline per instance from its first
// sample. A hit costs a clock reading and a mutex held for a few
// instructions; the timer is reset only when it fired.
type leaseTimer struct {
	period time.Duration
	repeat bool
	report func(total, change int) // called from the timer's goroutine

	mu      sync.Mutex
	last    time.Time // the last hit
	armed   bool      // the timer runs
	stopped bool
	total   int
	timer   *time.Timer
}

func newLeaseTimer(period time.Duration, repeat bool, report func(total, change int)) *leaseTimer {
	return &leaseTimer{period: period, repeat: repeat, report: report}
}

// hit records a message now.
func (l *leaseTimer) hit() {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return
	}
	l.last = now
	if l.armed {
		return // the timer checks last when it fires
	}
	l.armed = true
	if l.timer == nil {
		l.timer = time.AfterFunc(l.period, l.fire)
	} else {
		l.timer.Reset(l.period)
	}
}

// fire runs when a period may have gone by without a hit.
func (l *leaseTimer) fire() {
	l.mu.Lock()
	if l.stopped || !l.armed {
		l.mu.Unlock()
		return
	}
	now := time.Now()
	due := l.last.Add(l.period)
	if now.Before(due) { // hit meanwhile: check again at its end
		l.timer.Reset(due.Sub(now))
		l.mu.Unlock()
		return
	}
	l.total++
	total := l.total
	if l.repeat {
		l.last = now // the next period starts now
		l.timer.Reset(l.period)
	} else {
		l.armed = false
	}
	l.mu.Unlock()
	l.report(total, 1)
}

// stop ends the timer; a nil timer is stopped already.
func (l *leaseTimer) stop() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopped = true
	if l.timer != nil {
		l.timer.Stop()
	}
}
