package zenoh

import (
	"context"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// A LivelinessGet answers from the session's table of tokens once the
// table holds the tokens of every linked node:
//   - a router (or, in client mode, the node we are a client of) has
//     answered our interest in its declarations (link.subsKnown);
//   - a peer has sent the declarations it pushes when the link comes up,
//     which it ends with D_FINAL for the implicit initial interest, id 0
//     (link.declsKnown).
//
// A peer linked so recently that its D_FINAL has not come yet is asked
// directly, as Rust Zenoh does for a liveliness query: an INTEREST in its
// current tokens on the queried key, which it answers (tokens, then
// D_FINAL) after the declarations it pushed when the link came up. The
// tokens of such an answer go to the query only: a current-only answer
// declares nothing (Rust numbers its tokens 0 there), so they stay out of
// the table and raise no liveliness events.

// livInterestBase is the first interest id a LivelinessGet uses; 0 is the
// initial interest and subsInterestID the interest sent to routers.
const livInterestBase = subsInterestID + 1

// livQuery is a LivelinessGet waiting for peers to answer its interest.
// It is guarded by Session.mu.
type livQuery struct {
	id      uint32
	key     string
	waiting map[*link]bool      // peers whose D_FINAL is awaited
	keys    []string            // the tokens they answered with, in order
	seen    map[string]struct{} // keys, to keep each once
}

// LivelinessGet returns the key expressions of the tokens intersecting key
// that are alive now, locally or on linked nodes, each once.
//
// It first waits for the linked nodes to have reported their tokens: a
// router answers the session's interest in its declarations; a peer pushes
// its declarations when the link comes up, and one linked so recently
// that they have not all arrived is asked for its tokens on key directly.
// The wait ends with ctx (LivelinessGet then returns ctx.Err()) or after
// DefaultQueryTimeout, when the tokens known by then are returned.
func (s *Session) LivelinessGet(ctx context.Context, key string) ([]string, error) {
	key, err := checkKeyExpr(key)
	if err != nil {
		return nil, err
	}
	if err := ctxDone(ctx); err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrSessionClosed
	}
	q := s.startLivQueryLocked(key)
	s.mu.Unlock()
	if q != nil {
		defer s.endLivQuery(q)
	}
	timer := time.NewTimer(DefaultQueryTimeout)
	defer timer.Stop()
	timedOut := false
	for {
		ch := s.waitChange()
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return nil, ErrSessionClosed
		}
		if timedOut || s.livKnownLocked(q) {
			out := s.livAnswerLocked(key, q)
			s.mu.Unlock()
			return out, nil
		}
		s.mu.Unlock()
		select {
		case <-ch:
		case <-timer.C:
			timedOut = true
			s.log.Debug("zenoh: liveliness get: linked nodes did not report their tokens in time", "key", key)
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-s.ctx.Done():
			return nil, ErrSessionClosed
		}
	}
}

// peerPendingLocked reports whether l is a peer whose initial
// declarations have not all arrived. It runs under s.mu.
func (s *Session) peerPendingLocked(l *link) bool {
	return s.cfg.Mode == ModePeer && l.whatami == wire.Peer && !l.declsKnown
}

// declsPendingLocked reports whether the declarations of l are not all
// known yet: a router that has not answered our interest, or a peer that
// has not sent all its initial declarations. It runs under s.mu.
func (s *Session) declsPendingLocked(l *link) bool {
	return (l.askedSubs && !l.subsKnown) || s.peerPendingLocked(l)
}

// startLivQueryLocked asks the peers whose initial declarations are not
// all in for their tokens on key. It returns nil when there are none. It
// runs under s.mu.
func (s *Session) startLivQueryLocked(key string) *livQuery {
	var q *livQuery
	var msg []byte
	for l := range s.links {
		if l.removed || !s.peerPendingLocked(l) {
			continue
		}
		if q == nil {
			q = &livQuery{id: s.nextLivInterestLocked(), key: key,
				waiting: make(map[*link]bool), seen: make(map[string]struct{})}
			if msg = appendLivInterest(nil, q.id, key); len(msg) == 0 {
				return nil // not encodable: answer from the table
			}
			if s.livQs == nil {
				s.livQs = make(map[uint32]*livQuery)
			}
			s.livQs[q.id] = q
		}
		q.waiting[l] = true
		l.queueCtrl(msg)
	}
	return q
}

