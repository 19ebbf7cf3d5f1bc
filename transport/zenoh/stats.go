package zenoh

import (
	"maps"
	"sync"
	"time"
)

// Names of the limits a remote node can hit, as they appear in the log
// lines and in Stats.ByLimit. Each names the Config field that sets it.
const (
	LimitLinks           = "MaxLinks"
	LimitLinksPerIP      = "MaxLinksPerIP"
	LimitHandshakes      = "MaxHandshakes"
	LimitHandshakesPerIP = "MaxHandshakesPerIP"
	LimitHandshakeBytes  = "MaxHandshakeBytes"
	LimitAliases         = "MaxAliases"
	LimitAliasBytes      = "MaxAliasBytes"
	LimitDeclarations    = "MaxDeclarations"
	LimitQueuedBytes     = "MaxQueuedBytes"
)

// Stats counts what the session refused, or whose links it closed, to
// bound what remote nodes make it hold. It is a snapshot: see
// Session.Stats.
type Stats struct {
	// LinksRefused counts the inbound connections closed before they
	// became links because of a limit (links, pending handshakes, bytes
	// of a handshake).
	LinksRefused uint64
	// LinksClosedForLimits counts the established links closed because
	// their remote exceeded a limit.
	LinksClosedForLimits uint64
	// LinksEvicted counts the idle accepted links closed to make room for
	// a new one (see Limits.MaxLinks).
	LinksEvicted uint64
	// ClosedByRemote counts the links a remote closed as invalid (CLOSE
	// with reason INVALID): what a Go session does when a link exceeds one
	// of its limits, such as its MaxDeclarations. Each is logged as a
	// warning with the number of declarations the session had announced
	// to it.
	ClosedByRemote uint64
	// ByLimit counts every time a limit was hit, by its name (the Limit*
	// constants, or a name given by the part of the session that applies
	// it, such as a message dropped for its size). Limits never hit are
	// absent.
	ByLimit map[string]uint64
}

// Stats returns the session's counters since Open.
func (s *Session) Stats() Stats {
	return s.stats.snapshot()
}

// statsCounters holds the counters behind Session.Stats. The zero value is
// ready to use. Limits are hit rarely, so a mutex is enough.
type statsCounters struct {
	mu      sync.Mutex
	refused uint64
	closed  uint64
	evictL  uint64
	byPeer  uint64
	byLimit map[string]uint64
	logged  map[string]time.Time // when a hit of each limit was last logged
}

// logEvery is the least interval between two warnings about one limit, so
// that a flood of refused connections does not flood the log too (the
// counters count every hit).
const logEvery = time.Second

func (c *statsCounters) snapshot() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Stats{LinksRefused: c.refused, LinksClosedForLimits: c.closed,
		LinksEvicted: c.evictL, ClosedByRemote: c.byPeer, ByLimit: maps.Clone(c.byLimit)}
}

// closedByRemote counts a link the remote closed as invalid.
func (c *statsCounters) closedByRemote() {
	c.mu.Lock()
	c.byPeer++
	c.mu.Unlock()
}

// evictedLink counts a link closed for a newcomer.
func (c *statsCounters) evictedLink() {
	c.mu.Lock()
	c.evictL++
	c.mu.Unlock()
}

// add counts one hit of limit; refused and closed add to the link totals.
// It returns the limit's count, and whether to log this hit (the first,
// then at most one every logEvery).
func (c *statsCounters) add(limit string, refused, closed bool) (uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byLimit == nil {
		c.byLimit = make(map[string]uint64)
		c.logged = make(map[string]time.Time)
	}
	c.byLimit[limit]++
	if refused {
		c.refused++
	}
	if closed {
		c.closed++
	}
	now := time.Now()
	last, ok := c.logged[limit]
	if ok && now.Sub(last) < logEvery {
		return c.byLimit[limit], false
	}
	c.logged[limit] = now
	return c.byLimit[limit], true
}

// countLimit counts one hit of the named limit that cost no link (a
// message dropped, say). Use it with a Limit* constant or a name of the
// same form (the Config field that sets the limit). It returns the
// limit's count so far, and whether to log this hit: the first, then at
// most one a second.
func (s *Session) countLimit(name string) (uint64, bool) { return s.stats.add(name, false, false) }

// countRefused counts an inbound connection refused because of limit, as
// countLimit does.
func (s *Session) countRefused(name string) (uint64, bool) { return s.stats.add(name, true, false) }

// countClosed counts a link closed because its remote exceeded limit, as
// countLimit does.
func (s *Session) countClosed(name string) (uint64, bool) { return s.stats.add(name, false, true) }
