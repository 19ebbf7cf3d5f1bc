package zenoh

import (
	"bytes"
	"errors"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// Admission: who gets in when the links or the handshakes in progress are
// at a limit.
//
// Every node of a robot connects from 127.0.0.1, so a limit per source
// address that simply refused newcomers would let one misbehaving local
// process keep all the others out. Nor can the session tell two local
// processes apart. It tells them apart by what they do instead:
//
//   - A real node finishes its handshake in milliseconds. An inbound
//     connection has handshakeGrace to do so, and during its grace it does
//     not count against MaxHandshakes and MaxHandshakesPerIP: those bound
//     the handshakes that stall (a connection that sends nothing, or sends
//     its INIT or OPEN slowly). One that stalls when they are full is
//     closed. So slow handshakers and silent connections cannot keep a
//     node out: a newcomer finishes within its grace, whatever they hold.
//     The connections in their grace are bounded too (8 times
//     MaxHandshakes), which a process opening connections faster than that
//     can exhaust: it then keeps newcomers out while it does.
//   - An accepted link that has sent nothing but keep-alives for
//     linkEvictIdle makes room for a new link at MaxLinksPerIP (from its
//     address) or MaxLinks (from the address with the most links): the one
//     that never sent anything since its handshake first, then the one
//     silent the longest. A link that publishes, declares or queries is
//     never closed for a newcomer, and dialled links never are. The room is
//     made once the newcomer has finished its handshake, so that mere
//     connections cannot close anybody's link. A local process holding
//     MaxLinksPerIP links that all stay active still keeps newcomers out
//     (they dial again every RetryInterval).

// handshakeGrace is how long an inbound handshake may take before it
// counts as stalled.
const handshakeGrace = time.Second

// graceFactor bounds the connections in their grace: graceFactor times
// MaxHandshakes.
const graceFactor = 8

// linkEvictIdle is how long an accepted link must have been silent (but
// for keep-alives) to be closed for a new link at a link limit.
const linkEvictIdle = time.Second

// pendingHandshake is an inbound connection in its handshake.
type pendingHandshake struct {
	ip      netip.Addr
	stalled bool // past its grace, counted against the limits
	gone    bool // left (admission.mu)
}

// admission tracks the inbound handshakes in progress: those in their
// grace, and those that stalled, in total and per source address.
type admission struct {
	mu      sync.Mutex
	young   int
	stalled int
	perIP   map[netip.Addr]int // stalled ones
}

// enter admits the handshake of a connection from ip, or names the limit
// it would exceed.
func (a *admission) enter(ip netip.Addr, lm *Limits) (*pendingHandshake, string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.young >= graceSlots(lm) {
		return nil, LimitHandshakes
	}
	a.young++
	return &pendingHandshake{ip: ip}, ""
}

// graceSlots is how many connections may be in their grace.
func graceSlots(lm *Limits) int {
	if lm.MaxHandshakes > noLimit/graceFactor {
		return noLimit
	}
	return graceFactor * lm.MaxHandshakes
}

// stall moves a handshake past its grace to the stalled ones, or names
// the limit it would exceed (the caller then ends it).
func (a *admission) stall(p *pendingHandshake, lm *Limits) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if p.gone || p.stalled {
		return ""
	}
	switch {
	case a.perIP[p.ip] >= lm.MaxHandshakesPerIP:
		return LimitHandshakesPerIP
	case a.stalled >= lm.MaxHandshakes:
		return LimitHandshakes
	}
	if a.perIP == nil {
		a.perIP = make(map[netip.Addr]int)
	}
	a.young--
	a.stalled++
	a.perIP[p.ip]++
	p.stalled = true
	return ""
}

// leave ends a handshake admitted by enter.
func (a *admission) leave(p *pendingHandshake) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if p.gone {
		return
	}
	p.gone = true
	if !p.stalled {
		a.young--
		return
	}
	a.stalled--
	if a.perIP[p.ip]--; a.perIP[p.ip] <= 0 {
		delete(a.perIP, p.ip)
	}
}

// admit decides whether an accepted connection may start its handshake:
// not if the links it would add to are full of links that cannot make
// room, nor beyond the connections in their grace allowed. A refused one
// is closed and counted. On success the caller calls s.adm.leave(p) when
// the handshake ends (checkLinkRoom looks at the links again).
func (s *Session) admit(conn net.Conn, ip netip.Addr) (*pendingHandshake, bool) {
	s.mu.Lock()
	limit, _, victim := s.linkRoomLocked(&link{ip: ip}, time.Now())
	s.mu.Unlock()
	if limit != "" && victim == nil {
		s.refuse(conn, limit, "links")
		return nil, false
	}
	p, limit := s.adm.enter(ip, &s.cfg.Limits)
	if p == nil {
		s.refuse(conn, limit, "connections in their handshake")
		return nil, false
	}
	return p, true
}

// stalledLimit is the value of the handshake limit named limit.
func (s *Session) stalledLimit(limit string) int {
	if limit == LimitHandshakesPerIP {
		return s.cfg.Limits.MaxHandshakesPerIP
	}
	return s.cfg.Limits.MaxHandshakes
}

