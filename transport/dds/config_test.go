package dds

import (
	"errors"
	"net/netip"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestPortFormula(t *testing.T) {
	for _, c := range []struct{ d, i, spdp, meta, user, umc int }{
		{0, 0, 7400, 7410, 7411, 7401},
		{0, 1, 7400, 7412, 7413, 7401},
		{42, 0, 17900, 17910, 17911, 17901},
		{42, 1, 17900, 17912, 17913, 17901},
	} {
		if got := spdpMulticastPort(c.d); got != c.spdp {
			t.Errorf("spdp(%d) = %d, want %d", c.d, got, c.spdp)
		}
		if got := metaUnicastPort(c.d, c.i); got != c.meta {
			t.Errorf("meta(%d,%d) = %d, want %d", c.d, c.i, got, c.meta)
		}
		if got := userUnicastPort(c.d, c.i); got != c.user {
			t.Errorf("user(%d,%d) = %d, want %d", c.d, c.i, got, c.user)
		}
		if got := userMulticastPort(c.d); got != c.umc {
			t.Errorf("user multicast(%d) = %d, want %d", c.d, got, c.umc)
		}
	}
}

func TestConfigEnvironment(t *testing.T) {
	r, err := Config{Getenv: env(map[string]string{
		"ROS_DOMAIN_ID": "42", "ROS_AUTOMATIC_DISCOVERY_RANGE": "LOCALHOST", "ROS_STATIC_PEERS": "10.0.0.1; 10.0.0.2:7777",
	})}.resolve()
	if err != nil {
		t.Fatal(err)
	}
	if r.DomainID != 42 || r.rng != RangeLocalhost || r.multicast {
		t.Errorf("domain %d range %v multicast %v", r.DomainID, r.rng, r.multicast)
	}
	want := []peerAddr{{netip.MustParseAddr("10.0.0.1"), 0}, {netip.MustParseAddr("10.0.0.2"), 7777}}
	if len(r.peers) != 2 || r.peers[0] != want[0] || r.peers[1] != want[1] {
		t.Errorf("peers %v, want %v", r.peers, want)
	}
	if r.StaticPeerIndices != 32 {
		t.Errorf("LOCALHOST probes static peers on %d indices, want 32 (Fast DDS under ROS 2)", r.StaticPeerIndices)
	}
	// Config fields win over the environment.
	r, err = Config{DomainID: 7, Range: RangeSubnet, StaticPeers: []string{}, Getenv: env(map[string]string{
		"ROS_DOMAIN_ID": "42", "ROS_AUTOMATIC_DISCOVERY_RANGE": "OFF", "ROS_STATIC_PEERS": "10.0.0.1",
	})}.resolve()
	if err != nil {
		t.Fatal(err)
	}
	if r.DomainID != 7 || r.rng != RangeSubnet || !r.multicast || len(r.peers) != 0 || r.StaticPeerIndices != 4 {
		t.Errorf("domain %d range %v multicast %v peers %v indices %d", r.DomainID, r.rng, r.multicast, r.peers, r.StaticPeerIndices)
	}
	// OFF ignores static peers and multicast.
	r, err = Config{Getenv: env(map[string]string{"ROS_AUTOMATIC_DISCOVERY_RANGE": "OFF", "ROS_STATIC_PEERS": "10.0.0.1"})}.resolve()
	if err != nil {
		t.Fatal(err)
	}
	if r.rng != RangeOff || r.multicast || len(r.peers) != 0 {
		t.Errorf("OFF: range %v multicast %v peers %v", r.rng, r.multicast, r.peers)
	}
	if r, err := (Config{DomainID: 232, Getenv: noEnv}).resolve(); err != nil {
		t.Errorf("domain 232: %v", err)
	} else if userUnicastPort(232, r.MaxParticipantIndex) > 65535 {
		t.Errorf("domain 232: max index %d beyond the ports", r.MaxParticipantIndex)
	}
	if r.Lease != DefaultLease || r.AnnouncePeriod != DefaultAnnouncePeriod {
		t.Errorf("defaults: lease %v period %v", r.Lease, r.AnnouncePeriod)
	}
}

func TestConfigInvalid(t *testing.T) {
	for name, c := range map[string]Config{
		"domain":        {DomainID: 233},
		"negative":      {DomainID: -1},
		"env domain":    {Getenv: env(map[string]string{"ROS_DOMAIN_ID": "300"})},
		"env garbage":   {Getenv: env(map[string]string{"ROS_DOMAIN_ID": "x"})},
		"range":         {Getenv: env(map[string]string{"ROS_AUTOMATIC_DISCOVERY_RANGE": "MOON"})},
		"peer port":     {StaticPeers: []string{"127.0.0.1:0"}, Getenv: noEnv},
		"peer ipv6":     {StaticPeers: []string{"::1"}, Getenv: noEnv},
		"lease":         {Lease: time.Millisecond, Getenv: noEnv},
		"index":         {ParticipantIndex: 500, Getenv: noEnv},
		"index ports":   {DomainID: 232, MaxParticipantIndex: 120, Getenv: noEnv},
		"interface":     {Interfaces: []string{"no-such-interface0"}, Getenv: noEnv},
		"sample size":   {MaxSampleSize: -1, Getenv: noEnv},
		"unknown range": {Range: 9, Getenv: noEnv},
		"ack port":      {AckPort: 70000, Getenv: noEnv},
		"negative ack":  {AckPort: -1, Getenv: noEnv},
	} {
		if _, err := c.resolve(); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%s: %v, want ErrInvalidConfig", name, err)
		}
	}
}

func TestParticipantIndexFirstFree(t *testing.T) {
	d := nextDomain()
	a := newTestParticipant(t, Config{DomainID: d, Range: RangeOff})
	b := newTestParticipant(t, Config{DomainID: d, Range: RangeOff})
	if a.Index() != 0 || b.Index() != 1 {
		t.Fatalf("indices %d and %d, want 0 and 1", a.Index(), b.Index())
	}
	_, err := NewParticipant(t.Context(), Config{DomainID: d, Range: RangeOff, ExactIndex: true, Getenv: noEnv})
	if !errors.Is(err, ErrNoFreeIndex) {
		t.Fatalf("exact index 0 taken: %v, want ErrNoFreeIndex", err)
	}
}

func TestPolicyName(t *testing.T) {
	for why, want := range map[string]string{
		"reliability: BEST_EFFORT offered, RELIABLE requested": "RELIABILITY",
		"durability: 0 offered, 1 requested":                   "DURABILITY",
		"liveliness lease: 1s offered, 2s requested":           "LIVELINESS",
		"data representation: 2 offered, [0] accepted":         "DATA_REPRESENTATION",
	} {
		if got := policyName(why); got != want {
			t.Errorf("policyName(%q) = %q, want %q", why, got, want)
		}
	}
}
