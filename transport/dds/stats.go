package dds

import (
	"maps"
	"sync"
	"sync/atomic"
	"time"
)

// counters are the participant's traffic statistics.
type counters struct {
	received, malformed, dropped, sent, sendErrors atomic.Uint64
	// dataIn counts datagrams received with a DATA or DATA_FRAG other
	// than SPDP's: what a writer may be answering (Writer.idle).
	dataIn atomic.Uint64
	// pendingBytes and discoveryBytes are gauges: the payload bytes held
	// out of order by user readers, and the discovery bytes held for
	// remote participants (SEDP samples held out of order included).
	pendingBytes atomic.Int64
	limits       limitCounters
}

// Stats are traffic counters of a participant, and what it refused to
// bound what remote participants make it hold and do.
type Stats struct {
	// Received counts datagrams received.
	Received uint64
	// Malformed counts datagrams (or discovery samples) dropped because
	// they do not decode.
	Malformed uint64
	// Dropped counts fragments and samples dropped by limits.
	Dropped uint64
	// Sent counts datagrams sent; SendErrors the sends that failed.
	Sent, SendErrors uint64
	// Local counts samples delivered in memory to the participant's own
	// readers (no datagram); LocalDropped those a KEEP_LAST or
	// best-effort writer dropped because the reader had the writer's
	// depth of them queued already (its callbacks were slower than the
	// writers).
	Local, LocalDropped uint64
	// ParticipantsRefused counts remote participants not admitted
	// because of a limit; ParticipantsDropped those admitted and then
	// dropped because they went over one.
	ParticipantsRefused, ParticipantsDropped uint64
	// ByLimit counts every time a limit was hit, by its name (the Limit*
	// constants). Limits never hit are absent.
	ByLimit map[string]uint64

	// RemoteParticipants and RemoteEndpoints are the remote participants
	// and endpoints known now; DiscoveryBytes the discovery data held for
	// them (see Limits.MaxDiscoveryBytes).
	RemoteParticipants, RemoteEndpoints int
	DiscoveryBytes                      int64
	// PendingBytes are the payload bytes user readers hold out of order,
	// ReassemblyBytes those of the fragmented samples being reassembled
	// (allocated, bitmaps included).
	PendingBytes, ReassemblyBytes int64
}

// Stats returns the participant's traffic counters.
func (p *Participant) Stats() Stats {
	s := Stats{
		Received: p.stats.received.Load(), Malformed: p.stats.malformed.Load(), Dropped: p.stats.dropped.Load(),
		Sent: p.stats.sent.Load(), SendErrors: p.stats.sendErrors.Load(),
		Local: p.local.delivered.Load(), LocalDropped: p.local.dropped.Load(),
		PendingBytes: p.stats.pendingBytes.Load(), ReassemblyBytes: p.reasmBytes.Load(),
	}
	s.ParticipantsRefused, s.ParticipantsDropped, s.ByLimit = p.stats.limits.snapshot()
	p.mu.RLock()
	s.RemoteParticipants, s.RemoteEndpoints, s.DiscoveryBytes = len(p.remotes), p.nRemoteEndpoints, p.discoveryBytes
	p.mu.RUnlock()
	return s
}

// limitCounters count the hits of limits. Limits are hit rarely, so a
// mutex is enough.
type limitCounters struct {
	mu               sync.Mutex
	refused, dropped uint64
	byLimit          map[string]uint64
	logged           map[string]time.Time // when a hit of each limit was last logged
}

// logEvery is the least interval between two warnings about one limit, so
// that a flood does not flood the log too (the counters count every hit).
const logEvery = time.Second

func (c *limitCounters) snapshot() (refused, dropped uint64, by map[string]uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.refused, c.dropped, maps.Clone(c.byLimit)
}

// add counts one hit of limit, and a refused or dropped participant. It
// returns the limit's count and whether to log this hit (the first, then
// at most one every logEvery).
func (c *limitCounters) add(limit string, refused, dropped bool) (uint64, bool) {
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
	if dropped {
		c.dropped++
	}
	now := time.Now()
	if last, ok := c.logged[limit]; ok && now.Sub(last) < logEvery {
		return c.byLimit[limit], false
	}
	c.logged[limit] = now
	return c.byLimit[limit], true
}

// hitLimit counts a hit of limit that cost no participant (a sample or a
// resend dropped) and logs it at warning level, at most once a second
// per limit.
func (p *Participant) hitLimit(limit string, args ...any) {
	if n, log := p.stats.limits.add(limit, false, false); log {
		p.log.Warn("dds: limit reached", append([]any{"limit", limit, "hits", n}, args...)...)
	}
}
