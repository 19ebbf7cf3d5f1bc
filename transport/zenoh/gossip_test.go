package zenoh

import (
	"errors"
	"log/slog"
	"testing"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
	"go.uber.org/goleak"
)

func TestGossipConfigValidated(t *testing.T) {
	for name, g := range map[string]GossipConfig{
		"client target":  {Target: []Role{RoleClient}},
		"bad role":       {Autoconnect: []Role{9}},
		"bad strategy":   {ToPeer: 5},
		"zero role":      {Target: []Role{0}},
		"client+router":  {Target: []Role{RoleRouter, RoleClient}},
		"strategy -1":    {ToPeer: -1},
		"autoconnect 42": {Autoconnect: []Role{RolePeer, 42}},
	} {
		if _, err := Open(testCtx(t), Config{Gossip: g}); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// Clients ignore gossip, whatever its settings.
	r, err := Config{Mode: ModeClient, Connect: []string{"tcp/127.0.0.1:1"}, Gossip: GossipConfig{ToPeer: 5}}.resolve()
	if err != nil || r.gossip != nil {
		t.Errorf("client: %v", err)
	}
	if AutoconnectGreaterZID.String() != "greater-zid" || AutoconnectAlways.String() != "always" {
		t.Error("strategy names")
	}
}

// linkStateOAM encodes a link-state list as the network OAM that carries
// it.
func linkStateOAM(t *testing.T, states ...wire.LinkState) *wire.NetworkOAM {
	t.Helper()
	body, err := wire.AppendLinkStates(nil, states)
	if err != nil {
		t.Fatal(err)
	}
	return &wire.NetworkOAM{ID: wire.OAMLinkState, Encoding: wire.ExtZBuf, Body: body}
}

// A peer links to the peers and routers gossip tells it of, by the ZID
// rule, and ignores what it cannot decode without losing the link.
func TestGossipAutoconnect(t *testing.T) {
	leaks := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, leaks) }) // after the sessions close
	other := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}, ZID: []byte{0x20, 1}})
	s := openT(t, Config{ZID: []byte{0x80, 1}}) // greater: it dials
	via := &link{log: slog.New(slog.DiscardHandler)}
	z, err := wire.NewZenohID([]byte{0x20, 1})
	if err != nil {
		t.Fatal(err)
	}
	// A bad list, and a psid-only entry for a node never named: both
	// ignored.
	s.handleOAM(via, &wire.NetworkOAM{ID: wire.OAMLinkState, Encoding: wire.ExtZBuf, Body: []byte{0x05, 0x01}})
	s.handleOAM(via, linkStateOAM(t, wire.LinkState{PSID: 7, HasLocators: true, Locators: other.ListenAddrs()}))
	if s.gossip.dropped.Load() != 1 || s.gossip.received.Load() != 1 || len(s.Links()) != 0 {
		t.Fatalf("dropped %d, received %d, links %+v", s.gossip.dropped.Load(), s.gossip.received.Load(), s.Links())
	}
	// Named first without locators, then by psid with them.
	s.handleOAM(via, linkStateOAM(t, wire.LinkState{PSID: 3, HasZID: true, ZID: z, HasWhatAmI: true, WhatAmI: wire.Peer}))
	s.handleOAM(via, linkStateOAM(t, wire.LinkState{PSID: 3, SN: 1, HasLocators: true, Locators: other.ListenAddrs()}))
	if li := waitLinkedTo(t, s, other.ZID()); !li.Dialed || li.WhatAmI != "peer" {
		t.Fatalf("link %+v", li)
	}
}

// With AutoconnectGreaterZID, the peer with the smaller ZID leaves the
// dialling to the other one.
func TestGossipGreaterZIDWaits(t *testing.T) {
	other := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}, ZID: []byte{0x80, 1}})
	s := openT(t, Config{ZID: []byte{0x20, 1}, Gossip: GossipConfig{ToPeer: AutoconnectGreaterZID}})
	z, _ := wire.NewZenohID([]byte{0x80, 1})
	s.handleOAM(&link{log: slog.New(slog.DiscardHandler)}, linkStateOAM(t, wire.LinkState{PSID: 1, HasZID: true, ZID: z,
		HasWhatAmI: true, WhatAmI: wire.Peer, HasLocators: true, Locators: other.ListenAddrs()}))
	s.gossip.mu.Lock()
	pending := len(s.gossip.pending)
	s.gossip.mu.Unlock()
	if pending != 0 || len(s.Links()) != 0 {
		t.Fatalf("dialled anyway: pending %d, links %+v", pending, s.Links())
	}
}
