package zenoh

import (
	"fmt"
	"sync/atomic"
	"time"
)

// Bytes queued for links that do not take them. A link's transmit queue
// is bounded (maxPending, with congestion control for publications, and
// Limits.MaxQueuedBytes for control messages), but links add up, and a
// peer relays what one client publishes to every link that subscribed: a
// client publishing 12 MB once to 60 client links that never read pinned
// 322 MB. So what the links hold to send (their queues, the batch being
// written, what a socket did not take) is bounded for the session too
// (Limits.MaxSessionQueuedBytes): over it, the link holding the most is
// closed, counted under LimitSessionQueuedBytes; a link that reads is
// never the one.

// LimitSessionQueuedBytes names Limits.MaxSessionQueuedBytes in
// Stats.ByLimit.
const LimitSessionQueuedBytes = "MaxSessionQueuedBytes"

// txAccount is what a link holds to send, as the session counts it.
type txAccount struct {
	held atomic.Int64 // bytes queued, being written, or left over by a write
	gone atomic.Bool  // taken off the session's count (link.mu)
}

// holdTxLocked counts n more bytes l holds to send (l.mu held). The
// caller calls s.checkTx once l.mu is released.
func (l *link) holdTxLocked(n int) {
	if n == 0 || l.tx.gone.Load() {
		return
	}
	l.tx.held.Add(int64(n))
	l.s.txHeld.Add(int64(n))
}

// freeTx counts n bytes fewer that l holds to send (written, or dropped).
func (l *link) freeTx(n int) {
	if n == 0 {
		return
	}
	l.mu.Lock()
	if !l.tx.gone.Load() {
		l.tx.held.Add(-int64(n))
		l.s.txHeld.Add(-int64(n))
	}
	l.mu.Unlock()
}

// releaseTx takes what l holds to send off the session's count, once: its
// writer has ended, or the link is closed for holding the most. It reports
// whether this call did.
func (l *link) releaseTx() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tx.gone.Load() {
		return false
	}
	l.tx.gone.Store(true)
	l.s.txHeld.Add(-l.tx.held.Load())
	return true
}

// checkTx closes the links holding the most to send while the session
// holds more than MaxSessionQueuedBytes. No link's mu may be held.
func (s *Session) checkTx() {
	max := int64(s.cfg.Limits.MaxSessionQueuedBytes)
	for {
		held := s.txHeld.Load()
		if held <= max {
			return
		}
		var v *link
		for _, l := range s.table.Load().all {
			if !l.tx.gone.Load() && (v == nil || l.tx.held.Load() > v.tx.held.Load()) {
				v = l
			}
		}
		if v == nil {
			return
		}
		vHeld := v.tx.held.Load()
		if v.releaseTx() {
			v.closeForLimit(&limitError{limit: LimitSessionQueuedBytes, max: int(max),
				what: fmt.Sprintf("the most bytes queued to send (%d of the session's %d): a remote that does not read", vHeld, held)})
			// It does not read its CLOSE either: end a write in progress
			// now rather than after closeWriteTimeout, so that what it
			// held goes at once.
			v.dl.Lock()
			_ = v.conn.SetWriteDeadline(time.Unix(1, 0))
			v.dl.Unlock()
		}
	}
}
