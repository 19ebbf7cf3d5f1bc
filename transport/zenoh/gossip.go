package zenoh

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// GossipConfig configures gossip scouting, on by default in peer mode as
// in Rust Zenoh. A peer tells the routers (and peers) it links to where it
// listens, in link-state messages; a router passes each peer's locators on
// to the other peers it links to; and each peer that learns of another
// links to it directly, so that data between peers goes peer to peer, not
// through the router. Two peers that connect only to a router find each
// other this way. A client ignores gossip.
//
// As a Rust peer with multihop off, a session passes on nothing it hears:
// only its own state goes out, with its links.
type GossipConfig struct {
	// Disabled turns gossip off: no link state is sent, and the ones
	// received are ignored.
	Disabled bool
	// Target lists the roles of the linked nodes that the session sends
	// its link state to. Default RoleRouter and RolePeer, Rust Zenoh's
	// default for a peer; rmw_zenoh uses RoleRouter only. RoleClient is
	// refused, as in Rust Zenoh.
	Target []Role
	// Autoconnect lists the roles of the nodes learned by gossip that the
	// session links to. Default RoleRouter and RolePeer. Clients are never
	// linked to (they do not listen).
	Autoconnect []Role
	// ToPeer tells which of two peers that learn of each other dials the
	// other: AutoconnectAlways (default) or AutoconnectGreaterZID
	// (rmw_zenoh's choice). Routers learned by gossip are always dialled.
	ToPeer AutoconnectStrategy
}

// AutoconnectStrategy tells whether a peer links to another peer it
// learned of by scouting.
type AutoconnectStrategy int

const (
	// AutoconnectAlways links to every peer learned of. The peer with the
	// greater ZID dials at once; the other one dials only if no link came
	// from it after a short wait, so that the two make one link, not two.
	AutoconnectAlways AutoconnectStrategy = iota
	// AutoconnectGreaterZID lets only the peer with the greater ZID dial
	// (Rust Zenoh's "greater-zid"): the other one waits to be dialled.
	AutoconnectGreaterZID
)

// String returns "always" or "greater-zid", as Rust Zenoh's configuration
// names them.
func (a AutoconnectStrategy) String() string {
	switch a {
	case AutoconnectAlways:
		return "always"
	case AutoconnectGreaterZID:
		return "greater-zid"
	}
	return fmt.Sprintf("AutoconnectStrategy(%d)", int(a))
}

// maxGossipNames bounds the psid-to-ZID mappings kept per link.
const maxGossipNames = wire.MaxLinkStates

// gossiper is the gossip state of a peer session.
type gossiper struct {
	target      wire.WhatAmIMatcher
	autoconnect wire.WhatAmIMatcher
	toPeer      AutoconnectStrategy
	grace       time.Duration // how long the smaller ZID waits to be dialled

	sn uint64 // our link state's sequence number (Session.mu)

	// Link-state lists received and decoded, and dropped as undecodable.
	received, dropped atomic.Uint64

	mu      sync.Mutex
	pending map[string]bool // ZIDs being dialled
}

// resolveGossip validates c into a gossiper, or nil when gossip is off.
func (c *resolved) resolveGossip() (*gossiper, error) {
	g := c.Gossip
	if g.Disabled || c.Mode != ModePeer {
		return nil, nil
	}
	roles := func(what string, rs []Role) (wire.WhatAmIMatcher, error) {
		if rs == nil {
			return wire.MatchRouter | wire.MatchPeer, nil
		}
		var m wire.WhatAmIMatcher
		for _, r := range rs {
			if r != RoleRouter && r != RolePeer && (r != RoleClient || what == "target") {
				return 0, fmt.Errorf("%w: gossip %s %v", ErrInvalidConfig, what, r)
			}
			m |= 1 << (r - 1)
		}
		return m, nil
	}
	t, err := roles("target", g.Target)
	if err != nil {
		return nil, err
	}
	a, err := roles("autoconnect", g.Autoconnect)
	if err != nil {
		return nil, err
	}
	if g.ToPeer != AutoconnectAlways && g.ToPeer != AutoconnectGreaterZID {
		return nil, fmt.Errorf("%w: %v", ErrInvalidConfig, g.ToPeer)
	}
	return &gossiper{target: t, autoconnect: a &^ wire.MatchClient, toPeer: g.ToPeer,
		grace: c.RetryInterval / 2, pending: make(map[string]bool)}, nil
}

