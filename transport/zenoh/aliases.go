package zenoh

import "fmt"

// A remote's key expression aliases (D_KEYEXPR) are bounded per link, by
// count (Limits.MaxAliases) and by the length of the keys they resolve to
// (MaxAliasBytes), and for the session (MaxSessionAliasBytes), so that many
// links each under its own bounds cannot add up: 120 links of 63 aliases
// of 65 KB each pinned 484 MB. At the session's bound the link holding the
// most pays, as it does for the other shared budgets: a link declaring its
// few aliases is not refused because others hold many. An alias longer
// than keyexpr.MaxLen can prefix no valid key, and ends its link as such a
// key does.

// LimitSessionAliasBytes names Limits.MaxSessionAliasBytes in
// Stats.ByLimit.
const LimitSessionAliasBytes = "MaxSessionAliasBytes"

// aliasOverhead is what an alias holds besides its key: its map entry and
// string header (about 40 bytes, rounded up).
const aliasOverhead = 64

// setAlias records the alias id -> key declared by the remote, within
// MaxAliases, MaxAliasBytes and MaxSessionAliasBytes (reader goroutine
// only).
func (l *link) setAlias(id uint16, key string) error {
	if err := l.checkPeerKey(key, nil); err != nil {
		return err // over the keyexpr limits: closed
	}
	lm := &l.s.cfg.Limits
	old, replaced := l.aliases[id]
	if !replaced && len(l.aliases) >= lm.MaxAliases {
		return &limitError{limit: LimitAliases, max: lm.MaxAliases, what: "key expression alias count"}
	}
	if n := l.aliasBytes - len(old) + len(key); n > lm.MaxAliasBytes {
		return &limitError{limit: LimitAliasBytes, max: lm.MaxAliasBytes, what: fmt.Sprintf("%d bytes of aliased keys", n)}
	}
	delta := len(key) - len(old)
	if !replaced {
		delta += aliasOverhead
	}
	if err := l.s.holdAliases(l, delta); err != nil {
		return err
	}
	l.aliasBytes += len(key) - len(old)
	l.aliases[id] = key
	l.lastKey = "" // the cache may hold the old meaning of this scope
	return nil
}

// dropAlias forgets an alias (reader goroutine only).
func (l *link) dropAlias(id uint16) {
	key, ok := l.aliases[id]
	if !ok {
		return
	}
	l.aliasBytes -= len(key)
	delete(l.aliases, id)
	l.lastKey = ""
	_ = l.s.holdAliases(l, -(len(key) + aliasOverhead)) // never fails
}

// holdAliases adds delta to what l's aliases hold, within
// MaxSessionAliasBytes: over it, the link holding the most is closed if it
// holds more than l would, else l is refused with a limitError.
func (s *Session) holdAliases(l *link, delta int) error {
	max := s.cfg.Limits.MaxSessionAliasBytes
	for {
		s.aliasMu.Lock()
		if l.aliasGone {
			s.aliasMu.Unlock()
			return errLinkClosed
		}
		if delta <= 0 || s.aliasHeld+delta <= max {
			s.aliasHeld += delta
			l.aliasHeld += delta
			s.aliasMu.Unlock()
			return nil
		}
		v := s.biggestAliasHolderLocked(l)
		if v == nil || v.aliasHeld <= l.aliasHeld+delta {
			held := s.aliasHeld
			s.aliasMu.Unlock()
			return &limitError{limit: LimitSessionAliasBytes, max: max, what: fmt.Sprintf("%d bytes of aliases in the session", held+delta)}
		}
		vHeld := v.aliasHeld
		v.releaseAliasesLocked()
		s.aliasMu.Unlock()
		v.closeForLimit(&limitError{limit: LimitSessionAliasBytes, max: max,
			what: fmt.Sprintf("the most aliases in the session (%d bytes) when another link declared one", vHeld)})
	}
}

// biggestAliasHolderLocked returns the link other than l whose aliases
// hold the most, or nil (s.aliasMu held).
func (s *Session) biggestAliasHolderLocked(l *link) *link {
	s.mu.Lock()
	defer s.mu.Unlock()
	var v *link
	for m := range s.links {
		if m != l && !m.aliasGone && (v == nil || m.aliasHeld > v.aliasHeld) {
			v = m
		}
	}
	return v
}

// releaseAliases takes l's aliases off the session's count when the link
// ends. It is idempotent: the link adds none after.
func (l *link) releaseAliases() {
	l.s.aliasMu.Lock()
	l.releaseAliasesLocked()
	l.s.aliasMu.Unlock()
}

func (l *link) releaseAliasesLocked() {
	if !l.aliasGone {
		l.aliasGone = true
		l.s.aliasHeld -= l.aliasHeld
		l.aliasHeld = 0
	}
}
