package zenoh

// Declarations relayed for other links. A peer announces to every link the
// subscribers, queryables and tokens of its clients, and to its clients
// those of its other links (see visible). Each link's own declarations are
// bounded (Limits.MaxDeclarations), but not what several links add up to:
// two clients declaring 40,000 subscribers each made the session announce
// 80,000 to a Go peer, which closed the link over its own MaxDeclarations,
// dialled again and was closed again, losing nearly all its samples.
//
// So the declarations relayed one by one are bounded for the whole session
// (Limits.MaxRelayedDeclarations, half a default peer's MaxDeclarations,
// leaving the other half for the session's own). Beyond it, as Rust Zenoh
// aggregates declarations towards a node, the subscribers and queryables
// are announced aggregated: each link that may see one of them gets one
// subscriber and one queryable on "**" from the session instead, declared
// while there is one, so that everything that could match still comes to
// the session, which routes it as before (only more traffic reaches it).
// A liveliness token cannot be aggregated (a token on "**" would say that
// everything is alive): beyond the bound, tokens are not relayed. Every
// declaration over the bound is counted (LimitRelayedDeclarations) and
// logged.
//
// The budget is shared fairly: at the bound, the link whose declarations
// hold the most slots gives one up (its newest is aggregated instead) to a
// link that holds fewer, so that one link filling the budget cannot keep
// another link's tokens from being relayed; and when a slot is freed, the
// oldest aggregated declaration is announced on its own again, so that
// once an attacker is gone, everything is relayed as before.

// LimitRelayedDeclarations names Limits.MaxRelayedDeclarations in
// Stats.ByLimit.
const LimitRelayedDeclarations = "MaxRelayedDeclarations"

// States of a declaration made over a link (subEntry.relay and the same in
// qablEntry and tokEntry).
const (
	relayLocal uint8 = iota // the session's own, or not relayed: announced as it is
	relayOne                // relayed on its own
	relayAgg                // covered by the aggregate, or (tokens) not relayed
)

// Kinds of declarations.
const (
	kindSub uint8 = iota
	kindQabl
	kindTok
)

// relayRef names a declaration made over a link.
type relayRef struct {
	kind uint8
	id   uint32
}

// relayTable is the session's state of the relayed declarations (s.mu).
type relayTable struct {
	n    int        // declarations relayed on their own
	nAgg int        // declarations aggregated (or tokens not relayed)
	over []relayRef // those, oldest first (with stale references)
	head int        // over[head:] is current
}

// relayDecl is what the relay needs of a declaration.
type relayDecl struct {
	key      string
	complete bool
	origin   *link
	state    *uint8
}

// relayDeclLocked looks a declaration made over a link up (s.mu held).
func (s *Session) relayDeclLocked(r relayRef) (relayDecl, bool) {
	switch r.kind {
	case kindSub:
		if e := s.entries[r.id]; e != nil && e.origin != nil {
			return relayDecl{key: e.key, origin: e.origin, state: &e.relay}, true
		}
	case kindQabl:
		if e := s.qabls[r.id]; e != nil && e.origin != nil {
			return relayDecl{key: e.key, complete: e.complete, origin: e.origin, state: &e.relay}, true
		}
	case kindTok:
		if e := s.tokens[r.id]; e != nil && e.origin != nil {
			return relayDecl{key: e.key, origin: e.origin, state: &e.relay}, true
		}
	}
	return relayDecl{}, false
}

// relayAddLocked decides how declaration r, just made over origin (nil:
// the session's own), is announced: relayLocal and relayOne ones on their
// own (by the caller), relayAgg ones aggregated here (s.mu held).
func (s *Session) relayAddLocked(r relayRef, origin *link) uint8 {
	if origin == nil || s.cfg.Mode != ModePeer {
		return relayLocal
	}
	if s.relay.n >= s.cfg.Limits.MaxRelayedDeclarations && !s.makeRelayRoomLocked(origin) {
		s.relay.nAgg++
		s.relay.over = append(s.relay.over, r)
		s.compactOverLocked()
		if n, log := s.countLimit(LimitRelayedDeclarations); log {
			origin.log.Warn("zenoh: relaying a declaration aggregated (a token: not at all), over the limit",
				"link", origin.String(), "limit", LimitRelayedDeclarations, "max", s.cfg.Limits.MaxRelayedDeclarations, "count", n)
		}
		if r.kind != kindTok {
			s.aggEachLocked(origin, r.kind, +1)
		}
		return relayAgg
	}
	s.relay.n++
	origin.relayOne++
	origin.relayed = append(origin.relayed, r)
	s.compactRelayedLocked(origin)
	return relayOne
}

