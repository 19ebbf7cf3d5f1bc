package zenoh

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// TestAttackAliasesTimesLinks: many links each chain aliases on one long
// key up to their own MaxAliasBytes, so that the session would hold links
// times that (before: 120 links of 63 aliases of 65 KB, 7.9 MB sent,
// pinned 484 MB). MaxSessionAliasBytes bounds them together: the links
// holding the most lose their links, and a link that declares a small
// alias afterwards keeps its own and publishes through it.
func TestAttackAliasesTimesLinks(t *testing.T) {
	const (
		links    = 60
		keyLen   = 3800 // with the chain, within keyexpr.MaxLen
		chain    = 250  // aliases per link: 250 x 3.9 KB, under the link's bound
		perLink  = 1 << 20
		session  = 4 << 20
		overhead = 8 * mib // the links, goroutines and buffers themselves
	)
	s := attackTarget(t, Config{Limits: Limits{MaxAliasBytes: perLink, MaxSessionAliasBytes: session}})
	lp := startLegit(t, s, 0)
	seen := collector(t, s, "mark/*")
	base, g0, cpu0 := heapInuse(), runtime.NumGoroutine(), cpuTime(t)
	probe := startHeapProbe()
	start := time.Now()

	var sent int
	closed := newClosedCount(links)
	for i := range links {
		h := dialHostile(t, s)
		if err := h.handshake(600+i, hostileLease); err != nil {
			t.Fatal(err)
		}
		ended := closed.watch(h)
		msgs := [][]byte{aliasMsg(1, 0, "k/"+strings.Repeat("a", keyLen))}
		for id := 2; id <= chain; id++ {
			msgs = append(msgs, aliasMsg(uint16(id), uint16(id-1), "b"))
		}
		msgs = append(msgs, marker(fmt.Sprintf("mark/%d", i)))
		for _, m := range msgs {
			sent += len(m)
		}
		_ = h.frame(msgs...)
		// Each link's aliases are in (or its link closed) before the next
		// one's: the marker arrives after them.
		select {
		case <-seen:
		case <-ended:
		case <-time.After(10 * time.Second):
			t.Fatalf("link %d: neither its marker nor its end", i)
		}
	}
	// A link declaring one small alias, and publishing through it.
	legit := dialHostile(t, s)
	if err := legit.handshake(700, hostileLease); err != nil {
		t.Fatal(err)
	}
	got := collector(t, s, "small/**")
	if err := legit.frame(aliasMsg(1, 0, "small/key"), aliasedPush(1, "/x")); err != nil {
		t.Fatal(err)
	}
	if smp := recv(t, got); smp.KeyExpr != "small/key/x" {
		t.Fatalf("got a sample on %q, want small/key/x", smp.KeyExpr)
	}
	peak := int64(probe.end()) - int64(base)
	grown := int64(heapInuse()) - int64(base)
	s.aliasMu.Lock()
	held := s.aliasHeld
	s.aliasMu.Unlock()
	st := s.Stats()
	cpu := cpuTime(t) - cpu0
	t.Logf("aliases (%d links x %d x %d B, %d KB sent): %d links closed, the session counts %d KiB, heap +%.1f MiB (peak +%.1f MiB), goroutines %d -> %d, CPU %v, %v; stats %+v",
		links, chain, keyLen, sent>>10, closed.n.Load(), held>>10, float64(grown)/mib, float64(peak)/mib, g0,
		runtime.NumGoroutine(), cpu, time.Since(start).Round(time.Millisecond), st)
	if held > session {
		t.Errorf("the session counts %d bytes of aliases, want at most %d", held, session)
	}
	if grown > session+overhead || peak > 4*session+overhead {
		t.Errorf("heap grew by %.1f MiB (peak %.1f MiB), want under %.1f MiB (%.1f MiB)", float64(grown)/mib, float64(peak)/mib,
			float64(session+overhead)/mib, float64(4*session+overhead)/mib)
	}
	if fit := session / (chain * keyLen); closed.n.Load() < int64(links-fit-1) || st.ByLimit[LimitSessionAliasBytes] == 0 {
		t.Errorf("%d attacker links closed (stats %+v), want all but the %d that fit", closed.n.Load(), st, fit)
	}
	if cpu > 10*time.Second {
		t.Errorf("the attack cost %v of CPU, want under 10 s", cpu)
	}
	lp.check()
}

// aliasedPush encodes a PUSH on alias scope + suffix.
func aliasedPush(scope uint16, suffix string) []byte {
	m := wire.Push{WireExpr: wire.WireExpr{Scope: scope, Suffix: []byte(suffix), Mapping: wire.MappingSender},
		Body: &wire.Put{Payload: []byte("through an alias")}}
	b, err := m.AppendBinary(nil)
	if err != nil {
		panic(err)
	}
	return b
}

// TestAliasOverKeyLimit: an alias longer than keyexpr.MaxLen (the 65 KB
// keys of issue 32) prefixes no valid key: its link is closed as for such
// a key.
func TestAliasOverKeyLimit(t *testing.T) {
	s := attackTarget(t, Config{})
	h := dialHostile(t, s)
	if err := h.handshake(1, hostileLease); err != nil {
		t.Fatal(err)
	}
	_ = h.frame(aliasMsg(1, 0, "k/"+strings.Repeat("a", 65000)))
	if !h.closedWithin(10 * time.Second) {
		t.Fatal("link not closed")
	}
	if got := s.Stats().ByLimit[LimitKeyLen]; got != 1 {
		t.Errorf("Stats.ByLimit[%s] = %d, want 1", LimitKeyLen, got)
	}
}
