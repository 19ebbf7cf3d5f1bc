package zenoh

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/afor-go/afor/keyexpr"
	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// The attacks of issue 17 on work per declaration and per sample, driven
// by a hostile peer written for the test: raw TCP on 127.0.0.1 that plays
// zenoh-pico's handshake and then sends hand-made frames. Each test bounds
// the process CPU time (getrusage: the session, the legitimate peer and
// the attacker's own encoding together) and the heap the attack leaves,
// and checks that a legitimate Go peer linked to the same session
// exchanges samples in both directions without a gap meanwhile.
//
// Before the fix, 20,000 subscriber declarations cost the session 41 s of
// CPU and a 16,001-chunk subscriber with 5 publications on 32 KB keys 40 s;
// the bounds here are generous for -race on a loaded 2-core machine and
// still an order of magnitude below.

// cpuPeer is a remote node that speaks the wire by hand.
type cpuPeer struct {
	*rawConn
	sn  uint64
	buf []byte
}

// dialCPUPeer links a hostile peer to s (zenoh-pico's handshake: a peer
// with 2 KiB batches).
func dialCPUPeer(t *testing.T, s *Session) *cpuPeer {
	r, _ := picoHandshake(t, s, "42 0a")
	return &cpuPeer{rawConn: r}
}

// sendNet sends encoded network messages, as many per FRAME as fit in a
// 2 KiB batch (a message larger than that goes alone in a larger batch).
func (h *cpuPeer) sendNet(msgs ...[]byte) error {
	flush := func() error {
		if len(h.buf) == 0 {
			return nil
		}
		err := writeBatch(h.conn, h.buf)
		h.buf = h.buf[:0]
		return err
	}
	for _, m := range msgs {
		if len(h.buf) > 0 && len(h.buf)+len(m) > 2048 {
			if err := flush(); err != nil {
				return err
			}
		}
		if len(h.buf) == 0 {
			h.buf = wire.AppendFrameHeader(h.buf, true, h.sn)
			h.sn++
		}
		h.buf = append(h.buf, m...)
	}
	return flush()
}

// waitClosed waits until the session has closed the hostile link: a read
// ends with an error (EOF) after whatever was queued.
func (h *cpuPeer) waitClosed(t *testing.T) {
	t.Helper()
	_ = h.conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	buf := make([]byte, 65535)
	for {
		if _, err := readBatch(h.br, buf); err != nil {
			if errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "timeout") {
				t.Fatalf("the session kept the hostile link: %v", err)
			}
			return
		}
	}
}

// cpuPush encodes PUSH PUT of payload on key.
func cpuPush(key string, payload []byte) []byte {
	e := pushEncoder{zid: []byte{1}}
	b, err := e.append(nil, key, &dataMsg{payload: payload})
	if err != nil {
		panic(err)
	}
	return b
}

// cpuHeap returns the live heap after a collection.
func cpuHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// cpuLegit publishes numbered samples from a Go peer to the session and
// back while an attack runs, and checks at the end that both directions
// received every sample, in order.
type cpuLegit struct {
	t      *testing.T
	cancel context.CancelFunc
	done   chan struct{}
	sent   [2]uint32
	mu     sync.Mutex
	got    [2]uint32
	gaps   [2]int
	recvd  chan struct{}
}

