package zenoh

import (
	"bytes"
	"testing"
	"time"
)

// A peer relays between its clients, and from clients to peers, but not
// from one peer to another (peers reach each other directly).
func TestPeerRoutesForClients(t *testing.T) {
	hub := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}})
	ep := hub.ListenAddrs()
	c1 := openT(t, Config{Mode: ModeClient, Connect: ep})
	c2 := openT(t, Config{Mode: ModeClient, Connect: ep})
	q1 := openT(t, Config{Connect: ep})
	q2 := openT(t, Config{Connect: ep})
	ctx := testCtx(t)

	// Client to client through the hub. The hub answers c1's interest, so
	// c1 learns of c2's subscriber.
	fromC := collector(t, c2, "r/c/**")
	waitMatch(t, c1, "r/c/x")
	if err := c1.Put(ctx, "r/c/x", []byte("c1")); err != nil {
		t.Fatal(err)
	}
	if s := recv(t, fromC); string(s.Payload) != "c1" {
		t.Fatalf("got %+v", s)
	}

	// Client to peer: the hub forwards c1's sample to q1's subscriber.
	atQ1 := collector(t, q1, "r/q/**")
	waitMatch(t, c1, "r/q/x")
	if err := c1.Put(ctx, "r/q/x", []byte("to-peer")); err != nil {
		t.Fatal(err)
	}
	if s := recv(t, atQ1); string(s.Payload) != "to-peer" {
		t.Fatalf("got %+v", s)
	}

	// Peer to client: q2 learns of c2's subscription from the hub.
	p := publisher(t, q2, "r/c/y")
	if err := p.Put(ctx, []byte("from-peer")); err != nil {
		t.Fatal(err)
	}
	if s := recv(t, fromC); string(s.Payload) != "from-peer" {
		t.Fatalf("got %+v", s)
	}

	// Peer to peer: q2 does not learn of q1's subscriber through the hub.
	// The hub announced q1's subscriber before c2's "r/late" one, so once
	// q2 knows of the latter it would know of the former.
	_ = collector(t, c2, "r/late")
	waitMatch(t, q2, "r/late")
	p2, err := q2.DeclarePublisher("r/q/z")
	if err != nil {
		t.Fatal(err)
	}
	if p2.HasMatchingSubscribers() {
		t.Fatal("a peer's subscription was relayed to another peer")
	}
}

// waitMatch waits until a publisher on key in s would reach someone.
func waitMatch(t *testing.T, s *Session, key string) {
	t.Helper()
	p, err := s.DeclarePublisher(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.WaitMatching(testCtx(t)); err != nil {
		t.Fatalf("no subscriber for %s: %v", key, err)
	}
}

// A lost link is redialled and the subscriptions are declared again.
func TestClientRedialsAndRedeclares(t *testing.T) {
	a := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}})
	ep := a.ListenAddrs()[0] // the restarted peer listens there again
	c := openT(t, Config{Mode: ModeClient, Connect: []string{ep}, RetryInterval: 20 * time.Millisecond})
	got := collector(t, c, "re/**")
	waitMatch(t, a, "re/x")
	a.Close()
	waitLinks(t, c, 0)
	a2 := openT(t, Config{Listen: []string{ep}})
	p := publisher(t, a2, "re/x") // matches once c is back and re-declared
	if err := p.Put(testCtx(t), []byte("again")); err != nil {
		t.Fatal(err)
	}
	if s := recv(t, got); string(s.Payload) != "again" {
		t.Fatalf("got %+v", s)
	}
}

// Two peers that dial each other end with one link between them.
func TestMutualDialKeepsOneLink(t *testing.T) {
	// Both listen on port 0; b dials a's address and a dials b's, both
	// at once.
	ctx := testCtx(t)
	a := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}, RetryInterval: 20 * time.Millisecond})
	b := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}, RetryInterval: 20 * time.Millisecond})
	epA, err := parseEndpoint(a.ListenAddrs()[0])
	if err != nil {
		t.Fatal(err)
	}
	epB, err := parseEndpoint(b.ListenAddrs()[0])
	if err != nil {
		t.Fatal(err)
	}
	firsts := make(chan error, 2)
	far := time.Now().Add(time.Minute)
	a.dial(epB, firsts, far)
	b.dial(epA, firsts, far)
	for range 2 {
		if err := <-firsts; err != nil {
			t.Fatal(err)
		}
	}
	// Wait until each side holds only the link dialled by the node with
	// the smaller ZID; until then a link may still be replaced.
	low, high := a, b
	if bytes.Compare(b.cfg.ZID, a.cfg.ZID) < 0 {
		low, high = b, a
	}
	settled := func(s *Session, dialed bool) func() bool {
		return func() bool {
			all := s.table.Load().all
			return len(all) == 1 && all[0].dialed == dialed
		}
	}
	waitCond(t, low, settled(low, true))
	waitCond(t, high, settled(high, false))
	got := collector(t, b, "dup")
	p := publisher(t, a, "dup")
	for _, v := range []string{"1", "2", "3"} {
		if err := p.Put(ctx, []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	// A duplicate link would repeat samples, so after 1, 2, 3 comes 4.
	for _, v := range []string{"1", "2", "3"} {
		if s := recv(t, got); string(s.Payload) != v {
			t.Fatalf("got %q, want %q", s.Payload, v)
		}
	}
	if err := p.Put(ctx, []byte("4")); err != nil {
		t.Fatal(err)
	}
	if s := recv(t, got); string(s.Payload) != "4" {
		t.Fatalf("got %q, want 4", s.Payload)
	}
	if n, m := len(a.table.Load().all), len(b.table.Load().all); n != 1 || m != 1 {
		t.Fatalf("links: %d and %d, want 1 each", n, m)
	}
}

// waitCond waits until cond holds, re-checking at each routing change of s.
func waitCond(t *testing.T, s *Session, cond func() bool) {
	t.Helper()
	ctx := testCtx(t)
	for {
		ch := s.waitChange()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatal("condition not reached")
		}
	}
}
