package zenoh

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// The gossip tests run a Rust router configured as rmw_zenohd (gossip on,
// no failover brokering between peers, so peers that do not link directly
// exchange nothing) and peers that connect only to it.

// startRMWRouter starts a Rust router configured as rmw_zenohd.
func startRMWRouter(t *testing.T) *pyPeer {
	return startPy(t, "--mode", "router", "--listen", anyPort, "--rmw")
}

// rmwPeerConfig is a Go peer configured as rmw_zenoh configures its
// sessions: connect to the router only, listen on an ephemeral port,
// gossip to routers, and let the greater ZID dial.
func rmwPeerConfig(router string, zid []byte) Config {
	return Config{
		Connect: []string{router},
		Listen:  []string{"tcp/127.0.0.1:0"},
		ZID:     zid,
		Gossip:  GossipConfig{Target: []Role{RoleRouter}, ToPeer: AutoconnectGreaterZID},
	}
}

// waitLinkedTo waits until s has a link to the node whose ZID prints as
// zid.
func waitLinkedTo(t *testing.T, s *Session, zid string) LinkInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		ch := s.waitChange()
		for _, li := range s.Links() {
			if strings.TrimLeft(li.ZID, "0") == strings.TrimLeft(zid, "0") {
				return li
			}
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("%s never linked to %s: links %+v", s.ZID(), zid, s.Links())
		}
	}
}

// checkGossipDecoded fails if s dropped a link-state list, or received
// none within 10 s. The list that tells a peer of a newcomer can come after
// the newcomer, told earlier, dialled it: the count is polled (gossip has no
// event to wait on).
func checkGossipDecoded(t *testing.T, s *Session) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for s.gossip.received.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := s.gossip.dropped.Load(); n != 0 {
		t.Errorf("%s dropped %d link-state lists", s.ZID(), n)
	}
	if s.gossip.received.Load() == 0 {
		t.Errorf("%s received no link state in 10 s", s.ZID())
	}
}

// Two Go peers that connect only to a Rust router link directly (the
// greater ZID dialling) and exchange samples and queries exactly once:
// with rmw_zenoh's settings (the router brokers nothing between peers),
// and with Rust Zenoh's defaults (the router would broker between peers
// that are not linked, and gossip tells it that they are).
func TestInteropGossipTwoGoPeers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		router []string
		gossip GossipConfig
	}{
		{"rmw", []string{"--rmw"}, GossipConfig{Target: []Role{RoleRouter}, ToPeer: AutoconnectGreaterZID}},
		{"defaults", []string{"--gossip"}, GossipConfig{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := startPy(t, append([]string{"--mode", "router", "--listen", anyPort}, tc.router...)...)
			ca := rmwPeerConfig(r.listen, []byte{0x10, 1, 2, 3})
			cb := rmwPeerConfig(r.listen, []byte{0xf0, 1, 2, 3})
			ca.Gossip, cb.Gossip = tc.gossip, tc.gossip
			a := openT(t, ca)
			b := openT(t, cb)
			if li := waitLinkedTo(t, a, b.ZID()); li.Dialed {
				t.Errorf("the smaller ZID dialled: %+v", li)
			}
			if li := waitLinkedTo(t, b, a.ZID()); !li.Dialed {
				t.Errorf("the greater ZID did not dial: %+v", li)
			}
			checkGossipDecoded(t, a)
			checkGossipDecoded(t, b)
			exchangeGoGo(t, a, b, "g1")
			exchangeGoGo(t, b, a, "g2")
		})
	}
}

// exchangeGoGo checks that samples and queries go from one Go peer to the
// other, each exactly once.
func exchangeGoGo(t *testing.T, from, to *Session, key string) {
	t.Helper()
	ctx := testCtx(t)
	got := make(chan Sample, 16)
	sub, err := to.DeclareSubscriber(key+"/**", func(s Sample) { got <- s })
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Undeclare()
	q, err := to.DeclareQueryable(key+"/q", func(q *Query) {
		_ = q.ReplyAndFinish(context.Background(), key+"/q", []byte("answer"))
	})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Undeclare()
	pub, err := from.DeclarePublisher(key + "/data")
	if err != nil {
		t.Fatal(err)
	}
	if err := pub.WaitMatching(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := pub.Put(ctx, fmt.Appendf(nil, "s%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		select {
		case s := <-got:
			if want := fmt.Sprintf("s%d", i); string(s.Payload) != want {
				t.Fatalf("got %q, want %q", s.Payload, want)
			}
		case <-ctx.Done():
			t.Fatalf("sample %d did not arrive", i)
		}
	}
	if err := from.waitQueryable(ctx, key+"/q"); err != nil {
		t.Fatal(err)
	}
	replies, err := from.Get(ctx, key+"/q", WithTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var answers []string
	for r := range replies {
		if r.Err != nil {
			t.Fatalf("error reply %v", r.Err)
		}
		answers = append(answers, string(r.Sample.Payload))
	}
	if len(answers) != 1 || answers[0] != "answer" {
		t.Fatalf("replies %q, want one \"answer\"", answers)
	}
	select {
	case s := <-got:
		t.Fatalf("sample %q arrived twice", s.Payload)
	case <-time.After(200 * time.Millisecond):
	}
}

// A Go peer and a Rust peer configured as rmw_zenoh's, both linked only to
// the router, link directly (the greater ZID dials) and exchange samples
// and queries, whichever ZID is greater.
func TestInteropGossipGoAndRustPeer(t *testing.T) {
	const rustZID = "ab" // one wire byte, 0xab
	for _, tc := range []struct {
		name     string
		zid      []byte
		goDials  bool
		keyIndex string
	}{
		{"go-greater", []byte{0xf0, 1, 2, 3}, true, "g3"},
		{"rust-greater", []byte{0x10, 1, 2, 3}, false, "g4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := startRMWRouter(t)
			s := openT(t, rmwPeerConfig(r.listen, tc.zid))
			py := startPy(t, "--mode", "peer", "--connect", r.listen, "--listen", anyPort, "--rmw", "--zid", rustZID)
			if li := waitLinkedTo(t, s, rustZID); li.Dialed != tc.goDials || li.WhatAmI != "peer" {
				t.Errorf("link %+v, want dialled by Go: %v", li, tc.goDials)
			}
			checkGossipDecoded(t, s)
			t.Run("go-to-py", func(t *testing.T) { exchangeGoToPy(t, s, py, tc.keyIndex+"/a", true) })
			t.Run("py-to-go", func(t *testing.T) { exchangePyToGo(t, s, py, tc.keyIndex+"/b") })
			t.Run("queries", func(t *testing.T) { exchangeQueries(t, s, py, tc.keyIndex+"/q") })
		})
	}
}
