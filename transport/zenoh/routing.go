package zenoh

import (
	"slices"
	"sync/atomic"
)

// Routing is incremental. The subscriptions live in s.entries; a change
// (one declared or undeclared, local or remote) costs O(1) plus the
// aggregated interests it touches: it is appended to a change log and bumps
// a generation counter. The link set (s.table) changes rarely; a new table
// also bumps the generation and empties the log.
//
// A publication reuses its route cache (one per Publisher, one per link's
// last received key) while the generation is unchanged: one atomic load,
// no lock, no allocation. After a change, the cache catches up by applying
// the log's records since its generation, each costing one intersection
// with the cache's key; only a cache older than the log (or than the link
// set) is recomputed from the subscriptions. The log keeps at least twice
// as many records as there are subscriptions, so such a recomputation
// happens at most once per that many changes: the work per change stays
// O(1) amortised per active route.
//
// A key without a cache (a new publisher, or a link's samples switching
// keys) is routed from scratch: one intersection per local subscription
// and per subscription of the links the source's samples go to (not the
// source's own, nor, between peers, other peers'), bounded per link by
// Limits.MaxDeclarations.

// routeState is the change log of the routing; guarded by s.mu except gen.
type routeState struct {
	gen  atomic.Uint64 // the generation: bumped on every change
	base uint64        // the generation before log[0]
	log  []routeChange // log[i] made generation base+i+1
	// locals holds the local subscriptions, by id.
	locals map[uint32]*subEntry
	// aggLinks holds the links that have (or had) aggregated interests.
	aggLinks map[*link]struct{}
}

// addAggLink notes that l has aggregated interests.
func (rt *routeState) addAggLink(l *link) {
	if rt.aggLinks == nil {
		rt.aggLinks = make(map[*link]struct{})
	}
	rt.aggLinks[l] = struct{}{}
}

// routeChange is one subscription that came or went.
type routeChange struct {
	e   *subEntry
	add bool
}

// minRouteLog is the shortest change log kept, whatever the subscriptions.
const minRouteLog = 1024

// table is an immutable snapshot of the session's links.
type table struct {
	// all lists every link.
	all []*link
	// unfiltered lists the links whose subscribers are not known (yet), to
	// which a client sends every publication.
	unfiltered map[*link]bool
}

// subEntry is a subscription known to the session: local (origin nil) or
// declared by a remote node over origin.
type subEntry struct {
	id     uint32
	key    string
	origin *link
	local  *Subscriber
	relay  uint8 // how it is announced (routing_relay.go)
}

// routeCache is an immutable destination set for one key, one source (nil
// for local publications) and one generation.
type routeCache struct {
	t     *table
	gen   uint64
	key   string
	src   *link
	local []*Subscriber // in declaration order
	links []*link
	// hits counts, for each of links, its subscriptions that intersect key
	// (0 for a link sent to because its subscribers are not known yet).
	hits []int32
	// matched counts the links in links known to have a matching
	// subscriber (the others are sent to because their subscribers are not
	// known yet).
	matched int
}

// route returns where a sample on key arriving from src (nil: local) goes,
// reusing c when nothing changed since it was computed for key.
func (s *Session) route(c *routeCache, key string, src *link) *routeCache {
	if c != nil && c.gen == s.rt.gen.Load() && c.key == key {
		return c
	}
	return s.reroute(c, key, src)
}

// reroute brings c up to date for key and src, or computes a new route.
func (s *Session) reroute(c *routeCache, key string, src *link) *routeCache {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.table.Load()
	gen := s.rt.gen.Load()
	if c == nil || c.key != key || c.src != src || c.t != t || c.gen < s.rt.base {
		return s.fullRouteLocked(t, gen, key, src)
	}
	if c.gen == gen {
		return c
	}
	// c may be in use without a lock: the result is always a new value.
	n := &routeCache{t: t, gen: gen, key: key, src: src, local: c.local, links: c.links, hits: c.hits, matched: c.matched}
	owned := false // whether n's slices are copies that may be changed
	for _, ch := range s.rt.log[c.gen-s.rt.base : gen-s.rt.base] {
		e := ch.e
		if e.local == nil && !s.relays(src, e.origin, t) {
			continue
		}
		if !intersects(e.key, key) {
			continue
		}
		if !owned {
			n.local, n.links, n.hits = slices.Clone(n.local), slices.Clone(n.links), slices.Clone(n.hits)
			owned = true
		}
		n.apply(e, ch.add)
	}
	return n
}

