package zenoh

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// fragments sends total bytes of one fragmented message that never
// completes (every FRAGMENT says more follow), with a KEEP_ALIVE batch
// every few fragments, in batches of the largest size.
func (h *hostile) fragments(total int) error {
	payload := make([]byte, 65535-wire.BatchLenSize-frameOverhead)
	keepAlive, _ := appendBatch(nil, &wire.KeepAlive{})
	first := true
	for sent := 0; sent < total; sent += len(payload) {
		w := append(h.buf[:0], 0, 0)
		w, _ = (&wire.Fragment{Reliable: true, More: true, SN: h.sn, First: first, Payload: payload}).AppendBinary(w)
		h.sn++
		first = false
		_ = wire.PutBatchLen(w, len(w)-wire.BatchLenSize)
		if sent/len(payload)%64 == 63 {
			w = append(w, keepAlive...)
		}
		h.buf = w
		if _, err := h.conn.Write(w); err != nil {
			return err
		}
	}
	return nil
}

// TestAttackNeverEndingFragments: four links each send 60 MB of one
// fragmented message that never ends, keeping their links alive. Without
// a bound the session would hold 240 MB (and more in the buffers' growth);
// MaxSessionReassembly (default 2 * MaxMessageSize, 128 MiB) bounds what
// all links hold together: the link that would go over it loses its
// message and keeps running, and a legitimate peer's stream goes on
// without a gap.
func TestAttackNeverEndingFragments(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 240 MB")
	}
	const (
		links   = 4
		perLink = 60 << 20
	)
	s := attackTarget(t, Config{})
	lp := startLegit(t, s, 0)
	seen := collector(t, s, "attack/frag/*")
	base, g0 := heapInuse(), runtime.NumGoroutine()
	start := time.Now()

	attackers := make([]*hostile, links)
	for i := range attackers {
		attackers[i] = dialHostile(t, s)
		if err := attackers[i].handshake(100+i, 10*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, links)
	for i, h := range attackers {
		wg.Go(func() {
			if err := h.fragments(perLink); err != nil {
				errs <- fmt.Errorf("attacker %d: %w", i, err)
				return
			}
			// A PUSH in a FRAME after the fragments: once the session has
			// read it, it has read them all.
			if err := h.frame(marker(fmt.Sprintf("attack/frag/%d", i))); err != nil {
				errs <- fmt.Errorf("attacker %d: %w", i, err)
			}
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
	held := s.reassembly.Load()
	grown := int64(heapInuse()) - int64(base)
	t.Logf("never-ending fragments (%d links x %d MB): reassembly holds %.1f MiB, heap +%.1f MiB, goroutines %d -> %d, links %d, %v",
		links, perLink>>20, float64(held)/mib, float64(grown)/mib, g0, runtime.NumGoroutine(), len(s.Links()), time.Since(start).Round(time.Millisecond))
	limit := int64(2 * DefaultMaxMessageSize)
	if held > limit {
		t.Errorf("reassembly holds %d bytes, want at most MaxSessionReassembly %d", held, limit)
	}
	if grown > limit+16*mib {
		t.Errorf("heap grew by %.1f MiB, want under %.1f MiB", float64(grown)/mib, float64(limit+16*mib)/mib)
	}
	if n := len(s.Links()); n != links+1 {
		t.Errorf("%d links up, want the %d attackers and the legitimate peer", n, links)
	}
	if st := s.Stats(); st.ByLimit[LimitReassembly] == 0 {
		t.Errorf("Stats = %+v, want a message dropped for %s", st, LimitReassembly)
	}
	lp.check()
	// The links' buffers go when the links do.
	for _, h := range attackers {
		h.conn.Close()
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(s.Links()) > 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // polling the session's link list: no event to wait on
	}
	if held := s.reassembly.Load(); held > 0 {
		t.Errorf("after the attackers left, reassembly still holds %d bytes", held)
	}
}
