package zenoh

import "slices"

// The declarations announced to a link l are the local ones and, when l
// is a peer, only those of client links (peers route for their clients
// only; see visible), but for those aggregated (routing_relay.go). Listing them from the local indexes and the other
// links' own maps, rather than filtering every declaration, keeps an
// answer to a remote's interest proportional to what l may see: a remote
// that declared many subscribers, queryables or tokens does not make its
// own interests (nor other peers') cost more.

// localDecls indexes the local queryables and tokens by id (the local
// subscriptions are in routeState.locals); guarded by s.mu.
type localDecls struct {
	qabls  map[uint32]*qablEntry
	tokens map[uint32]*tokEntry
}

// seesLink reports whether the declarations of link m are announced to l.
func seesLink(m, l *link) bool { return m != l && (m.isClient() || l.isClient()) }

// visibleEntriesLocked lists the subscriptions announced to l, in
// declaration order.
func (s *Session) visibleEntriesLocked(l *link) []*subEntry {
	out := make([]*subEntry, 0, len(s.rt.locals))
	for _, e := range s.rt.locals {
		out = append(out, e)
	}
	for m := range s.links {
		if seesLink(m, l) {
			for _, id := range m.remoteSubs {
				if e := s.entries[id]; e != nil && e.relay != relayAgg {
					out = append(out, e)
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b *subEntry) int { return int(a.id) - int(b.id) })
	return out
}

// visibleQablsLocked lists the queryables announced to l, in declaration
// order.
func (s *Session) visibleQablsLocked(l *link) []*qablEntry {
	out := make([]*qablEntry, 0, len(s.local.qabls))
	for _, e := range s.local.qabls {
		out = append(out, e)
	}
	for m := range s.links {
		if seesLink(m, l) {
			for _, id := range m.remoteQabls {
				if e := s.qabls[id]; e != nil && e.relay != relayAgg {
					out = append(out, e)
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b *qablEntry) int { return int(a.id) - int(b.id) })
	return out
}

// visibleTokensLocked lists the tokens announced to l, in declaration
// order.
func (s *Session) visibleTokensLocked(l *link) []*tokEntry {
	out := make([]*tokEntry, 0, len(s.local.tokens))
	for _, e := range s.local.tokens {
		out = append(out, e)
	}
	for m := range s.links {
		if seesLink(m, l) {
			for _, id := range m.remoteTokens {
				if e := s.tokens[id]; e != nil && e.relay != relayAgg {
					out = append(out, e)
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b *tokEntry) int { return int(a.id) - int(b.id) })
	return out
}

// noteQablLocked keeps the index of local queryables up to date.
func (s *Session) noteQablLocked(e *qablEntry, add bool) {
	if e.origin != nil {
		return
	}
	if add {
		if s.local.qabls == nil {
			s.local.qabls = make(map[uint32]*qablEntry)
		}
		s.local.qabls[e.id] = e
	} else {
		delete(s.local.qabls, e.id)
	}
}

// noteTokenLocked keeps the index of local tokens up to date.
func (s *Session) noteTokenLocked(e *tokEntry, add bool) {
	if e.origin != nil {
		return
	}
	if add {
		if s.local.tokens == nil {
			s.local.tokens = make(map[uint32]*tokEntry)
		}
		s.local.tokens[e.id] = e
	} else {
		delete(s.local.tokens, e.id)
	}
}