// relays reports whether a remote subscription from origin receives the
// samples from src under table t.
func (s *Session) relays(src, origin *link, t *table) bool {
	if s.cfg.Mode == ModeClient && src != nil {
		return false // a client relays nothing
	}
	if origin == src || t.unfiltered[origin] {
		return false // already sent to, or the sender itself
	}
	return src == nil || src.isClient() || origin.isClient()
}

// apply adds or removes subscription e, which intersects c.key and is
// relayed to, in c's own (copied) slices.
func (c *routeCache) apply(e *subEntry, add bool) {
	if e.local != nil {
		i := slices.Index(c.local, e.local)
		switch {
		case add && i < 0:
			c.local = append(c.local, e.local) // the newest id goes last
		case !add && i >= 0:
			c.local = slices.Delete(c.local, i, i+1)
		}
		return
	}
	i := slices.Index(c.links, e.origin)
	switch {
	case add && i < 0:
		c.links = append(c.links, e.origin)
		c.hits = append(c.hits, 1)
		c.matched++
	case add:
		c.hits[i]++
	case i >= 0 && c.hits[i] > 0:
		if c.hits[i]--; c.hits[i] == 0 {
			c.links = slices.Delete(c.links, i, i+1)
			c.hits = slices.Delete(c.hits, i, i+1)
			c.matched--
		}
	}
}

// fullRouteLocked computes the route of key from src from every
// subscription.
func (s *Session) fullRouteLocked(t *table, gen uint64, key string, src *link) *routeCache {
	c := &routeCache{t: t, gen: gen, key: key, src: src}
	if !(s.cfg.Mode == ModeClient && src != nil) {
		// A router that has not answered our interest yet gets everything.
		for l := range t.unfiltered {
			if l != src && (src == nil || src.isClient() || l.isClient()) {
				c.links = append(c.links, l)
				c.hits = append(c.hits, 0)
			}
		}
	}
	for _, e := range s.rt.locals {
		if intersects(e.key, key) {
			c.apply(e, true)
		}
	}
	// Only the subscriptions of the links that src's samples go to: a
	// link's own ones are not looked at when it publishes.
	for _, l := range t.all {
		if !s.relays(src, l, t) {
			continue
		}
		for _, id := range l.remoteSubs {
			if e := s.entries[id]; e != nil && intersects(e.key, key) {
				c.apply(e, true)
			}
		}
	}
	slices.SortFunc(c.local, func(a, b *Subscriber) int { return int(a.id) - int(b.id) })
	return c
}

// changedLocked records that subscription e came or went: it bumps the
// generation, logs the change, updates the aggregated interests and wakes
// the waiters of a routing change.
func (s *Session) changedLocked(e *subEntry, add bool) {
	rt := &s.rt
	if limit := max(minRouteLog, 2*len(s.entries)); len(rt.log) >= limit {
		// Drop the older half: a cache that old is recomputed in full.
		half := len(rt.log) / 2
		n := copy(rt.log, rt.log[half:])
		clear(rt.log[n:])
		rt.log = rt.log[:n]
		rt.base += uint64(half)
	}
	rt.log = append(rt.log, routeChange{e: e, add: add})
	rt.gen.Add(1)
	s.aggChangedLocked(e, add)
	s.notifyLocked()
}

// rebuildLocked publishes a new snapshot of the links, which makes every
// route be recomputed, and wakes waiters. It costs O(links).
func (s *Session) rebuildLocked() {
	t := &table{all: make([]*link, 0, len(s.links))}
	for l := range s.links {
		t.all = append(t.all, l)
		if l.askedSubs && !l.subsKnown {
			if t.unfiltered == nil {
				t.unfiltered = make(map[*link]bool)
			}
			t.unfiltered[l] = true
		}
	}
	s.table.Store(t)
	rt := &s.rt
	clear(rt.log)
	rt.log = rt.log[:0]
	rt.base = rt.gen.Add(1)
	s.notifyLocked()
}

