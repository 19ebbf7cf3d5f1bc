package ros

import (
	"sync"
	"sync/atomic"
	"time"
)

// leaseTimer counts the periods that go by without a hit: a deadline
// (every period without a message is one more miss, repeating) or a
// liveliness lease (one loss, then nothing until the next hit). It starts
// at the first hit, as DDS times a deadline per instance from its first
// sample. A hit is an atomic store of its time (a subscription passes the
// time the message was received, so no clock is read); the timer, reset
// only when it fires, compares.
type leaseTimer struct {
	period time.Duration
	repeat bool
	report func(total, change int) // called from the timer's goroutine
	base   time.Time               // hit times are durations since base (monotonic)
	last   atomic.Int64            // the last hit
	armed  atomic.Bool             // the timer runs

	mu      sync.Mutex // guards what follows, and arming
	stopped bool
	total   int
	timer   *time.Timer
}

func newLeaseTimer(period time.Duration, repeat bool, report func(total, change int)) *leaseTimer {
	return &leaseTimer{period: period, repeat: repeat, report: report, base: time.Now()}
}

// hit records a message now.
func (l *leaseTimer) hit() { l.hitAt(time.Now()) }

// hitAt records a message at t (a reading of the monotonic clock).
func (l *leaseTimer) hitAt(t time.Time) {
	at := int64(t.Sub(l.base))
	for {
		cur := l.last.Load()
		if at <= cur || l.last.CompareAndSwap(cur, at) {
			break
		}
	}
	if l.armed.Load() {
		return // the timer checks last when it fires
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped || l.armed.Load() {
		return
	}
	l.armed.Store(true)
	d := l.period - time.Since(t)
	if l.timer == nil {
		l.timer = time.AfterFunc(d, l.fire)
	} else {
		l.timer.Reset(d)
	}
}

// fire runs when a period may have gone by without a hit.
func (l *leaseTimer) fire() {
	l.mu.Lock()
	if l.stopped || !l.armed.Load() {
		l.mu.Unlock()
		return
	}
	now := int64(time.Since(l.base))
	last := l.last.Load()
	if due := last + int64(l.period); now < due { // hit meanwhile: check again at its end
		l.timer.Reset(time.Duration(due - now))
		l.mu.Unlock()
		return
	}
	l.total++
	total := l.total
	if l.repeat {
		l.last.CompareAndSwap(last, now) // the next period starts now, unless a hit came
		l.timer.Reset(l.period)
	} else {
		l.armed.Store(false)
		if l.last.Load() != last { // a hit raced with the lapse: follow it
			l.armed.Store(true)
			l.timer.Reset(l.period)
		}
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