// nextLivInterestLocked returns an interest id no LivelinessGet in flight
// uses, never 0 or subsInterestID. It runs under s.mu.
func (s *Session) nextLivInterestLocked() uint32 {
	for {
		s.nextIID++
		if s.nextIID < livInterestBase {
			s.nextIID = livInterestBase
		}
		if s.livQs[s.nextIID] == nil {
			return s.nextIID
		}
	}
}

// endLivQuery forgets q; a late answer to it is then dropped.
func (s *Session) endLivQuery(q *livQuery) {
	s.mu.Lock()
	delete(s.livQs, q.id)
	s.mu.Unlock()
}

// livKnownLocked reports whether every linked node's tokens are known: no
// router is still to answer our interest, and every peer q waits for has
// answered it, sent all its initial declarations, or gone. It runs under
// s.mu.
func (s *Session) livKnownLocked(q *livQuery) bool {
	for l := range s.links {
		if l.askedSubs && !l.subsKnown {
			return false
		}
	}
	if q == nil {
		return true
	}
	for l := range q.waiting {
		if l.removed || l.declsKnown {
			delete(q.waiting, l)
		}
	}
	return len(q.waiting) == 0
}

// livAnswerLocked lists the tokens intersecting key: those of the table in
// declaration order, then those only q's answers had. It runs under s.mu.
func (s *Session) livAnswerLocked(key string, q *livQuery) []string {
	var out []string
	seen := make(map[string]struct{})
	add := func(k string) {
		if _, dup := seen[k]; !dup {
			seen[k] = struct{}{}
			out = append(out, k)
		}
	}
	for _, e := range s.sortedTokens() {
		if intersects(key, e.key) {
			add(e.key)
		}
	}
	if q != nil {
		for _, k := range q.keys {
			add(k)
		}
	}
	return out
}

// declareFinal records D_FINAL from l for interest id: the end of a
// router's answer to our interest in its declarations, of a peer's
// initial declarations (id 0), or of a peer's answer to a LivelinessGet.
func (s *Session) declareFinal(l *link, id uint32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l.removed {
		return
	}
	switch {
	case id == subsInterestID && l.askedSubs:
		if !l.subsKnown {
			l.subsKnown = true
			s.rebuildLocked()
		}
	case id == 0:
		if !l.declsKnown {
			l.declsKnown = true
			s.notifyLocked()
		}
	default:
		if q := s.livQs[id]; q != nil && q.waiting[l] {
			delete(q.waiting, l)
			s.notifyLocked()
		}
	}
}

// livReplyLocked takes D_TOKEN from l answering interest id. It reports
// false when id is not a LivelinessGet's (the token is then a
// declaration). The answer of a LivelinessGet in flight is kept for it,
// within the declaration limit, and any other is dropped. It runs under
// s.mu.
func (s *Session) livReplyLocked(l *link, id uint32, key string) bool {
	if id < livInterestBase {
		return false
	}
	q := s.livQs[id]
	if q == nil || !q.waiting[l] || !intersects(q.key, key) || len(q.keys) >= s.cfg.Limits.MaxDeclarations {
		return true
	}
	if _, dup := q.seen[key]; !dup {
		q.seen[key] = struct{}{}
		q.keys = append(q.keys, key)
	}
	return true
}

// appendLivInterest encodes INTEREST (current mode) in the tokens on key.
func appendLivInterest(b []byte, id uint32, key string) []byte {
	m := wire.Interest{ID: id, Mode: wire.InterestCurrent,
		Options:  wire.InterestKeyExprs | wire.InterestTokens | wire.InterestRestricted,
		WireExpr: wire.WireExpr{Suffix: []byte(key)}}
	out, err := m.AppendBinary(b)
	if err != nil {
		return b
	}
	return out
}
