package dds

import (
	"math"
	"time"
)

// Timer resolution of the participant's housekeeping (announcements,
// heartbeats, leases, reassembly timeouts): tickPeriod while something is
// pending, and at least one wake-up per idleTickPeriod otherwise.
const (
	tickPeriod     = 20 * time.Millisecond
	idleTickPeriod = time.Second
)

// loop runs the participant's timers. It sleeps until the next thing due
// (an announcement, a lease expiry, a HEARTBEAT to a reader with
// unacknowledged samples, a pre-emptive ACKNACK, a reassembly timeout, an
// expiring sample), and at most idleTickPeriod; whatever becomes due
// sooner wakes it through dueBy.
func (p *Participant) loop() {
	defer p.wg.Done()
	p.announce(time.Now())
	t := time.NewTimer(tickPeriod)
	defer t.Stop()
	for {
		select {
		case <-p.done:
			return
		case <-p.wake:
			t.Reset(time.Until(time.Unix(0, p.wakeAt.Load())))
		case now := <-t.C:
			// A dueBy racing with tick lowers wakeAt below this and
			// signals wake, so nothing is lost.
			p.wakeAt.Store(math.MaxInt64)
			p.dueBy(p.tick(now))
		}
	}
}

// dueBy makes the timer loop run tick at t or earlier.
func (p *Participant) dueBy(t time.Time) {
	n := t.UnixNano()
	for {
		cur := p.wakeAt.Load()
		if cur <= n {
			return
		}
		if p.wakeAt.CompareAndSwap(cur, n) {
			break
		}
	}
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// earliest returns the earlier of a and b, a zero time meaning none.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

// latest returns the later of a and b.
func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// tick runs what is due at now and returns when it is next needed.
func (p *Participant) tick(now time.Time) time.Time {
	p.spdpMu.Lock()
	due := !now.Before(p.nextAnnounce)
	p.spdpMu.Unlock()
	if due {
		p.announce(now)
	}
	p.spdpMu.Lock()
	next := earliest(now.Add(idleTickPeriod), p.nextAnnounce)
	p.spdpMu.Unlock()
	p.removeDropped()
	next = earliest(next, p.expireLeases(now))
	next = earliest(next, p.assertAutomatic(now))
	p.mu.RLock()
	ws := make([]*Writer, 0, len(p.writers)+3)
	rs := make([]*Reader, 0, len(p.readers)+3)
	ws = append(ws, p.sedpPubW, p.sedpSubW, p.wlpW)
	rs = append(rs, p.sedpPubR, p.sedpSubR, p.wlpR)
	for _, w := range p.writers {
		ws = append(ws, w)
	}
	for _, r := range p.readers {
		rs = append(rs, r)
	}
	p.mu.RUnlock()
	for _, w := range ws {
		next = earliest(next, w.tick(now))
	}
	for _, r := range rs {
		next = earliest(next, r.tick(now))
	}
	return next
}
