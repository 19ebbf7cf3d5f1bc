package zenoh

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// keptNow returns the bytes of messages in progress and of buffers kept
// between messages.
func keptNow(s *Session) (inUse, idle int) {
	s.defrag.mu.Lock()
	defer s.defrag.mu.Unlock()
	return s.defrag.inUse, s.defrag.idle
}

// TestAttackKeptBuffers: many links each send one complete fragmented
// PUSH of 2 MB to a key nobody subscribes. Before, each link kept its
// buffer for its next message, counted by no limit (120 links of 8 MB held
// 971 MB); now the kept buffers are bounded by a quarter of
// MaxSessionReassembly, the least recently kept dropped first.
func TestAttackKeptBuffers(t *testing.T) {
	const (
		links    = 40
		size     = 2_000_000
		maxMsg   = 16 << 20
		keptMax  = 2 * maxMsg / 4 // MaxSessionReassembly (2 MaxMessageSize) / 4
		overhead = 8 * mib
	)
	s := attackTarget(t, Config{MaxMessageSize: maxMsg})
	lp := startLegit(t, s, 0)
	seen := collector(t, s, "mark/*")
	base, g0, cpu0 := heapInuse(), runtime.NumGoroutine(), cpuTime(t)
	start := time.Now()
	for i := range links {
		h := dialHostile(t, s)
		if err := h.handshake(800+i, hostileLease); err != nil {
			t.Fatal(err)
		}
		h.drain()
		if err := h.fragmentedPush(fmt.Sprintf("nobody/%d", i), size); err != nil {
			t.Fatal(err)
		}
		_ = h.frame(marker(fmt.Sprintf("mark/%d", i)))
		recv(t, seen) // the message was read whole before its marker
	}
	grown := int64(heapInuse()) - int64(base)
	inUse, idle := keptNow(s)
	cpu := cpuTime(t) - cpu0
	st := s.Stats()
	t.Logf("kept buffers (%d links x %d B): %d KiB kept, %d in use, heap +%.1f MiB, goroutines %d -> %d, CPU %v, %v; stats %+v",
		links, size, idle>>10, inUse, float64(grown)/mib, g0, runtime.NumGoroutine(), cpu, time.Since(start).Round(time.Millisecond), st)
	if idle > keptMax || inUse != 0 {
		t.Errorf("%d bytes kept and %d in use, want at most %d and none", idle, inUse, keptMax)
	}
	if grown > keptMax+overhead {
		t.Errorf("heap grew by %.1f MiB, want under %.1f MiB", float64(grown)/mib, float64(keptMax+overhead)/mib)
	}
	if st.ByLimit[LimitKeptReassembly] == 0 {
		t.Errorf("Stats = %+v, want kept buffers dropped for %s", st, LimitKeptReassembly)
	}
	if n := len(s.Links()); n != links+1 {
		t.Errorf("%d links, want %d: a complete message is no attack", n, links+1)
	}
	if cpu > 20*time.Second {
		t.Errorf("the attack cost %v of CPU, want under 20 s", cpu)
	}
	lp.check()
}