// stalled is called when the inbound handshake p has lasted its grace: it
// reports whether it may go on, as one of the stalled handshakes, or
// names the limit that ends it.
func (s *Session) stalled(p *pendingHandshake) (string, bool) {
	limit := s.adm.stall(p, &s.cfg.Limits)
	return limit, limit == ""
}

// refuse closes an inbound connection refused for limit, telling the
// remote (CLOSE, reason max sessions), and counts it.
func (s *Session) refuse(conn net.Conn, limit, what string) {
	// Counted before the remote can see it: a test may look right after.
	if n, log := s.countRefused(limit); log {
		s.log.Warn("zenoh: refusing inbound connection over a limit", "remote", conn.RemoteAddr().String(), "limit", limit, "what", what, "count", n)
	}
	_ = conn.SetWriteDeadline(time.Now().Add(closeWriteTimeout))
	_, _ = conn.Write(appendClose(nil, wire.CloseMaxSessions, true))
	_ = conn.Close()
}

// linkRoomLocked names the limit an accepted link l would exceed, and its
// value, with the link that would make room for it (nil if none can), or
// returns "" (s.mu held, l not yet in s.links). Links on their way out do
// not count.
func (s *Session) linkRoomLocked(l *link, now time.Time) (limit string, max int, victim *link) {
	lm := &s.cfg.Limits
	total, fromIP := 0, 0
	perIP := make(map[netip.Addr]int)
	for other := range s.links {
		if other.leaving() {
			continue
		}
		total++
		if !other.dialed {
			perIP[other.ip]++
			if other.ip == l.ip {
				fromIP++
			}
		}
	}
	switch {
	case fromIP >= lm.MaxLinksPerIP:
		return LimitLinksPerIP, lm.MaxLinksPerIP, s.idlestLocked(func(m *link) bool { return m.ip == l.ip }, now)
	case total >= lm.MaxLinks:
		busiest, n := l.ip, 0
		for ip, k := range perIP {
			if k > n {
				busiest, n = ip, k
			}
		}
		return LimitLinks, lm.MaxLinks, s.idlestLocked(func(m *link) bool { return m.ip == busiest }, now)
	}
	return "", 0, nil
}

// idlestLocked returns the accepted link among those that from selects
// that may be closed for a newcomer: silent for linkEvictIdle, never
// active since its handshake rather than active once, and silent the
// longest. It returns nil if none may.
func (s *Session) idlestLocked(from func(*link) bool, now time.Time) *link {
	var best *link
	var bestAt int64
	for m := range s.links {
		if m.dialed || m.leaving() || !from(m) {
			continue
		}
		at := m.lastActive.Load() // 0: never active
		if now.Sub(idleSince(m, at)) < linkEvictIdle {
			continue
		}
		switch {
		case best == nil, (at == 0) != (bestAt == 0) && at == 0:
		case (at == 0) != (bestAt == 0), !idleSince(m, at).Before(idleSince(best, bestAt)):
			continue
		}
		best, bestAt = m, at
	}
	return best
}

// idleSince is when link m last sent something other than a keep-alive,
// or when it was made (at is m.lastActive).
func idleSince(m *link, at int64) time.Time {
	if at == 0 {
		return m.born
	}
	return time.Unix(0, at)
}

// errEvicted ends a link closed to make room for a newcomer.
var errEvicted = errors.New("zenoh: idle link closed to make room for a new one")

// makeRoomLocked makes room for the accepted link l (not yet registered)
// at MaxLinks and MaxLinksPerIP, closing an idle link if need be, or
// reports the limit it would exceed with a limitError (s.mu held).
func (s *Session) makeRoomLocked(l *link) error {
	now := time.Now()
	limit, max, victim := s.linkRoomLocked(l, now)
	if limit == "" {
		return nil
	}
	if victim == nil {
		return &limitError{limit: limit, max: max, what: "link count"}
	}
	victim.evicted = true
	s.stats.evictedLink()
	if n, log := s.countLimit(limit); log {
		s.log.Warn("zenoh: closing an idle link to make room for a new one", "link", victim.String(), "for", l.conn.RemoteAddr().String(),
			"limit", limit, "max", max, "idle", now.Sub(idleSince(victim, victim.lastActive.Load())).Round(time.Millisecond), "count", n)
	}
	victim.close(wire.CloseMaxSessions, errEvicted)
	return nil
}

// checkLinkRoom makes room for the accepted link l (not yet registered)
// at MaxLinks and MaxLinksPerIP, or reports, with a limitError, the limit
// it would exceed; a node linked already needs no room (register decides
// between the two links).
func (s *Session) checkLinkRoom(l *link) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for other := range s.links {
		if bytes.Equal(other.remoteZID, l.remoteZID) {
			return nil
		}
	}
	return s.makeRoomLocked(l)
}

// leaving reports whether l is on its way out: closed for a newcomer, or
// ended for any reason and not yet removed (s.mu held).
func (l *link) leaving() bool {
	if l.evicted {
		return true
	}
	select {
	case <-l.done:
		return true
	default:
		return false
	}
}
