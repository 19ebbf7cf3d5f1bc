package zenoh

import (
	"context"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// The admission rows of issue 32, at the default Config: every node of a
// robot connects from 127.0.0.1, so a hostile local process must not keep
// the others from joining. Each test drives the attack at a live session
// and checks that a new local node joins within a second, several times,
// while it goes on, that the legitimate peer's stream has no gap, and
// that memory and CPU stay bounded.

// joinWithin opens a new local node linked to s, as a robot's node
// would, failing the test unless it links within d.
func joinWithin(t *testing.T, s *Session, d time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n, err := Open(ctx, Config{Connect: s.ListenAddrs(), ConnectTimeout: d, ConnectExitOnFailure: true,
		RetryInterval: 50 * time.Millisecond, Logger: testLogger(t)})
	took := time.Since(start)
	if err != nil {
		t.Fatalf("a new local node could not join within %v: %v", d, err)
	}
	t.Cleanup(func() { n.Close() })
	return took
}

// closedCount counts the connections the session has ended.
type closedCount struct {
	n  atomic.Int64
	ch chan struct{} // a value per connection ended
}

func newClosedCount(n int) *closedCount { return &closedCount{ch: make(chan struct{}, n)} }

// watch counts h as closed once the session ends its connection, which
// closes the channel returned. h's connection must have no other reader.
func (c *closedCount) watch(h *hostile) <-chan struct{} {
	ended := make(chan struct{})
	go func() {
		<-waitClosed(h)
		c.n.Add(1)
		close(ended)
		c.ch <- struct{}{}
	}()
	return ended
}

// wait waits (at most d) until n connections have ended.
func (c *closedCount) wait(n int, d time.Duration) {
	timeout := time.After(d)
	for c.n.Load() < int64(n) {
		select {
		case <-c.ch:
		case <-timeout:
			return
		}
	}
}

// TestAttackSilentLocalLinks: 127 links from 127.0.0.1 finish their
// handshake (announcing an hour-long lease) and go silent, filling
// MaxLinksPerIP with the legitimate peer. Before, every new local node was
// refused until their leases ran out (75 s); now an idle link makes room
// for each.
func TestAttackSilentLocalLinks(t *testing.T) {
	const joins = 5
	s := attackTarget(t, Config{})
	lp := startLegit(t, s, 0)
	base, g0, cpu0 := heapInuse(), runtime.NumGoroutine(), cpuTime(t)
	closed := newClosedCount(DefaultMaxLinksPerIP)
	for i := range DefaultMaxLinksPerIP - 1 {
		h := dialHostile(t, s)
		if err := h.handshake(100+i, time.Hour); err != nil {
			t.Fatalf("silent link %d: %v", i, err)
		}
		closed.watch(h)
	}
	waitLinks(t, s, DefaultMaxLinksPerIP)
	// The silent links become evictable once silent that long: a time
	// condition, not a synchronisation.
	time.Sleep(linkEvictIdle)
	var took []time.Duration
	for range joins {
		took = append(took, joinWithin(t, s, time.Second).Round(time.Millisecond))
	}
	grown := int64(heapInuse()) - int64(base)
	cpu := cpuTime(t) - cpu0
	closed.wait(joins, 10*time.Second) // the evicted links' connections
	st := s.Stats()
	t.Logf("silent local links (%d): %d new nodes joined in %v; %d attacker links closed; heap +%.1f MiB, goroutines %d -> %d, CPU %v; stats %+v",
		DefaultMaxLinksPerIP-1, joins, took, closed.n.Load(), float64(grown)/mib, g0, runtime.NumGoroutine(), cpu, st)
	if st.LinksEvicted != joins || st.ByLimit[LimitLinksPerIP] < joins {
		t.Errorf("Stats = %+v, want %d links evicted for %s", st, joins, LimitLinksPerIP)
	}
	if got := closed.n.Load(); got != joins {
		t.Errorf("%d attacker links closed, want %d (one per new node)", got, joins)
	}
	if n := len(s.Links()); n != DefaultMaxLinksPerIP {
		t.Errorf("%d links, want %d", n, DefaultMaxLinksPerIP)
	}
	if grown > 32*mib {
		t.Errorf("heap grew by %.1f MiB, want under 32 MiB", float64(grown)/mib)
	}
	if cpu > 20*time.Second {
		t.Errorf("the attack cost %v of CPU, want under 20 s", cpu)
	}
	lp.check()
}

// slowHandshaker plays a hostile local process: n connections that send
// their INIT one byte every period and never its last byte, each dialling
// again at once when the session ends it.
type slowHandshaker struct {
	stop  chan struct{}
	wg    sync.WaitGroup
	dials atomic.Int64
}

func startSlowHandshaker(t *testing.T, s *Session, n int, period time.Duration) *slowHandshaker {
	a := &slowHandshaker{stop: make(chan struct{})}
	addr := strings.TrimPrefix(s.ListenAddrs()[0], "tcp/")
	init, _ := appendBatch(nil, &wire.Init{Version: wire.ProtoVersion, WhatAmI: wire.Peer, ZID: hostileZID(7000),
		Resolution: wire.DefaultResolution, BatchSize: 65535, Patch: 1})
	for range n {
		a.wg.Go(func() {
			for {
				select {
				case <-a.stop:
					return
				default:
				}
				c, err := net.Dial("tcp", addr)
				if err != nil {
					continue
				}
				a.dials.Add(1)
				ended := make(chan struct{})
				go func() {
					var b [1]byte
					_, _ = c.Read(b[:]) // the session's CLOSE, or the end
					close(ended)
				}()
			slow:
				for i := range len(init) - 1 {
					if _, err := c.Write(init[i : i+1]); err != nil {
						break
					}
					select {
					case <-ended:
						break slow
					case <-a.stop:
						break slow
					case <-time.After(period):
					}
				}
				c.Close()
				<-ended
			}
		})
	}
	t.Cleanup(a.end)
	return a
}

func (a *slowHandshaker) end() {
	select {
	case <-a.stop:
	default:
		close(a.stop)
	}
	a.wg.Wait()
}

// TestAttackSlowHandshaker: twice MaxHandshakesPerIP connections from
// 127.0.0.1 send their INIT one byte at a time and dial again at once
// when closed. Before, they kept every new local node out for their whole
// run; now they hold only the slots of stalled handshakes, and a new node
// finishes its handshake within its grace.
func TestAttackSlowHandshaker(t *testing.T) {
	const joins = 5
	s := attackTarget(t, Config{})
	lp := startLegit(t, s, 0)
	base, g0, cpu0 := heapInuse(), runtime.NumGoroutine(), cpuTime(t)
	a := startSlowHandshaker(t, s, 2*DefaultMaxHandshakesPerIP, 100*time.Millisecond)
	var took []time.Duration
	for i := range joins {
		if i == joins/2 {
			// Past the grace of the first connections: the stalled ones
			// hold their slots, the others were closed and dial again.
			time.Sleep(handshakeGrace)
		}
		took = append(took, joinWithin(t, s, time.Second).Round(time.Millisecond))
	}
	grown := int64(heapInuse()) - int64(base)
	g1 := runtime.NumGoroutine()
	a.end()
	cpu := cpuTime(t) - cpu0
	st := s.Stats()
	t.Logf("slow handshaker (%d connections): %d dials, %d new nodes joined in %v; heap +%.1f MiB, goroutines %d -> %d, CPU %v; stats %+v",
		2*DefaultMaxHandshakesPerIP, a.dials.Load(), joins, took, float64(grown)/mib, g0, g1, cpu, st)
	if st.ByLimit[LimitHandshakesPerIP] == 0 {
		t.Errorf("Stats = %+v, want stalled handshakes refused for %s", st, LimitHandshakesPerIP)
	}
	if grown > 16*mib {
		t.Errorf("heap grew by %.1f MiB, want under 16 MiB", float64(grown)/mib)
	}
	// The attacker's own goroutines (two per connection) and the
	// session's (one per handshake) are bounded by its connections.
	if g1-g0 > 3*2*DefaultMaxHandshakesPerIP+3*joins+16 {
		t.Errorf("goroutines grew by %d", g1-g0)
	}
	if cpu > 20*time.Second {
		t.Errorf("the attack cost %v of CPU, want under 20 s", cpu)
	}
	lp.check()
}

// TestAttackSilentConnections: 300 plain TCP connections from 127.0.0.1
// that never send a byte. Before, a new local node (ConnectTimeout 3 s,
// ConnectExitOnFailure) could not join at all; now each joins within a
// second, while the connections are in their grace and after it, when all
// but MaxHandshakesPerIP of them have been closed.
func TestAttackSilentConnections(t *testing.T) {
	const (
		n     = 300
		joins = 3
	)
	s := attackTarget(t, Config{})
	lp := startLegit(t, s, 0)
	base, g0, cpu0 := heapInuse(), runtime.NumGoroutine(), cpuTime(t)
	closed := newClosedCount(n)
	for range n {
		closed.watch(dialHostile(t, s))
	}
	var took []time.Duration
	for range joins {
		took = append(took, joinWithin(t, s, time.Second).Round(time.Millisecond))
	}
	// Past the grace: the stalled connections beyond MaxHandshakesPerIP
	// are closed.
	closed.wait(n-DefaultMaxHandshakesPerIP, 10*time.Second)
	for range joins {
		took = append(took, joinWithin(t, s, time.Second).Round(time.Millisecond))
	}
	grown := int64(heapInuse()) - int64(base)
	cpu := cpuTime(t) - cpu0
	st := s.Stats()
	t.Logf("silent connections (%d): %d closed by the session; %d new nodes joined in %v; heap +%.1f MiB, goroutines %d -> %d, CPU %v; stats %+v",
		n, closed.n.Load(), 2*joins, took, float64(grown)/mib, g0, runtime.NumGoroutine(), cpu, st)
	if got := closed.n.Load(); got < n-DefaultMaxHandshakesPerIP {
		t.Errorf("%d connections closed, want at least %d", got, n-DefaultMaxHandshakesPerIP)
	}
	if st.ByLimit[LimitHandshakesPerIP] < n-DefaultMaxHandshakesPerIP {
		t.Errorf("Stats = %+v, want at least %d refused for %s", st, n-DefaultMaxHandshakesPerIP, LimitHandshakesPerIP)
	}
	if grown > 16*mib {
		t.Errorf("heap grew by %.1f MiB, want under 16 MiB", float64(grown)/mib)
	}
	if cpu > 20*time.Second {
		t.Errorf("the attack cost %v of CPU, want under 20 s", cpu)
	}
	lp.check()
}