// visible reports whether subscription e is announced to link l: our own
// subscriptions go to everyone; a remote one goes to other links when one
// of the two ends is a client (peers route for their clients only).
func (s *Session) visible(e *subEntry, l *link) bool {
	if e.origin == l {
		return false
	}
	return e.origin == nil || e.origin.isClient() || l.isClient()
}

// addEntryLocked registers a subscription and announces it.
func (s *Session) addEntryLocked(key string, origin *link, local *Subscriber) *subEntry {
	s.nextID++
	e := &subEntry{id: s.nextID, key: key, origin: origin, local: local}
	s.entries[e.id] = e
	if local != nil {
		if s.rt.locals == nil {
			s.rt.locals = make(map[uint32]*subEntry)
		}
		s.rt.locals[e.id] = e
	}
	// Route with the new entry before announcing it: a node that learns of
	// it may publish at once, and its samples must find the entry.
	s.changedLocked(e, true)
	if e.relay = s.relayAddLocked(relayRef{kindSub, e.id}, origin); e.relay != relayAgg {
		s.declareLocked(appendDeclareSubscriber(nil, nil, e.id, key), func(l *link) bool { return s.visible(e, l) })
	}
	return e
}

// removeEntryLocked forgets a subscription and withdraws it.
func (s *Session) removeEntryLocked(id uint32) {
	e, ok := s.entries[id]
	if !ok {
		return
	}
	delete(s.entries, id)
	delete(s.rt.locals, id)
	s.changedLocked(e, false)
	if e.relay != relayAgg {
		s.declareLocked(appendUndeclareSubscriber(nil, e.id), func(l *link) bool { return s.visible(e, l) })
	}
	s.relayRemoveLocked(relayRef{kindSub, e.id}, e.origin, e.relay)
}

// sortedEntries lists the subscriptions in declaration order.
func (s *Session) sortedEntries() []*subEntry {
	es := make([]*subEntry, 0, len(s.entries))
	for _, e := range s.entries {
		es = append(es, e)
	}
	slices.SortFunc(es, func(a, b *subEntry) int { return int(a.id) - int(b.id) })
	return es
}

// aggInterest is a remote's aggregated Future interest in subscribers on
// key: it is answered with one declaration of key itself, withdrawn when no
// subscriber intersects key any more.
type aggInterest struct {
	key      string
	declID   uint32
	declared bool
	// n counts the subscriptions visible to the link that intersect key.
	n int
}

// countMatchesLocked counts the subscriptions visible to l that intersect
// key.
func (s *Session) countMatchesLocked(l *link, key string) int {
	n := 0
	for _, e := range s.rt.locals {
		if intersects(e.key, key) {
			n++
		}
	}
	for m := range s.links {
		if seesLink(m, l) {
			for _, id := range m.remoteSubs {
				if e := s.entries[id]; e != nil && intersects(e.key, key) {
					n++
				}
			}
		}
	}
	return n
}

// aggChangedLocked updates the aggregated interests after subscription e
// came or went: declared when the first match comes, withdrawn when the
// last goes.
func (s *Session) aggChangedLocked(e *subEntry, add bool) {
	var scratch []byte
	for l := range s.rt.aggLinks {
		if l.removed || len(l.agg) == 0 {
			delete(s.rt.aggLinks, l) // deleting while ranging is allowed
			continue
		}
		if !s.visible(e, l) {
			continue
		}
		for _, a := range l.agg {
			if !intersects(e.key, a.key) {
				continue
			}
			if !add {
				a.n--
			} else {
				a.n++
			}
			switch {
			case a.n > 0 && !a.declared:
				s.nextID++
				a.declID, a.declared = s.nextID, true
				scratch = appendDeclareSubscriber(scratch[:0], nil, a.declID, a.key)
				l.queueCtrl(scratch)
			case a.n <= 0 && a.declared:
				a.declared = false
				scratch = appendUndeclareSubscriber(scratch[:0], a.declID)
				l.queueCtrl(scratch)
			}
		}
	}
}