// dialsFirst reports whether this session, rather than the node zid,
// dials when the two learn of each other by scouting or gossip: the one
// with the greater ZID does (ZIDs compared as their little-endian wire
// bytes, as Rust Zenoh's "greater-zid" compares them).
func (s *Session) dialsFirst(zid []byte) bool { return bytes.Compare(s.cfg.ZID, zid) > 0 }

// linkedTo reports whether the session has a link to zid (to any node when
// zid is nil).
func (s *Session) linkedTo(zid []byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if zid == nil {
		return len(s.links) > 0
	}
	for l := range s.links {
		if bytes.Equal(l.remoteZID, zid) {
			return true
		}
	}
	return false
}

// waitToBeDialled waits d for the node zid to dial us, reporting whether
// we still need to dial it.
func (s *Session) waitToBeDialled(zid []byte, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-s.ctx.Done():
		return false
	}
	return !s.linkedTo(zid)
}

// dialNode links to the node zid through the first of its locators that
// works, once: a lost link is found again by scouting or gossip. how names
// the discovery in logs.
func (s *Session) dialNode(zid []byte, locators []string, how string) {
	for _, loc := range locators {
		ep, err := parseEndpoint(loc)
		if err != nil {
			s.log.Debug("zenoh: "+how+": skipping locator", "locator", loc, "err", err)
			continue
		}
		dctx, cancel := context.WithTimeout(s.ctx, handshakeTimeout)
		conn, err := s.dialConn(dctx, ep)
		cancel()
		if err != nil {
			s.log.Debug("zenoh: "+how+": dial failed", "locator", loc, "err", err)
			continue
		}
		l, err := s.handshake(s.ctx, conn, true, nil)
		if err != nil {
			_ = conn.Close()
			s.log.Debug("zenoh: "+how+": handshake failed", "locator", loc, "err", err)
			continue
		}
		if !bytes.Equal(l.remoteZID, zid) {
			_ = conn.Close()
			s.log.Debug("zenoh: "+how+": node changed ZID", "locator", loc)
			continue
		}
		if _, err := s.register(l); err != nil {
			return // session closed, or already linked to that node
		}
		s.log.Debug("zenoh: linked to node found by "+how, "locator", loc)
		s.wg.Go(func() { s.serve(l) })
		return
	}
}

// gossipTo reports whether our link state goes to l.
func (g *gossiper) gossipTo(l *link) bool { return g.target.Matches(l.whatami) }

// queueLinkStatesLocked sends our link state, changed (a link came or
// went), to every link that gossip targets (Session.mu held).
func (s *Session) queueLinkStatesLocked() {
	g := s.gossip
	if g == nil {
		return
	}
	g.sn++
	var msg []byte
	for l := range s.links {
		if !g.gossipTo(l) {
			continue
		}
		if msg == nil {
			var err error
			if msg, err = s.appendLinkStateLocked(nil); err != nil {
				s.log.Error("zenoh: gossip: encode link state", "err", err)
				return
			}
		}
		l.queueCtrl(msg)
	}
}