// relayRemoveLocked follows the removal of declaration r, made over origin
// in state (already out of the session's maps): an aggregated one is taken
// off the aggregates, and a slot freed by one relayed on its own goes to
// the oldest aggregated declaration (s.mu held).
func (s *Session) relayRemoveLocked(r relayRef, origin *link, state uint8) {
	switch state {
	case relayOne:
		s.relay.n--
		origin.relayOne--
		s.promoteLocked()
	case relayAgg:
		s.relay.nAgg--
		if r.kind != kindTok {
			s.aggEachLocked(origin, r.kind, -1)
		}
	}
}

// makeRelayRoomLocked gives the relay slot of the newest declaration of
// the link holding the most slots to origin, if that link holds more than
// origin would; it reports whether it did (s.mu held).
func (s *Session) makeRelayRoomLocked(origin *link) bool {
	var v *link
	for l := range s.links {
		if !l.removed && (v == nil || l.relayOne > v.relayOne) {
			v = l
		}
	}
	if v == nil || v.relayOne <= origin.relayOne+1 {
		return false
	}
	for len(v.relayed) > 0 {
		r := v.relayed[len(v.relayed)-1]
		v.relayed = v.relayed[:len(v.relayed)-1]
		d, ok := s.relayDeclLocked(r)
		if !ok || d.origin != v || *d.state != relayOne {
			continue // gone, or not relayed on its own any more
		}
		*d.state = relayAgg
		s.relay.n--
		v.relayOne--
		s.relay.nAgg++
		s.relay.over = append(s.relay.over, r)
		s.compactOverLocked()
		s.countLimit(LimitRelayedDeclarations)
		s.announceLocked(r, d, false)
		if r.kind != kindTok {
			s.aggEachLocked(v, r.kind, +1)
		}
		return true
	}
	return false
}

// promoteLocked announces the oldest aggregated declarations on their own
// while there are free slots (s.mu held).
func (s *Session) promoteLocked() {
	rt := &s.relay
	for rt.n < s.cfg.Limits.MaxRelayedDeclarations && rt.head < len(rt.over) {
		r := rt.over[rt.head]
		rt.over[rt.head] = relayRef{}
		rt.head++
		d, ok := s.relayDeclLocked(r)
		if !ok || *d.state != relayAgg || d.origin.removed {
			continue // gone, or going with its link
		}
		*d.state = relayOne
		rt.nAgg--
		rt.n++
		d.origin.relayOne++
		d.origin.relayed = append(d.origin.relayed, r)
		s.announceLocked(r, d, true)
		if r.kind != kindTok {
			s.aggEachLocked(d.origin, r.kind, -1)
		}
	}
	if rt.head == len(rt.over) {
		rt.over, rt.head = rt.over[:0], 0
	}
}

// compactOverLocked drops the consumed and stale references of s.relay.over
// when they are many.
func (s *Session) compactOverLocked() {
	rt := &s.relay
	if len(rt.over) < 1024 || len(rt.over) < 2*rt.nAgg {
		return
	}
	kept := rt.over[:0]
	for _, r := range rt.over[rt.head:] {
		if d, ok := s.relayDeclLocked(r); ok && *d.state == relayAgg {
			kept = append(kept, r)
		}
	}
	clear(rt.over[len(kept):])
	rt.over, rt.head = kept, 0
}

// compactRelayedLocked drops the stale references of l.relayed when they
// are many.
func (s *Session) compactRelayedLocked(l *link) {
	if len(l.relayed) < 1024 || len(l.relayed) < 2*l.relayOne {
		return
	}
	kept := l.relayed[:0]
	for _, r := range l.relayed {
		if d, ok := s.relayDeclLocked(r); ok && d.origin == l && *d.state == relayOne {
			kept = append(kept, r)
		}
	}
	clear(l.relayed[len(kept):])
	l.relayed = kept
}

