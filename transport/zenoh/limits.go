package zenoh

import (
	"fmt"
	"net"
	"net/netip"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// Defaults of Limits, applied by Open to zero fields.
const (
	DefaultMaxLinks               = 512
	DefaultMaxLinksPerIP          = 128
	DefaultMaxHandshakes          = 100
	DefaultMaxHandshakesPerIP     = 32
	DefaultMaxHandshakeBytes      = 16 << 10
	DefaultMaxPeerLease           = 60 * time.Second
	DefaultMaxAliases             = 1 << 14
	DefaultMaxAliasBytes          = 4 << 20
	DefaultMaxSessionAliasBytes   = 16 << 20
	DefaultMaxDeclarations        = 1 << 16
	DefaultMaxRelayedDeclarations = DefaultMaxDeclarations / 2
	DefaultMaxQueuedBytes         = 16 << 20
	DefaultMaxSessionQueuedBytes  = 128 << 20

	DefaultMaxPendingQueries           = 1024
	DefaultMaxPendingQueryBytes        = 4 << 20
	DefaultMaxSessionPendingQueries    = 8192
	DefaultMaxSessionPendingQueryBytes = 32 << 20
	DefaultMaxQueryTimeout             = 600 * time.Second
	DefaultReassemblyTimeout           = 2 * time.Second
)

// Limits bounds what remote nodes can make a session hold: links,
// handshakes in progress, and per link the lease, key expression aliases,
// declarations and queued bytes. A zero field takes its default (the
// Default* constants); a negative field lifts the limit. A remote that
// exceeds a limit loses its own connection or link: a warning is logged
// (through Config.Logger) naming the limit, at most one a second per
// limit, and Session.Stats counts every hit under the limit's name (the
// Limit* constants); the session and its other links go on.
type Limits struct {
	// MaxLinks bounds the session's links. Dialled links count but are
	// never refused (the session chose them). An inbound connection that
	// would exceed it makes room by closing the accepted link, from the
	// address with the most links, that has sent nothing but keep-alives
	// for the longest (at least a second); if none has, it is refused,
	// before or right after its handshake, with a CLOSE (reason max
	// sessions). Links closed to make room are counted in
	// Stats.LinksEvicted. Default 512.
	MaxLinks int
	// MaxLinksPerIP bounds the accepted links from one source address
	// (every node on the same host shares one), as MaxLinks does: a silent
	// link from the address makes room for a newcomer, so a process that
	// opens links and leaves them idle cannot keep the host's other nodes
	// out. Default 128.
	MaxLinksPerIP int
	// MaxHandshakes bounds the inbound handshakes that stall: a node
	// finishes its handshake (INIT and OPEN) within milliseconds, and a
	// connection has a second to do so before it counts. One that stalls
	// beyond the limit is closed; the others may take up to 10 s. The
	// connections in their first second are bounded too, by 8 times
	// MaxHandshakes, beyond which new connections are closed at once. So
	// slow or silent connections cannot keep a node out. Default 100, as
	// the reference's accept_pending.
	MaxHandshakes int
	// MaxHandshakesPerIP bounds the stalled handshakes from one source
	// address, as MaxHandshakes does. Default 32.
	MaxHandshakesPerIP int
	// MaxHandshakeBytes bounds the bytes a remote may send during the
	// handshake (its INIT and OPEN), which is also the memory a handshake
	// in progress holds; a remote announcing more is refused. Default
	// 16 KiB, well above the few hundred bytes the reference sends.
	MaxHandshakeBytes int
	// MaxPeerLease clamps the lease a remote announces. A link is dropped
	// after about a lease of silence, so the lease is how long a silent or
	// dead remote holds its link (buffers, two goroutines, one of
	// MaxLinks): unclamped, a remote announcing an hour holds it an hour.
	// The reference's default lease is 10 s, and its nodes send a
	// keep-alive every quarter of their lease, so the default of 60 s
	// keeps every node whose lease is under 4 minutes, and frees a dead
	// one's slot within 75 s. Clamps are counted under LimitPeerLease.
	MaxPeerLease time.Duration
	// MaxAliases bounds the key expression aliases (D_KEYEXPR) one link
	// may declare. Default 16384.
	MaxAliases int
	// MaxAliasBytes bounds the total length of the keys a link's aliases
	// resolve to: an alias built on another one stores the whole key, so
	// this, not the count, bounds their memory. Default 4 MiB.
	MaxAliasBytes int
	// MaxSessionAliasBytes bounds the memory the aliases of all links hold
	// together: the lengths of their keys and 64 bytes more per alias for
	// its entry. At the bound, the link holding the most loses its link,
	// if it holds more than the link declaring an alias, which loses its
	// own otherwise. Default 16 MiB.
	MaxSessionAliasBytes int
	// MaxDeclarations bounds the subscribers, queryables and liveliness
	// tokens one link may declare, together. Default 65536.
	MaxDeclarations int
	// MaxRelayedDeclarations bounds the declarations of other links that
	// a peer announces one by one (those of its clients to every link,
	// those of its other links to its clients), so that links each within
	// MaxDeclarations cannot together push a peer over its own: beyond it,
	// subscribers and queryables are announced aggregated (one subscriber
	// and one queryable on "**" per link that may see them) and tokens
	// are not relayed, counted under LimitRelayedDeclarations. The link
	// holding the most slots gives one up to a link holding fewer, and
	// freed slots go to the aggregated declarations, oldest first.
	// Default 32768, half of a default peer's MaxDeclarations.
	MaxRelayedDeclarations int
	// MaxQueuedBytes bounds the control messages (declarations, answers
	// to interests, query finals) queued on a link whose remote does not
	// read them. Publications are bounded by congestion control instead
	// (see DropWait). Default 16 MiB.
	MaxQueuedBytes int
	// MaxSessionQueuedBytes bounds what all links hold to send together:
	// their queues, the batches being written and what sockets did not
	// take, so that links that do not read cannot add up (a peer relays a
	// client's publications to every link that subscribed). Over it, the
	// link holding the most is closed, counted under
	// LimitSessionQueuedBytes. Default 128 MiB.
	MaxSessionQueuedBytes int
	// MaxPendingQueries bounds the queries received from one link that
	// are in progress: handed to local queryables, or forwarded to other
	// nodes for a client, and not finished yet. A query beyond it is
	// answered at once with no reply (RESPONSE_FINAL). Default 1024.
	MaxPendingQueries int
	// MaxPendingQueryBytes bounds what one link's queries in progress
	// hold: their keys, parameters, payloads and attachments, and 1 KiB
	// each for their state. Beyond it a query is answered at once with no
	// reply. Default 4 MiB.
	MaxPendingQueryBytes int
	// MaxSessionPendingQueries bounds the queries from remote nodes in
	// progress in the whole session. At the bound, the link holding the
	// most loses its oldest query (finished with no more replies) if it
	// holds more than the link of the new one, which is refused
	// otherwise. Default 8192.
	MaxSessionPendingQueries int
	// MaxSessionPendingQueryBytes bounds what the queries from remote
	// nodes in progress hold in the whole session, as
	// MaxSessionPendingQueries does. Default 32 MiB.
	MaxSessionPendingQueryBytes int
	// MaxQueryTimeout clamps the timeout of a query the session forwards
	// for a remote node (a peer relays its clients' queries): such a
	// query holds the session's memory until it ends. Queries handed to
	// local queryables keep their timeout (rmw_zenoh asks an action's
	// result with none), as the queryable decides when they end. Default
	// 600 s, the timeout of rmw_zenoh's service calls.
	MaxQueryTimeout time.Duration
	// ReassemblyTimeout bounds how long an incomplete fragmented message
	// is kept: it is dropped, and its memory released, when its next
	// fragment is later than this after the last one, or after its first
	// one plus a second per MiB received (so that a trickle of fragments
	// cannot hold it either), even while the remote sends keep-alives.
	// Counted under LimitReassemblyTimeout; the link is kept. Default 2 s.
	ReassemblyTimeout time.Duration
}

// resolve fills zero fields with defaults and turns negative ones into
// "no limit".
func (lm Limits) resolve() (Limits, error) {
	ints := []struct {
		p   *int
		def int
	}{
		{&lm.MaxLinks, DefaultMaxLinks},
		{&lm.MaxLinksPerIP, DefaultMaxLinksPerIP},
		{&lm.MaxHandshakes, DefaultMaxHandshakes},
		{&lm.MaxHandshakesPerIP, DefaultMaxHandshakesPerIP},
		{&lm.MaxHandshakeBytes, DefaultMaxHandshakeBytes},
		{&lm.MaxAliases, DefaultMaxAliases},
		{&lm.MaxAliasBytes, DefaultMaxAliasBytes},
		{&lm.MaxSessionAliasBytes, DefaultMaxSessionAliasBytes},
		{&lm.MaxDeclarations, DefaultMaxDeclarations},
		{&lm.MaxRelayedDeclarations, DefaultMaxRelayedDeclarations},
		{&lm.MaxQueuedBytes, DefaultMaxQueuedBytes},
		{&lm.MaxSessionQueuedBytes, DefaultMaxSessionQueuedBytes},
		{&lm.MaxPendingQueries, DefaultMaxPendingQueries},
		{&lm.MaxPendingQueryBytes, DefaultMaxPendingQueryBytes},
		{&lm.MaxSessionPendingQueries, DefaultMaxSessionPendingQueries},
		{&lm.MaxSessionPendingQueryBytes, DefaultMaxSessionPendingQueryBytes},
	}
	for _, f := range ints {
		switch {
		case *f.p == 0:
			*f.p = f.def
		case *f.p < 0:
			*f.p = noLimit
		}
	}
	switch {
	case lm.MaxPeerLease == 0:
		lm.MaxPeerLease = DefaultMaxPeerLease
	case lm.MaxPeerLease < 0:
		lm.MaxPeerLease = maxLease
	case lm.MaxPeerLease < time.Millisecond:
		return lm, fmt.Errorf("%w: Limits.MaxPeerLease below 1 ms", ErrInvalidConfig)
	}
	switch {
	case lm.ReassemblyTimeout == 0:
		lm.ReassemblyTimeout = DefaultReassemblyTimeout
	case lm.ReassemblyTimeout < 0:
		lm.ReassemblyTimeout = maxLease
	}
	switch {
	case lm.MaxQueryTimeout == 0:
		lm.MaxQueryTimeout = DefaultMaxQueryTimeout
	case lm.MaxQueryTimeout < 0:
		lm.MaxQueryTimeout = maxLease
	}
	if lm.MaxHandshakeBytes < 2*minHandshakeMessage {
		return lm, fmt.Errorf("%w: Limits.MaxHandshakeBytes %d below %d", ErrInvalidConfig, lm.MaxHandshakeBytes, 2*minHandshakeMessage)
	}
	return lm, nil
}

const (
	// noLimit stands for a lifted limit.
	noLimit = int(^uint(0) >> 1)
	// maxLease is the largest lease the wire can carry (in seconds as a
	// 64-bit zint), far beyond any real one.
	maxLease = time.Duration(1<<63 - 1)
	// minHandshakeMessage is a generous size of a minimal INIT or OPEN
	// (a 16-byte ZID, no extensions).
	minHandshakeMessage = 64
)

// limitError reports a remote exceeding a limit; it matches ErrTooLarge.
type limitError struct {
	limit string // a Limit* name
	max   int
	what  string // what exceeded it, for the message
}

func (e *limitError) Error() string {
	return fmt.Sprintf("zenoh: %s exceeds the limit %s=%d", e.what, e.limit, e.max)
}

// Is makes a limitError match ErrTooLarge.
func (e *limitError) Is(target error) bool { return target == ErrTooLarge }

// sourceAddr is the address a connection comes from, without its port.
func sourceAddr(c net.Conn) netip.Addr {
	if ap, err := netip.ParseAddrPort(c.RemoteAddr().String()); err == nil {
		return ap.Addr().Unmap()
	}
	return netip.Addr{}
}

// closeForLimit ends l because its remote exceeded a limit, logging and
// counting it once.
func (l *link) closeForLimit(le *limitError) {
	if l.limitHit.Swap(true) {
		return
	}
	if n, log := l.s.countClosed(le.limit); log {
		l.log.Warn("zenoh: closing link over a limit", "link", l.String(), "limit", le.limit, "max", le.max, "err", le.Error(), "count", n)
	}
	l.close(wire.CloseInvalid, le)
}

// clampLease applies Limits.MaxPeerLease to the lease a remote announced.
func (s *Session) clampLease(lease time.Duration) time.Duration {
	if max := s.cfg.Limits.MaxPeerLease; lease > max {
		s.countLimit(LimitPeerLease)
		return max
	}
	return lease
}

// LimitPeerLease names Limits.MaxPeerLease in Stats.ByLimit: it counts the
// remotes whose announced lease was clamped (their links are kept).
const LimitPeerLease = "MaxPeerLease"

// checkDeclarations reports whether l may declare one more subscriber,
// queryable or token (s.mu held).
func (l *link) checkDeclarations() error {
	max := l.s.cfg.Limits.MaxDeclarations
	if len(l.remoteSubs)+len(l.remoteQabls)+len(l.remoteTokens) >= max {
		return &limitError{limit: LimitDeclarations, max: max, what: "declaration count"}
	}
	return nil
}

// maxSampleOverhead bounds the bytes a PUSH or RESPONSE adds to the key,
// payload, attachment and encoding schema of a sample: message and
// extension headers, lengths, a timestamp and a responder ID.
const maxSampleOverhead = 256

// checkSampleSize returns an error matching ErrTooLarge when a sample of
// these parts could encode to more than MaxMessageSize, the largest
// message this session sends (and accepts): a receiver would drop it.
func (s *Session) checkSampleSize(key string, payload, attachment, schema []byte) error {
	n := len(key) + len(payload) + len(attachment) + len(schema) + maxSampleOverhead
	if n > s.cfg.MaxMessageSize {
		return fmt.Errorf("%w: a payload of %d bytes (with key, attachment and headers up to %d) is over the message size limit of %d bytes (Config.MaxMessageSize)",
			ErrTooLarge, len(payload), n, s.cfg.MaxMessageSize)
	}
	return nil
}