// startCPULegit links a legitimate Go peer to s and starts samples flowing
// both ways, one every millisecond each way, with CongestionBlock so that
// none is dropped by congestion control: a gap can only be a routing loss.
func startCPULegit(t *testing.T, s *Session) *cpuLegit {
	p := openT(t, Config{Connect: s.ListenAddrs()})
	f := &cpuLegit{t: t, done: make(chan struct{}), recvd: make(chan struct{}, 1)}
	recv := func(dir int) func(Sample) {
		return func(smp Sample) {
			n := binary.BigEndian.Uint32(smp.Payload)
			f.mu.Lock()
			if n != f.got[dir]+1 {
				f.gaps[dir]++
			}
			f.got[dir] = n
			f.mu.Unlock()
			select {
			case f.recvd <- struct{}{}:
			default:
			}
		}
	}
	if _, err := p.DeclareSubscriber("legit/s2p", recv(0)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DeclareSubscriber("legit/p2s", recv(1)); err != nil {
		t.Fatal(err)
	}
	pubs := [2]*Publisher{
		publisher(t, s, "legit/s2p", WithCongestionControl(CongestionBlock)),
		publisher(t, p, "legit/p2s", WithCongestionControl(CongestionBlock)),
	}
	for _, pub := range pubs {
		if err := pub.WaitMatching(testCtx(t)); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	go func() {
		defer close(f.done)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		var payload [4]byte
		for {
			for dir, pub := range pubs {
				binary.BigEndian.PutUint32(payload[:], f.sent[dir]+1)
				if err := pub.Put(ctx, payload[:]); err != nil {
					return
				}
				f.sent[dir]++
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return f
}

// stop ends the flow and checks that every sample arrived, in order.
func (f *cpuLegit) stop() {
	t := f.t
	t.Helper()
	f.cancel()
	<-f.done
	deadline := time.After(20 * time.Second)
	for {
		f.mu.Lock()
		got, gaps := f.got, f.gaps
		f.mu.Unlock()
		if got == f.sent {
			if gaps != [2]int{} {
				t.Fatalf("legitimate samples with gaps: %v (session->peer, peer->session)", gaps)
			}
			t.Logf("legitimate peer: %d samples each way, 0 gaps", f.sent[0])
			return
		}
		select {
		case <-f.recvd:
		case <-deadline:
			t.Fatalf("legitimate samples: sent %v, received up to %v, gaps %v", f.sent, got, gaps)
		}
	}
}

// waitEntries waits until s knows n subscriptions.
func waitEntries(t *testing.T, s *Session, n int) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		ch := s.waitChange()
		s.mu.Lock()
		got := len(s.entries)
		s.mu.Unlock()
		if got == n {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("the session knows %d subscriptions, want %d", got, n)
		}
	}
}

// TestAttackManyDeclarations: 20,000 subscriber declarations on one link
// (41 s of CPU before routing was incremental), each followed by a
// publication on a new key (a route to compute each time), then the link
// drops them all at once.
func TestAttackManyDeclarations(t *testing.T) {
	const (
		n        = 20000
		cpuBound = 8 * time.Second
		memBound = 64 << 20
	)
	s := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}})
	legit := startCPULegit(t, s)
	base := len(s.entries) // the legitimate subscriptions
	h := dialCPUPeer(t, s)

	heap0, cpu0 := cpuHeap(), cpuTime(t)
	msgs := make([][]byte, 0, 2*n)
	for i := range n {
		key := fmt.Sprintf("attack/%d/**", i)
		if i%2 == 1 {
			key = fmt.Sprintf("attack/*/k%d", i) // half wild in the middle
		}
		msgs = append(msgs, appendDeclareSubscriber(nil, nil, uint32(i+1), key))
		msgs = append(msgs, cpuPush(fmt.Sprintf("attack/%d/x", i), []byte("x")))
	}
	start := time.Now()
	if err := h.sendNet(msgs...); err != nil {
		t.Fatal(err)
	}
	waitEntries(t, s, base+n)
	cpu, wall := cpuTime(t)-cpu0, time.Since(start)
	heap := int64(cpuHeap()) - int64(heap0)
	t.Logf("%d declarations and publications: %v CPU, %v wall, heap +%d KiB", n, cpu, wall, heap>>10)
	if cpu > cpuBound {
		t.Errorf("the attack cost %v of CPU, want under %v", cpu, cpuBound)
	}
	if heap > memBound {
		t.Errorf("the attack left %d MiB on the heap, want under %d MiB", heap>>20, memBound>>20)
	}

	// Interests in everything it declared, over and over: each answer is
	// what the link may see (here the session's one local subscriber), not
	// a walk through its own 20,000 subscriptions.
	const nInterests = 2000
	events := readDecls(t, h)
	msgs = msgs[:0]
	for i := range nInterests {
		m, err := (&wire.Interest{ID: uint32(100 + i), Mode: wire.InterestCurrent,
			Options: wire.InterestSubscribers | wire.InterestQueryables | wire.InterestTokens}).AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, m)
	}
	cpu0 = cpuTime(t)
	if err := h.sendNet(msgs...); err != nil {
		t.Fatal(err)
	}
	answered := false
	for e := range events {
		if e.final && e.id == 100+nInterests-1 {
			answered = true
			break
		}
	}
	cpu = cpuTime(t) - cpu0
	if !answered {
		t.Fatal("the link ended before the last interest was answered")
	}
	go func() {
		for range events { // until the link is closed below
		}
	}()
	t.Logf("%d interests: %v CPU", nInterests, cpu)
	if cpu > cpuBound/4 {
		t.Errorf("the interests cost %v of CPU, want under %v", cpu, cpuBound/4)
	}

	// The link goes, with its 20,000 subscriptions.
	cpu0 = cpuTime(t)
	_ = h.conn.Close()
	waitEntries(t, s, base)
	cpu = cpuTime(t) - cpu0
	t.Logf("dropping the link and its %d subscriptions: %v CPU", n, cpu)
	if cpu > cpuBound/4 {
		t.Errorf("dropping the link cost %v of CPU, want under %v", cpu, cpuBound/4)
	}
	legit.stop()
}