// appendLinkStateLocked encodes our link state as a network OAM: our own
// entry (psid 0: ZID, role, locators and links), then one entry per linked
// node naming its psid (Session.mu held).
func (s *Session) appendLinkStateLocked(dst []byte) ([]byte, error) {
	zid, err := wire.NewZenohID(s.cfg.ZID)
	if err != nil {
		return dst, err
	}
	links := make([]*link, 0, len(s.links))
	for l := range s.links {
		links = append(links, l)
	}
	slices.SortFunc(links, func(a, b *link) int { return bytes.Compare(a.remoteZID, b.remoteZID) })
	states := make([]wire.LinkState, 1, 1+len(links))
	self := wire.LinkState{PSID: 0, SN: s.gossip.sn, HasZID: true, ZID: zid, HasWhatAmI: true,
		WhatAmI: wire.Peer, HasLocators: true, Locators: s.helloLocators(net.IPv4(127, 0, 0, 1))}
	if self.Locators == nil {
		self.Locators = []string{}
	}
	for i, l := range links {
		if len(states) > wire.MaxLinkStateLinks {
			break
		}
		nz, err := wire.NewZenohID(l.remoteZID)
		if err != nil {
			continue
		}
		psid := uint64(i + 1)
		self.Links = append(self.Links, psid)
		states = append(states, wire.LinkState{PSID: psid, HasZID: true, ZID: nz, HasWhatAmI: true, WhatAmI: l.whatami})
	}
	states[0] = self
	body, err := wire.AppendLinkStates(nil, states)
	if err != nil {
		return dst, err
	}
	m := wire.NetworkOAM{ID: wire.OAMLinkState, Encoding: wire.ExtZBuf, Body: body}
	m.HasQoS, m.QoS = true, wire.NewQoS(wire.PriorityControl, true, false)
	return m.AppendBinary(dst)
}

// handleOAM handles a network OAM received on l: gossip, when the session
// gossips; any other OAM is ignored, as the reference does. A link-state
// list that does not decode is logged and dropped (the link stays).
func (s *Session) handleOAM(l *link, m *wire.NetworkOAM) {
	g := s.gossip
	if g == nil || m.ID != wire.OAMLinkState {
		return
	}
	if m.Encoding != wire.ExtZBuf {
		g.dropped.Add(1)
		l.log.Warn("zenoh: gossip: dropping link state with a non-ZBuf body", "encoding", m.Encoding)
		return
	}
	states, err := wire.DecodeLinkStates(m.Body, wire.Limits{}, l.gossipBuf)
	l.gossipBuf = states
	if err != nil {
		g.dropped.Add(1)
		l.log.Warn("zenoh: gossip: dropping link state that does not decode", "err", err)
		return
	}
	g.received.Add(1)
	if l.gossipNames == nil {
		l.gossipNames = make(map[uint64]string)
	}
	for i := range states {
		st := &states[i]
		var zid []byte
		if st.HasZID {
			zid = st.ZID.Slice()
			if _, ok := l.gossipNames[st.PSID]; ok || len(l.gossipNames) < maxGossipNames {
				l.gossipNames[st.PSID] = string(zid)
			}
		} else if name, ok := l.gossipNames[st.PSID]; ok {
			zid = []byte(name)
		} else {
			l.log.Debug("zenoh: gossip: link state for an unknown psid", "psid", st.PSID)
			continue
		}
		w := wire.Router // what the reference assumes when the role is missing
		if st.HasWhatAmI {
			w = st.WhatAmI
		}
		if len(st.Locators) > 0 {
			s.gossipConnect(g, bytes.Clone(zid), w, slices.Clone(st.Locators))
		}
	}
}

// gossipConnect links to a node that gossip told of, unless it is us, a
// role we do not link to, already linked or being dialled, or a peer that
// dials us by the autoconnect rule.
func (s *Session) gossipConnect(g *gossiper, zid []byte, w wire.WhatAmI, locators []string) {
	if bytes.Equal(zid, s.cfg.ZID) || !g.autoconnect.Matches(w) || s.linkedTo(zid) {
		return
	}
	if w == wire.Peer && !s.dialsFirst(zid) && g.toPeer == AutoconnectGreaterZID {
		return // it dials us
	}
	key := string(zid)
	g.mu.Lock()
	if g.pending[key] {
		g.mu.Unlock()
		return
	}
	g.pending[key] = true
	g.mu.Unlock()
	s.wg.Go(func() {
		defer func() {
			g.mu.Lock()
			delete(g.pending, key)
			g.mu.Unlock()
		}()
		if w == wire.Peer && !s.dialsFirst(zid) && !s.waitToBeDialled(zid, g.grace) {
			return
		}
		s.log.Debug("zenoh: gossip: found node", "zid", fmt.Sprintf("%x", zid), "whatami", w.String(), "locators", locators)
		s.dialNode(zid, locators, "gossip")
	})
}