// TestAttackStaleFragments: four links each send 15 MB of a fragmented
// message that never ends, then only keep-alives. Before, the session held
// its whole reassembly budget for as long as they sent keep-alives, and its
// heap peaked at 2 to 2.5 times the budget (buffers grown by doubling and
// copying). Now the messages allocate as their fragments arrive (the
// attack allocates no more than the budget), and are dropped, their memory
// released, once stale; then a legitimate large message gets through.
func TestAttackStaleFragments(t *testing.T) {
	const (
		links    = 4
		perLink  = 15 << 20
		maxMsg   = 16 << 20
		budget   = 2 * maxMsg // MaxSessionReassembly's default
		stale    = 300 * time.Millisecond
		overhead = 16 * mib
	)
	s := attackTarget(t, Config{MaxMessageSize: maxMsg, Limits: Limits{ReassemblyTimeout: stale}})
	lp := startLegit(t, s, 0)
	seen := collector(t, s, "attack/frag/*")
	base, g0, cpu0, alloc0 := heapInuse(), runtime.NumGoroutine(), cpuTime(t), heapAllocs()
	probe := startHeapProbe()
	start := time.Now()

	stop := make(chan struct{})
	var keepers sync.WaitGroup
	defer func() { close(stop); keepers.Wait() }()
	var wg sync.WaitGroup
	errs := make(chan error, links)
	for i := range links {
		h := dialHostile(t, s)
		if err := h.handshake(900+i, hostileLease); err != nil {
			t.Fatal(err)
		}
		h.drain()
		wg.Go(func() {
			if err := h.fragments(perLink); err != nil {
				errs <- fmt.Errorf("attacker %d: %w", i, err)
				return
			}
			if err := h.frame(marker(fmt.Sprintf("attack/frag/%d", i))); err != nil {
				errs <- fmt.Errorf("attacker %d: %w", i, err)
				return
			}
			keepers.Go(func() { h.keepAlive(stale/3, stop) })
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err) // the session closed an attacker's link: it should only drop messages
	}
	for range links {
		recv(t, seen)
	}
	allocated := int64(heapAllocs() - alloc0)
	held := s.reassembly.Load()
	peak := int64(probe.end()) - int64(base)
	t.Logf("never-ending fragments (%d links x %d MB): %.1f MiB counted, %.1f MiB allocated, heap peak +%.1f MiB, %v",
		links, perLink>>20, float64(held)/mib, float64(allocated)/mib, float64(peak)/mib, time.Since(start).Round(time.Millisecond))
	if held > budget {
		t.Errorf("reassembly holds %d bytes, want at most %d", held, budget)
	}
	// What the session holds is within the budget; what it allocated
	// besides is what the messages dropped for the budget held and could
	// not pass on to the others (garbage until the next collection), less
	// than the budget again. Buffers grown by doubling and copying
	// allocated three times the budget.
	if allocated > 7*budget/4+overhead/2 {
		t.Errorf("the attack allocated %.1f MiB, want at most 1.75 times the budget %.1f MiB and %.1f MiB more",
			float64(allocated)/mib, float64(budget)/mib, float64(overhead/2)/mib)
	}
	if peak > 2*budget+overhead {
		t.Errorf("heap peaked at +%.1f MiB, want under %.1f MiB", float64(peak)/mib, float64(2*budget+overhead)/mib)
	}

	// Only keep-alives now: the messages go stale and are dropped.
	staleSince := time.Now()
	deadline := time.Now().Add(10 * time.Second)
	for s.reassembly.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(stale / 10) // the links' readers drop them: no event to wait on
	}
	released := time.Since(staleSince)
	left := int64(heapInuse()) - int64(base)
	inUse, idle := keptNow(s)
	st := s.Stats()
	t.Logf("with keep-alives only: %d bytes in use, %d kept after %v; heap +%.1f MiB; stats %+v",
		inUse, idle, released.Round(time.Millisecond), float64(left)/mib, st)
	if inUse != 0 {
		t.Errorf("%d bytes still in use %v after the fragments stopped", inUse, released)
	}
	if left > overhead {
		t.Errorf("heap still +%.1f MiB after the messages went stale, want under %.1f MiB", float64(left)/mib, float64(overhead)/mib)
	}
	if st.ByLimit[LimitReassemblyTimeout] == 0 {
		t.Errorf("Stats = %+v, want stale messages counted under %s", st, LimitReassemblyTimeout)
	}
	if n := len(s.Links()); n != links+1 {
		t.Errorf("%d links up, want the %d attackers (throttled, not closed) and the legitimate peer", n, links)
	}

	// A legitimate large message gets the room back.
	got := collector(t, s, "legit/big")
	pub := publisher(t, lp.s, "legit/big")
	if err := pub.Put(testCtx(t), seeded(12<<20, 3)); err != nil {
		t.Fatal(err)
	}
	if smp := recv(t, got); len(smp.Payload) != 12<<20 {
		t.Fatalf("got %d bytes, want %d", len(smp.Payload), 12<<20)
	}
	cpu := cpuTime(t) - cpu0
	t.Logf("goroutines %d -> %d, CPU %v", g0, runtime.NumGoroutine(), cpu)
	if cpu > 30*time.Second {
		t.Errorf("the attack cost %v of CPU, want under 30 s", cpu)
	}
	lp.check()
}

// TestReassemblyTrickleStale: a message whose fragments come one by one,
// each within ReassemblyTimeout of the last but far slower than a MiB a
// second, goes stale too.
func TestReassemblyTrickleStale(t *testing.T) {
	const stale = 200 * time.Millisecond
	s := attackTarget(t, Config{Limits: Limits{ReassemblyTimeout: stale}})
	h := dialHostile(t, s)
	if err := h.handshake(1, hostileLease); err != nil {
		t.Fatal(err)
	}
	h.drain()
	payload := make([]byte, 16<<10)
	for i := range 8 { // 16 KiB every 100 ms: 160 KiB/s
		w := append(h.buf[:0], 0, 0)
		w, _ = (&wire.Fragment{Reliable: true, More: true, SN: h.sn, First: i == 0, Payload: payload}).AppendBinary(w)
		h.sn++
		_ = wire.PutBatchLen(w, len(w)-wire.BatchLenSize)
		h.buf = w
		if _, err := h.conn.Write(w); err != nil {
			t.Fatal(err)
		}
		time.Sleep(stale / 2) // the trickle's pace
	}
	if got := s.Stats().ByLimit[LimitReassemblyTimeout]; got == 0 {
		t.Error("a trickled message was not dropped as stale")
	}
	if inUse, _ := keptNow(s); inUse > 256<<10 {
		t.Errorf("%d bytes in use, want the trickle's latest only", inUse)
	}
}