// TestAttackLongKeys: a subscriber "**/a/**/.../a/b" of 16,001 chunks and
// publications on 32 KB keys (40 s of CPU before, and fatal to the Rust
// stack when relayed), then the same shapes cut to the keyexpr limits.
func TestAttackLongKeys(t *testing.T) {
	const cpuBound = 4 * time.Second
	s := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}})
	legit := startCPULegit(t, s)
	cpu0 := cpuTime(t)

	// Over the limits: the link is closed, logged and counted, whichever
	// message carries the key.
	issueSub := "**" + strings.Repeat("/a/**", 7999) + "/a/b"
	longKey := strings.Repeat("a/", 16383) + "c"
	chunky := strings.TrimSuffix(strings.Repeat("a/", keyexpr.MaxChunks+1), "/")
	over := []struct {
		name, limit string
		msg         []byte
	}{
		{"subscriber of 16,001 chunks", LimitKeyLen, appendDeclareSubscriber(nil, nil, 1, issueSub)},
		{"publication on a 32 KB key", LimitKeyLen, cpuPush(longKey, []byte("x"))},
		{"publication on 257 chunks", LimitKeyChunks, cpuPush(chunky, []byte("x"))},
		{"subscriber of 257 chunks", LimitKeyChunks, appendDeclareSubscriber(nil, nil, 1, chunky)},
		{"token of 257 chunks", LimitKeyChunks, appendDeclare(nil, nil, &wire.DeclareToken{ID: 1, WireExpr: wire.WireExpr{Suffix: []byte(chunky)}})},
	}
	for _, o := range over {
		before := s.Stats().ByLimit[o.limit]
		h := dialCPUPeer(t, s)
		if err := h.sendNet(o.msg); err != nil {
			t.Fatal(err)
		}
		h.waitClosed(t)
		// The hostile peers share a ZID: let the link go before the next
		// one comes, or it would be refused as a duplicate.
		waitLinks(t, s, 1)
		if got := s.Stats().ByLimit[o.limit]; got != before+1 {
			t.Errorf("%s: Stats.ByLimit[%q] = %d, want %d", o.name, o.limit, got, before+1)
		}
	}

	// At the limits: the hostile subscriber's shape with 255 chunks, and
	// publications from the session on 1,000 distinct keys of 256 chunks
	// that it almost matches (each a new route to compute), plus as many
	// from the hostile peer to the session's "**" subscriber.
	h := dialCPUPeer(t, s)
	hostileSub := "**" + strings.Repeat("/a/**", 126) + "/a/b"
	if err := h.sendNet(appendDeclareSubscriber(nil, nil, 1, hostileSub)); err != nil {
		t.Fatal(err)
	}
	const nKeys = 1000
	longSeen := make(chan struct{}, 2*nKeys)
	if _, err := s.DeclareSubscriber("**", func(smp Sample) {
		if strings.HasPrefix(smp.KeyExpr, "a/") {
			longSeen <- struct{}{}
		}
	}); err != nil {
		t.Fatal(err)
	}
	waitEntries(t, s, 4) // 2 legitimate, the hostile one, "**"
	ctx := testCtx(t)
	var msgs [][]byte
	for i := range nKeys {
		key := strings.Repeat("a/", keyexpr.MaxChunks-2) + fmt.Sprintf("c/%d", i)
		if err := s.Put(ctx, key, []byte("x")); err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, cpuPush(key, []byte("x")))
	}
	if err := h.sendNet(msgs...); err != nil {
		t.Fatal(err)
	}
	for range 2 * nKeys { // the session's own Puts, then the hostile pushes
		select {
		case <-longSeen:
		case <-ctx.Done():
			t.Fatal("the long-key samples did not all arrive")
		}
	}
	legit.stop()
	cpu := cpuTime(t) - cpu0
	t.Logf("long-key attacks: %v CPU; stats %+v", cpu, s.Stats())
	if cpu > cpuBound {
		t.Errorf("the attacks cost %v of CPU, want under %v", cpu, cpuBound)
	}
}

