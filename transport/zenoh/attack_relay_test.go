package zenoh

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// entryKeys returns the keys of the subscriptions s knows from remote
// nodes, and how many there are.
func remoteEntries(s *Session) (n int, keys map[string]bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys = make(map[string]bool)
	for _, e := range s.entries {
		if e.origin != nil {
			n++
			keys[e.key] = true
		}
	}
	return n, keys
}

// TestAttackRelayedDeclarations: two client links declare more
// subscribers and tokens, together, than a legitimate Go peer linked to
// the same session accepts (its MaxDeclarations). Before, the session
// announced them all to the peer, which closed the link, dialled again and
// was closed again (4,800 of 5,200 samples lost in 26 s with 2 x 40,000).
// Now the session relays at most MaxRelayedDeclarations one by one and
// aggregates the rest: the peer keeps its link and its stream, what it
// publishes on an aggregated subscriber's key still reaches that
// subscriber, a late client's subscriber and token get relayed (a slot of
// the attackers' is given to it), and once the attackers are gone,
// everything is announced one by one again.
func TestAttackRelayedDeclarations(t *testing.T) {
	const (
		budget = 1000
		peerOK = 2 * budget // the legitimate peer's MaxDeclarations
		subs   = 2500       // by each attacker: 5,000 in all
		tokens = 500        // more, by the second
	)
	s := attackTarget(t, Config{Limits: Limits{MaxRelayedDeclarations: budget}})
	lp := startLegitWith(t, s, Config{Limits: Limits{MaxDeclarations: peerOK}})
	base, g0, cpu0 := heapInuse(), runtime.NumGoroutine(), cpuTime(t)
	start := time.Now()

	var attackers [2]*hostile
	var heard [2]*netCounts
	for i := range attackers {
		h := dialHostile(t, s)
		if err := h.handshakeAs(1000+i, wire.Client, hostileLease); err != nil {
			t.Fatal(err)
		}
		attackers[i], heard[i] = h, h.count()
		msgs := make([][]byte, 0, subs+tokens+1)
		for j := range subs {
			msgs = append(msgs, appendDeclareSubscriber(nil, nil, uint32(j+1), fmt.Sprintf("attack/%d/sub/%d", i, j)))
		}
		if i == 1 {
			for j := range tokens {
				msgs = append(msgs, appendDeclare(nil, nil, &wire.DeclareToken{ID: uint32(subs + j + 1),
					WireExpr: wire.WireExpr{Suffix: []byte(fmt.Sprintf("attack/%d/tok/%d", i, j))}}))
			}
		}
		msgs = append(msgs, marker("attack/done"))
		seen := collector(t, s, "attack/done")
		if err := h.frame(msgs...); err != nil {
			t.Fatal(err)
		}
		recv(t, seen)
	}
	// The peer has heard what the session relays to it once it knows a
	// late declaration: declarations go out in order.
	late := openT(t, Config{Mode: ModeClient, Connect: s.ListenAddrs()})
	lateGot := collector(t, late, "late/sub")
	if _, err := late.DeclareToken("late/tok"); err != nil {
		t.Fatal(err)
	}
	waitMatch(t, lp.s, "late/sub")
	peerKnows, peerKeys := remoteEntries(lp.s)
	grown := int64(heapInuse()) - int64(base)
	st := s.Stats()
	t.Logf("relayed declarations (2 x %d subscribers, %d tokens, budget %d): the peer knows %d subscribers (aggregate: %v), heap +%.1f MiB, %v; stats %+v",
		subs, tokens, budget, peerKnows, peerKeys["**"], float64(grown)/mib, time.Since(start).Round(time.Millisecond), st)
	if peerKnows > budget+4 {
		t.Errorf("the peer knows %d subscribers, want at most the budget %d and a few", peerKnows, budget)
	}
	if !peerKeys["**"] {
		t.Error("the peer did not get the aggregate subscriber")
	}
	if st.ByLimit[LimitRelayedDeclarations] < 2*subs+tokens-budget {
		t.Errorf("Stats = %+v, want at least %d declarations over %s", st, 2*subs+tokens-budget, LimitRelayedDeclarations)
	}
	if pst := lp.s.Stats(); pst.LinksClosedForLimits != 0 || st.ClosedByRemote != 0 {
		t.Errorf("the peer closed its link over a limit (its stats %+v, the session's %+v)", pst, st)
	}
	if grown > 32*mib {
		t.Errorf("heap grew by %.1f MiB, want under 32 MiB", float64(grown)/mib)
	}

	// The late client's token reaches the peer (a slot given to it), and
	// the peer's samples still reach everyone.
	ctx := testCtx(t)
	waitCond(t, lp.s, func() bool { // declared after the subscriber
		lp.s.mu.Lock()
		defer lp.s.mu.Unlock()
		for _, e := range lp.s.tokens {
			if e.key == "late/tok" {
				return true
			}
		}
		return false
	})
	found, err := lp.s.LivelinessGet(ctx, "late/**")
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || found[0] != "late/tok" {
		t.Errorf("the peer sees tokens %v, want late/tok", found)
	}
	if err := lp.s.Put(ctx, "late/sub", []byte("x")); err != nil {
		t.Fatal(err)
	}
	recv(t, lateGot)
	aggKey := fmt.Sprintf("attack/0/sub/%d", subs-1) // aggregated: declared last
	before := heard[0].pushes.Load()
	if err := lp.s.Put(ctx, aggKey, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if !heard[0].waitFor(10*time.Second, func() bool { return heard[0].pushes.Load() > before }) {
		t.Errorf("a sample on %s (an aggregated subscriber) did not reach its subscriber", aggKey)
	}

	// The attackers go: what was aggregated is announced one by one again,
	// and the aggregate is withdrawn.
	for _, h := range attackers {
		gone := h.linkOf(s)
		h.conn.Close()
		<-gone.finished
	}
	waitCond(t, lp.s, func() bool {
		_, keys := remoteEntries(lp.s) // the session's own, and late's
		for k := range keys {
			if k != "legit/seq" && k != "attack/done" && k != "late/sub" {
				return false
			}
		}
		return true
	})
	s.mu.Lock()
	relayN, relayAgg := s.relay.n, s.relay.nAgg
	s.mu.Unlock()
	cpu := cpuTime(t) - cpu0
	t.Logf("after the attackers left: relayed %d, aggregated %d; goroutines %d -> %d, CPU %v", relayN, relayAgg, g0, runtime.NumGoroutine(), cpu)
	if relayAgg != 0 {
		t.Errorf("%d declarations still aggregated", relayAgg)
	}
	if cpu > 20*time.Second {
		t.Errorf("the attack cost %v of CPU, want under 20 s", cpu)
	}
	lp.check()
}

// TestRemoteClosedForDeclarations: a peer whose MaxDeclarations is below
// what the session announces to it closes the link; the session logs it
// and counts it.
func TestRemoteClosedForDeclarations(t *testing.T) {
	s := attackTarget(t, Config{})
	p := openT(t, Config{Connect: s.ListenAddrs(), Limits: Limits{MaxDeclarations: 100}})
	if err := p.WaitConnected(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	h := dialHostile(t, s)
	if err := h.handshakeAs(1, wire.Client, hostileLease); err != nil {
		t.Fatal(err)
	}
	h.drain()
	msgs := make([][]byte, 0, 200)
	for j := range 200 {
		msgs = append(msgs, appendDeclareSubscriber(nil, nil, uint32(j+1), "c/"+strings.Repeat("k", j+1)))
	}
	_ = h.frame(msgs...)
	waitCond(t, s, func() bool { return s.Stats().ClosedByRemote > 0 })
	if got := p.Stats().ByLimit[LimitDeclarations]; got == 0 {
		t.Errorf("the peer's stats %+v, want a link closed for %s", p.Stats(), LimitDeclarations)
	}
}
