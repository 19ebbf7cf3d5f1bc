package zenoh

import (
	"fmt"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// TestAttackRelayToSinks: thirty client links subscribe to a key and never
// read; another client publishes 12 MB on it once, which the session
// relays to each of them. Each link's queue is bounded, but they added up:
// 60 such links pinned 322 MB. MaxSessionQueuedBytes bounds them together:
// the links holding the most are closed.
func TestAttackRelayToSinks(t *testing.T) {
	const (
		sinks    = 30
		limit    = 16 << 20
		samples  = 200
		size     = 60000
		overhead = 12 * mib
	)
	s := attackTarget(t, Config{Limits: Limits{MaxSessionQueuedBytes: limit}})
	lp := startLegit(t, s, 0)
	base, g0, cpu0 := heapInuse(), runtime.NumGoroutine(), cpuTime(t)
	start := time.Now()
	for i := range sinks {
		h := dialHostile(t, s)
		if tc, ok := h.conn.(*net.TCPConn); ok {
			_ = tc.SetReadBuffer(4096)
		}
		if err := h.handshakeAs(1100+i, wire.Client, hostileLease); err != nil {
			t.Fatal(err)
		}
		_ = h.frame(appendDeclareSubscriber(nil, nil, 1, "flood/**")) // and never reads
	}
	waitEntries(t, s, sinks+1) // and the legitimate subscriber
	src := dialHostile(t, s)
	if err := src.handshakeAs(1200, wire.Client, hostileLease); err != nil {
		t.Fatal(err)
	}
	src.drain()
	payload := make([]byte, size)
	for i := range samples {
		if err := src.frame(cpuPush(fmt.Sprintf("flood/%d", i), payload)); err != nil {
			t.Fatal(err)
		}
	}
	seen := collector(t, s, "attack/done")
	_ = src.frame(marker("attack/done"))
	recv(t, seen) // every sample relayed (or dropped) by now
	held := s.txHeld.Load()
	closed := int(s.Stats().ByLimit[LimitSessionQueuedBytes])
	waitLinks(t, s, sinks+2-closed) // the sinks closed are gone, with what they held
	grown := int64(heapInuse()) - int64(base)
	cpu := cpuTime(t) - cpu0
	st := s.Stats()
	t.Logf("relay to %d sinks (%d x %d B sent once): %.1f MiB held to send, %d sinks closed, heap +%.1f MiB, goroutines %d -> %d, CPU %v, %v; stats %+v",
		sinks, samples, size, float64(held)/mib, closed, float64(grown)/mib, g0, runtime.NumGoroutine(), cpu,
		time.Since(start).Round(time.Millisecond), st)
	if held > limit {
		t.Errorf("the links hold %d bytes to send, want at most %d", held, limit)
	}
	if grown > limit+overhead {
		t.Errorf("heap grew by %.1f MiB, want under %.1f MiB", float64(grown)/mib, float64(limit+overhead)/mib)
	}
	if st.ByLimit[LimitSessionQueuedBytes] == 0 {
		t.Errorf("Stats = %+v, want sinks closed for %s", st, LimitSessionQueuedBytes)
	}
	if cpu > 20*time.Second {
		t.Errorf("the attack cost %v of CPU, want under 20 s", cpu)
	}
	lp.check()
}