// TestLongKeyRefusedByAPI: the Go API refuses a key the Rust stack cannot
// survive (8,001 chunks) and anything over the keyexpr limits, with an
// error matching both ErrInvalidKeyExpr and keyexpr.ErrTooLong, before
// anything is sent.
func TestLongKeyRefusedByAPI(t *testing.T) {
	s := openT(t, Config{})
	ctx := testCtx(t)
	for _, key := range []string{
		strings.TrimSuffix(strings.Repeat("a/", 8001), "/"),
		strings.TrimSuffix(strings.Repeat("a/", keyexpr.MaxChunks+1), "/"),
		strings.Repeat("a", keyexpr.MaxLen+1),
	} {
		calls := map[string]func() error{
			"DeclareSubscriber": func() error { _, err := s.DeclareSubscriber(key, func(Sample) {}); return err },
			"DeclarePublisher":  func() error { _, err := s.DeclarePublisher(key); return err },
			"Put":               func() error { return s.Put(ctx, key, nil) },
			"Delete":            func() error { return s.Delete(ctx, key) },
			"DeclareQueryable":  func() error { _, err := s.DeclareQueryable(key, func(*Query) {}); return err },
			"Get":               func() error { _, err := s.Get(ctx, key); return err },
			"DeclareToken":      func() error { _, err := s.DeclareToken(key); return err },
			"DeclareLivelinessSubscriber": func() error {
				_, err := s.DeclareLivelinessSubscriber(key, func(Sample) {})
				return err
			},
		}
		for name, call := range calls {
			err := call()
			if !errors.Is(err, keyexpr.ErrTooLong) || !errors.Is(err, ErrInvalidKeyExpr) {
				t.Errorf("%s on a key of %d bytes: %v, want ErrTooLong and ErrInvalidKeyExpr", name, len(key), err)
			}
		}
	}
	// At the limits, all is well.
	key := strings.TrimSuffix(strings.Repeat("a/", keyexpr.MaxChunks), "/")
	if _, err := s.DeclareSubscriber(key, func(Sample) {}); err != nil {
		t.Errorf("DeclareSubscriber at MaxChunks: %v", err)
	}
	if err := s.Put(ctx, key, nil); err != nil {
		t.Errorf("Put at MaxChunks: %v", err)
	}
}