// announceLocked declares (or withdraws) declaration r on its own to the
// links that may see it and take declarations (s.mu held).
func (s *Session) announceLocked(r relayRef, d relayDecl, declare bool) {
	var msg []byte
	switch {
	case r.kind == kindSub && declare:
		msg = appendDeclareSubscriber(nil, nil, r.id, d.key)
	case r.kind == kindSub:
		msg = appendUndeclareSubscriber(nil, r.id)
	case r.kind == kindQabl && declare:
		msg = appendDeclareQueryable(nil, nil, r.id, d.key, d.complete)
	case r.kind == kindQabl:
		msg = appendUndeclareQueryable(nil, r.id)
	case declare:
		msg = appendDeclareToken(nil, nil, r.id, d.key)
	default:
		msg = appendUndeclareToken(nil, r.id, d.key)
	}
	s.declareLocked(msg, func(l *link) bool { return seesLink(d.origin, l) })
}

// aggEachLocked adds delta aggregated declarations of kind, made over
// origin, to every link that may see them (s.mu held).
func (s *Session) aggEachLocked(origin *link, kind uint8, delta int) {
	for l := range s.links {
		if seesLink(origin, l) {
			s.aggAddLocked(l, kind, delta)
		}
	}
}

// aggAddLocked adds delta to the aggregated declarations of kind that l
// may see, declaring the aggregate to l when the first comes and
// withdrawing it when the last goes (s.mu held).
func (s *Session) aggAddLocked(l *link, kind uint8, delta int) {
	l.aggN[kind] += delta
	switch {
	case l.aggN[kind] > 0 && !l.aggSent[kind] && l.wantsDecl:
		l.queueCtrl(s.appendAggLocked(nil, l, kind, nil))
		l.aggSent[kind] = true
	case l.aggN[kind] <= 0 && l.aggSent[kind]:
		if kind == kindSub {
			l.queueCtrl(appendUndeclareSubscriber(nil, l.aggID[kind]))
		} else {
			l.queueCtrl(appendUndeclareQueryable(nil, l.aggID[kind]))
		}
		l.aggSent[kind] = false
	}
}

// appendAggLocked encodes the aggregate of kind that l gets (a subscriber
// or a queryable on "**"), as the answer to interest if not nil (s.mu
// held).
func (s *Session) appendAggLocked(b []byte, l *link, kind uint8, interest *uint32) []byte {
	if l.aggID[kind] == 0 {
		s.nextID++
		l.aggID[kind] = s.nextID
	}
	if kind == kindSub {
		return appendDeclareSubscriber(b, interest, l.aggID[kind], "**")
	}
	return appendDeclareQueryable(b, interest, l.aggID[kind], "**", false)
}

// countAggLocked counts the aggregated declarations a new link l may see
// (s.mu held).
func (s *Session) countAggLocked(l *link) {
	if s.relay.nAgg == 0 {
		return
	}
	for _, e := range s.entries {
		if e.relay == relayAgg && seesLink(e.origin, l) {
			l.aggN[kindSub]++
		}
	}
	for _, e := range s.qabls {
		if e.relay == relayAgg && seesLink(e.origin, l) {
			l.aggN[kindQabl]++
		}
	}
}

// remoteClosedInvalid logs and counts a link the remote closed as invalid,
// with the declarations announced to it: a peer with a smaller
// MaxDeclarations than MaxRelayedDeclarations and the session's own, or a
// session with more of its own than the peer's limit.
func (s *Session) remoteClosedInvalid(l *link) {
	s.stats.closedByRemote()
	s.mu.Lock()
	n := len(s.visibleEntriesLocked(l)) + len(s.visibleQablsLocked(l)) + len(s.visibleTokensLocked(l))
	for _, sent := range l.aggSent {
		if sent {
			n++
		}
	}
	s.mu.Unlock()
	l.log.Warn("zenoh: the remote closed the link as invalid (over one of its limits?)", "link", l.String(),
		"declarations", n, "limit", LimitRelayedDeclarations, "max", s.cfg.Limits.MaxRelayedDeclarations)
}
