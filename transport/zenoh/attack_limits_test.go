package zenoh

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// The tests of this file play a hostile remote against a listening
// session, each one row of issue 17: a raw TCP client on 127.0.0.1 that
// speaks just enough Zenoh. Each asserts that the session's memory and
// goroutines stay bounded, that the attacker loses its connection, and
// that a legitimate Go peer linked to the same session exchanges samples
// without a gap meanwhile.

// hostile is a scripted remote node.
type hostile struct {
	t    testing.TB
	conn net.Conn
	br   *bufio.Reader
	sn   uint64
	buf  []byte
}

// dialHostile connects to s's first listen address.
func dialHostile(t testing.TB, s *Session) *hostile {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(s.ListenAddrs()[0], "tcp/"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	// A small read buffer: the attacker's memory is not the session's.
	return &hostile{t: t, conn: c, br: bufio.NewReaderSize(c, 64)}
}

// hostileZID returns a distinct ZID for attacker n.
func hostileZID(n int) wire.ZenohID {
	b := make([]byte, 16)
	binary.LittleEndian.PutUint64(b, uint64(n)+1)
	b[15] = 0xa5
	z, _ := wire.NewZenohID(b)
	return z
}

// handshake opens a link announcing lease; it fails if the session
// refuses it.
func (h *hostile) handshake(n int, lease time.Duration) error {
	b, _ := appendBatch(nil, &wire.Init{Version: wire.ProtoVersion, WhatAmI: wire.Peer, ZID: hostileZID(n),
		Resolution: wire.DefaultResolution, BatchSize: 65535, Patch: 1})
	if _, err := h.conn.Write(b); err != nil {
		return err
	}
	_ = h.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	defer h.conn.SetReadDeadline(time.Time{})
	raw, err := readBatch(h.br, make([]byte, 65535))
	if err != nil {
		return err
	}
	ack, err := decodeInit(raw)
	if err != nil {
		return err
	}
	b, _ = appendBatch(nil, &wire.Open{Lease: lease, Cookie: ack.Cookie})
	if _, err := h.conn.Write(b); err != nil {
		return err
	}
	raw, err = readBatch(h.br, make([]byte, 65535))
	if err != nil {
		return err
	}
	if _, err := decodeOpen(raw); err != nil {
		return err
	}
	return nil
}

// frame sends network messages in reliable FRAMEs, as many per batch as
// fit. Write errors are returned (the session may have closed the link).
func (h *hostile) frame(msgs ...[]byte) error {
	start := -1
	w := h.buf[:0]
	for _, m := range msgs {
		if start >= 0 && len(w)-start-2+len(m) > 65535 {
			_ = wire.PutBatchLen(w[start:], len(w)-start-2)
			start = -1
		}
		if start < 0 {
			start = len(w)
			w = append(w, 0, 0)
			w = wire.AppendFrameHeader(w, true, h.sn)
			h.sn++
		}
		w = append(w, m...)
	}
	if start >= 0 {
		_ = wire.PutBatchLen(w[start:], len(w)-start-2)
	}
	h.buf = w
	_, err := h.conn.Write(w)
	return err
}

// closedWithin reports whether the session ended the connection (EOF or
// reset) within d, discarding what it sent until then.
func (h *hostile) closedWithin(d time.Duration) bool {
	_ = h.conn.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, h.br)
	return !errors.Is(err, os.ErrDeadlineExceeded)
}

// heapInuse returns the live heap after collecting garbage.
func heapInuse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

const mib = 1 << 20

// legitPeer is a Go session linked to the attacked one, publishing a
// numbered stream to it throughout an attack.
type legitPeer struct {
	t      testing.TB
	s      *Session
	got    chan uint64
	stop   chan struct{}
	done   chan struct{}
	sent   uint64
	pubErr error
}

// startLegit links a peer to s (with lease, 0 for the default) and starts
// its stream.
func startLegit(t testing.TB, s *Session, lease time.Duration) *legitPeer {
	t.Helper()
	return startLegitWith(t, s, Config{Lease: lease})
}

// startLegitWith links a peer of configuration cfg to s and starts its
// stream.
func startLegitWith(t testing.TB, s *Session, cfg Config) *legitPeer {
	t.Helper()
	lp := &legitPeer{t: t, got: make(chan uint64, 1<<16), stop: make(chan struct{}), done: make(chan struct{})}
	sub, err := s.DeclareSubscriber("legit/seq", func(smp Sample) {
		lp.got <- binary.LittleEndian.Uint64(smp.Payload)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sub.Undeclare() })
	cfg.Connect = s.ListenAddrs()
	lp.s = openT(t, cfg)
	pub := publisher(t, lp.s, "legit/seq", WithCongestionControl(CongestionBlock))
	ctx := testCtx(t)
	if err := pub.WaitMatching(ctx); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(lp.done)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		var b [8]byte
		for {
			select {
			case <-lp.stop:
				return
			case <-tick.C:
			}
			binary.LittleEndian.PutUint64(b[:], lp.sent)
			if err := pub.Put(ctx, b[:]); err != nil {
				lp.pubErr = err
				return
			}
			lp.sent++
		}
	}()
	return lp
}

// check stops the stream and asserts that every sample arrived, in order.
// At least minSamples are exchanged, after the attack if need be.
func (lp *legitPeer) check() {
	lp.t.Helper()
	const minSamples = 20
	want := uint64(0)
	next := func() {
		lp.t.Helper()
		select {
		case got := <-lp.got:
			if got != want {
				lp.t.Fatalf("legitimate peer: got sample %d, want %d (a gap)", got, want)
			}
			want++
		case <-time.After(10 * time.Second):
			lp.t.Fatalf("legitimate peer: no sample %d within 10 s", want)
		}
	}
	for want < minSamples {
		next()
	}
	close(lp.stop)
	<-lp.done
	if lp.pubErr != nil {
		lp.t.Fatalf("legitimate peer: Put: %v", lp.pubErr)
	}
	for want < lp.sent {
		next()
	}
	lp.t.Logf("legitimate peer: %d samples, 0 gaps", lp.sent)
}

// attackTarget opens the listening session under attack.
func attackTarget(t testing.TB, cfg Config) *Session {
	cfg.Listen = []string{"tcp/127.0.0.1:0"}
	return openT(t, cfg)
}

// marker returns a PUSH on key, to learn when the session has read what
// the attacker sent before it.
func marker(key string) []byte {
	var e pushEncoder
	b, _ := e.append(nil, key, &dataMsg{payload: []byte("m")})
	return b
}

// TestAttackChainedAliases: each D_KEYEXPR extends the previous alias by
// 200 bytes, so the keys the session stores grow quadratically with the
// count. MaxAliasBytes (default 4 MiB) bounds them, and before it
// keyexpr.MaxLen: an alias longer than a key may be ends the link at the
// 21st alias of the chain.
func TestAttackChainedAliases(t *testing.T) {
	s := attackTarget(t, Config{})
	lp := startLegit(t, s, 0)
	seen := collector(t, s, "attack/done")
	base, g0 := heapInuse(), runtime.NumGoroutine()
	start := time.Now()

	const n = 1000 // 100 MB of keys if all were kept
	h := dialHostile(t, s)
	if err := h.handshake(1, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	seg := "/" + strings.Repeat("a", 199)
	msgs := make([][]byte, 0, n+1)
	for i := 1; i <= n; i++ {
		we := wire.WireExpr{Scope: uint16(i - 1), Suffix: []byte(seg)}
		if i == 1 {
			we.Suffix = []byte("attack" + seg)
		}
		msgs = append(msgs, appendDeclare(nil, nil, &wire.DeclareKeyExpr{ID: uint16(i), WireExpr: we}))
	}
	msgs = append(msgs, marker("attack/done"))
	_ = h.frame(msgs...)
	closed := false
	select {
	case <-seen: // the session read it all and kept the link
	case <-waitClosed(h):
		closed = true
	case <-time.After(20 * time.Second):
		t.Fatal("the session neither processed the attack nor closed the link")
	}
	grown := int64(heapInuse()) - int64(base)
	t.Logf("chained aliases (%d x 200 B): heap +%.1f MiB, goroutines %d -> %d, link closed %v, %v",
		n, float64(grown)/mib, g0, runtime.NumGoroutine(), closed, time.Since(start).Round(time.Millisecond))
	if grown > 16*mib {
		t.Errorf("heap grew by %.1f MiB, want under 16 MiB", float64(grown)/mib)
	}
	if !closed {
		t.Error("the attacker's link was not closed")
	}
	if st := s.Stats(); st.ByLimit[LimitKeyLen] != 1 || st.LinksClosedForLimits != 1 {
		t.Errorf("Stats = %+v, want one link closed for %s", st, LimitKeyLen)
	}
	lp.check()
}

// waitClosed returns a channel closed when the session ends h's connection.
func waitClosed(h *hostile) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		_, _ = io.Copy(io.Discard, h.br)
	}()
	return ch
}

// TestAttackSilentLinks: many links finish the handshake announcing an
// hour-long lease, then stay silent. MaxLinks and MaxLinksPerIP bound how
// many are held, MaxPeerLease how long.
func TestAttackSilentLinks(t *testing.T) {
	const (
		n        = 200
		maxLinks = 16
		perIP    = 12
		maxLease = 300 * time.Millisecond
	)
	s := attackTarget(t, Config{Limits: Limits{MaxLinks: maxLinks, MaxLinksPerIP: perIP, MaxPeerLease: maxLease}})
	lp := startLegit(t, s, 200*time.Millisecond)
	base, g0 := heapInuse(), runtime.NumGoroutine()
	start := time.Now()

	var (
		mu       sync.Mutex
		linked   int
		attacker []*hostile
	)
	var wg sync.WaitGroup
	for i := range n {
		h := dialHostile(t, s)
		attacker = append(attacker, h)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if h.handshake(i+10, time.Hour) == nil {
				mu.Lock()
				linked++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	// Every handshake answered: the session holds what it accepted.
	peakLinks := len(s.Links())
	grown := int64(heapInuse()) - int64(base)
	g1 := runtime.NumGoroutine()
	t.Logf("silent links (%d, lease 1 h): %d handshakes completed, %d links held, heap +%.1f MiB, goroutines %d -> %d, %v",
		n, linked, peakLinks, float64(grown)/mib, g0, g1, time.Since(start).Round(time.Millisecond))
	if peakLinks > maxLinks {
		t.Errorf("%d links held, want at most %d", peakLinks, maxLinks)
	}
	if grown > 16*mib {
		t.Errorf("heap grew by %.1f MiB, want under 16 MiB", float64(grown)/mib)
	}
	// n goroutines of the attack's own handshakes have returned; the
	// session may hold two per link plus a few.
	if g1-g0 > 2*maxLinks+8 {
		t.Errorf("goroutines grew by %d, want at most %d", g1-g0, 2*maxLinks+8)
	}
	// Most are refused (fewer if the first ones' lease ran out during
	// the attack, making room).
	st := s.Stats()
	if st.LinksRefused < n/2 || st.ByLimit[LimitLinksPerIP] == 0 {
		t.Errorf("Stats = %+v, want at least %d links refused, some for %s", st, n/2, LimitLinksPerIP)
	}
	// The silent links go once the clamped lease has passed.
	timeout := time.After(10 * time.Second)
wait:
	for len(s.Links()) > 1 {
		select {
		case <-s.waitChange():
		case <-timeout:
			break wait
		}
	}
	if got := len(s.Links()); got != 1 {
		t.Errorf("%d links held 10 s after the attack, want only the legitimate one", got)
	}
	t.Logf("silent links dropped after %v", time.Since(start).Round(time.Millisecond))
	for _, h := range attacker {
		h.conn.Close()
	}
	lp.check()
}

// TestAttackSlowloris: many connections announce a batch of 65,535 bytes
// in their first message and send 65,000 of them, never finishing the
// handshake. MaxHandshakes(PerIP) and MaxHandshakeBytes bound what they
// hold.
func TestAttackSlowloris(t *testing.T) {
	const n = 300
	s := attackTarget(t, Config{})
	lp := startLegit(t, s, 0)
	base, g0 := heapInuse(), runtime.NumGoroutine()
	start := time.Now()

	body := make([]byte, 2+65000)
	binary.LittleEndian.PutUint16(body, 65535)
	body[2] = 0x01 // INIT
	conns := make([]*hostile, n)
	var wg sync.WaitGroup
	for i := range conns {
		h := dialHostile(t, s)
		conns[i] = h
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = h.conn.Write(body) // may fail: the session closed it
		}()
	}
	wg.Wait()
	// A refused connection is closed at once; wait (less than the 10 s
	// handshake timeout) for all to be.
	var closed int
	deadline := time.Now().Add(5 * time.Second)
	var g1 int
	for i, h := range conns {
		if h.closedWithin(max(time.Until(deadline), time.Millisecond)) {
			closed++
		}
		if i == 0 {
			g1 = runtime.NumGoroutine()
		}
	}
	grown := int64(heapInuse()) - int64(base)
	t.Logf("slowloris (%d x 65,000 B): %d closed by the session, heap +%.1f MiB, goroutines %d -> %d, %v",
		n, closed, float64(grown)/mib, g0, g1, time.Since(start).Round(time.Millisecond))
	if grown > 8*mib {
		t.Errorf("heap grew by %.1f MiB, want under 8 MiB", float64(grown)/mib)
	}
	if closed != n {
		t.Errorf("%d of %d connections closed, want all", closed, n)
	}
	if g1-g0 > DefaultMaxHandshakes+8 {
		t.Errorf("goroutines grew by %d, want at most %d", g1-g0, DefaultMaxHandshakes+8)
	}
	st := s.Stats()
	if st.LinksRefused != n || st.ByLimit[LimitHandshakeBytes] == 0 {
		t.Errorf("Stats = %+v, want %d connections refused, some for %s", st, n, LimitHandshakeBytes)
	}
	lp.check()
}

// TestAttackDeclarations: one link declares more subscribers than
// MaxDeclarations allows.
func TestAttackDeclarations(t *testing.T) {
	const (
		n   = 2000
		max = 500
	)
	s := attackTarget(t, Config{Limits: Limits{MaxDeclarations: max}})
	lp := startLegit(t, s, 0)
	seen := collector(t, s, "attack/done")
	h := dialHostile(t, s)
	if err := h.handshake(1, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	msgs := make([][]byte, 0, n+1)
	for i := range n {
		msgs = append(msgs, appendDeclareSubscriber(nil, nil, uint32(i+1), fmt.Sprintf("attack/sub/%d", i)))
	}
	msgs = append(msgs, marker("attack/done"))
	_ = h.frame(msgs...)
	closed := false
	select {
	case <-seen:
	case <-waitClosed(h):
		closed = true
	case <-time.After(60 * time.Second):
		t.Fatal("the session neither processed the attack nor closed the link")
	}
	s.mu.Lock()
	entries := len(s.entries)
	s.mu.Unlock()
	t.Logf("declarations (%d subscribers): link closed %v, %d entries left, %v", n, closed, entries, time.Since(start).Round(time.Millisecond))
	if !closed {
		t.Error("the attacker's link was not closed")
	}
	if st := s.Stats(); st.ByLimit[LimitDeclarations] != 1 {
		t.Errorf("Stats = %+v, want one link closed for %s", st, LimitDeclarations)
	}
	lp.check()
}

// TestAttackQueuedBytes: a remote that never reads asks again and again
// for the session's declarations. MaxQueuedBytes bounds what is queued for
// it.
func TestAttackQueuedBytes(t *testing.T) {
	const (
		subs      = 100
		interests = 3000
		limit     = 1 * mib
	)
	s := attackTarget(t, Config{Limits: Limits{MaxQueuedBytes: limit}})
	for i := range subs {
		collector(t, s, fmt.Sprintf("local/%s/%d", strings.Repeat("k", 100), i))
	}
	lp := startLegit(t, s, 0)
	h := dialHostile(t, s)
	if tc, ok := h.conn.(*net.TCPConn); ok {
		_ = tc.SetReadBuffer(4096)
	}
	if err := h.handshake(1, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	base, g0 := heapInuse(), runtime.NumGoroutine()
	start := time.Now()
	msgs := make([][]byte, 0, interests)
	for i := range interests {
		msgs = append(msgs, appendInterest(nil, uint32(100+i), wire.InterestCurrent, wire.InterestSubscribers))
	}
	msgs = append(msgs, marker("attack/done"))
	seen := collector(t, s, "attack/done")
	_ = h.frame(msgs...)
	closedByLimit := false
	select {
	case <-seen: // read it all, queued every answer
	case <-time.After(20 * time.Second):
		t.Fatal("the session did not process the attack")
	}
	grown := int64(heapInuse()) - int64(base)
	st := s.Stats()
	closedByLimit = st.ByLimit[LimitQueuedBytes] == 1
	t.Logf("queued bytes (%d interests x %d declarations, not read): heap +%.1f MiB, goroutines %d -> %d, link closed %v, %v",
		interests, subs, float64(grown)/mib, g0, runtime.NumGoroutine(), closedByLimit, time.Since(start).Round(time.Millisecond))
	if grown > 8*mib {
		t.Errorf("heap grew by %.1f MiB, want under 8 MiB", float64(grown)/mib)
	}
	if !closedByLimit {
		t.Errorf("Stats = %+v, want one link closed for %s", st, LimitQueuedBytes)
	}
	h.conn.Close()
	lp.check()
}

// TestPutTooLarge: a Put the receivers would drop for its size fails at
// the caller, as do a typed Put and a query reply of that size.
func TestPutTooLarge(t *testing.T) {
	const limit = 1 * mib
	a := attackTarget(t, Config{MaxMessageSize: limit})
	b := openT(t, Config{Connect: a.ListenAddrs(), MaxMessageSize: limit})
	got := collector(t, b, "big")
	ctx := testCtx(t)
	pub := publisher(t, a, "big")
	if err := pub.WaitMatching(ctx); err != nil {
		t.Fatal(err)
	}
	err := pub.Put(ctx, make([]byte, limit))
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), fmt.Sprint(limit)) {
		t.Fatalf("Put of %d bytes: err = %v, want ErrTooLarge naming the limit", limit, err)
	}
	t.Logf("Put of the limit: %v", err)
	// The row of issue 17: exactly 64 MiB with the default limit.
	if err := openT(t, Config{}).Put(ctx, "big", make([]byte, DefaultMaxMessageSize)); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Put of 64 MiB: err = %v, want ErrTooLarge", err)
	}
	// What fits arrives, fragmented.
	fits := limit - 4096
	if err := pub.Put(ctx, make([]byte, fits)); err != nil {
		t.Fatalf("Put of %d bytes: %v", fits, err)
	}
	if smp := recv(t, got); len(smp.Payload) != fits {
		t.Fatalf("got %d bytes, want %d", len(smp.Payload), fits)
	}
	tp, err := NewPublisher[[]byte](a, "big", afor.BytesCodec{})
	if err != nil {
		t.Fatal(err)
	}
	if err := tp.Put(ctx, make([]byte, limit)); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("typed Put: err = %v, want ErrTooLarge", err)
	}
	replied := make(chan error, 1)
	qa, err := a.DeclareQueryable("q/big", func(q *Query) {
		replied <- q.Reply(ctx, "q/big", make([]byte, limit))
		q.Finish()
	})
	if err != nil {
		t.Fatal(err)
	}
	defer qa.Undeclare()
	if err := b.waitQueryable(ctx, "q/big"); err != nil {
		t.Fatal(err)
	}
	replies, err := b.Get(ctx, "q/big")
	if err != nil {
		t.Fatal(err)
	}
	for range replies {
	}
	if err := <-replied; !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Reply: err = %v, want ErrTooLarge", err)
	}
}

func TestLimitsResolve(t *testing.T) {
	lm, err := Limits{MaxLinks: 7, MaxAliasBytes: -1, MaxPeerLease: -1}.resolve()
	if err != nil {
		t.Fatal(err)
	}
	want := Limits{MaxLinks: 7, MaxLinksPerIP: DefaultMaxLinksPerIP, MaxHandshakes: DefaultMaxHandshakes,
		MaxHandshakesPerIP: DefaultMaxHandshakesPerIP, MaxHandshakeBytes: DefaultMaxHandshakeBytes,
		MaxPeerLease: maxLease, MaxAliases: DefaultMaxAliases, MaxAliasBytes: noLimit, MaxSessionAliasBytes: DefaultMaxSessionAliasBytes,
		MaxDeclarations: DefaultMaxDeclarations, MaxRelayedDeclarations: DefaultMaxRelayedDeclarations, MaxQueuedBytes: DefaultMaxQueuedBytes,
		MaxSessionQueuedBytes: DefaultMaxSessionQueuedBytes,
		MaxPendingQueries:     DefaultMaxPendingQueries, MaxPendingQueryBytes: DefaultMaxPendingQueryBytes,
		MaxSessionPendingQueries: DefaultMaxSessionPendingQueries, MaxSessionPendingQueryBytes: DefaultMaxSessionPendingQueryBytes,
		MaxQueryTimeout: DefaultMaxQueryTimeout, ReassemblyTimeout: DefaultReassemblyTimeout}
	if lm != want {
		t.Errorf("resolve = %+v\nwant %+v", lm, want)
	}
	for _, bad := range []Limits{{MaxPeerLease: time.Microsecond}, {MaxHandshakeBytes: 100}} {
		if _, err := Open(testCtx(t), Config{Limits: bad}); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("Open with %+v: err = %v, want ErrInvalidConfig", bad, err)
		}
	}
}

// A remote announcing a lease over MaxPeerLease keeps its link, on the
// clamped lease, and the clamp is counted.
func TestPeerLeaseClamped(t *testing.T) {
	s := attackTarget(t, Config{Limits: Limits{MaxPeerLease: 2 * time.Second}})
	h := dialHostile(t, s)
	if err := h.handshake(1, time.Hour); err != nil {
		t.Fatal(err)
	}
	var l *link
	for l == nil {
		s.mu.Lock()
		for x := range s.links {
			l = x
		}
		s.mu.Unlock()
		if l == nil {
			<-s.waitChange()
		}
	}
	if l.peerLease != 2*time.Second || l.keepAlive > 500*time.Millisecond {
		t.Errorf("lease %v, keep-alive %v, want 2s and at most 500ms", l.peerLease, l.keepAlive)
	}
	if got := s.Stats().ByLimit[LimitPeerLease]; got != 1 {
		t.Errorf("Stats.ByLimit[%s] = %d, want 1", LimitPeerLease, got)
	}
}

// A second alias over MaxAliases closes the link; redeclaring an alias
// replaces it within MaxAliasBytes.
func TestAliasLimits(t *testing.T) {
	s := attackTarget(t, Config{Limits: Limits{MaxAliases: 2, MaxAliasBytes: 20}})
	h := dialHostile(t, s)
	if err := h.handshake(1, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	seen := collector(t, s, "k/**")
	alias := func(id uint16, key string) []byte {
		return appendDeclare(nil, nil, &wire.DeclareKeyExpr{ID: id, WireExpr: wire.WireExpr{Suffix: []byte(key)}})
	}
	undeclare := appendDeclare(nil, nil, &wire.UndeclareKeyExpr{ID: 1})
	// 10 + 10 bytes, then 1 replaced (to 5 bytes), then dropped: all fit.
	_ = h.frame(alias(1, "k/aaaaaaaa"), alias(2, "k/bbbbbbbb"), alias(1, "k/ccc"), undeclare,
		alias(3, "k/ddddddd"), marker("k/m"))
	if smp := recv(t, seen); smp.KeyExpr != "k/m" {
		t.Fatalf("got %q", smp.KeyExpr)
	}
	// A third alias: over MaxAliases.
	_ = h.frame(alias(4, "k/e"))
	if !h.closedWithin(10 * time.Second) {
		t.Fatal("link not closed")
	}
	if got := s.Stats().ByLimit[LimitAliases]; got != 1 {
		t.Errorf("Stats.ByLimit[%s] = %d, want 1", LimitAliases, got)
	}
}

// MaxLinks bounds the links from all addresses together.
func TestLinkLimitTotal(t *testing.T) {
	s := attackTarget(t, Config{Limits: Limits{MaxLinks: 3}})
	lp := startLegit(t, s, 0)
	for i := range 2 {
		if err := dialHostile(t, s).handshake(i+1, 10*time.Second); err != nil {
			t.Fatalf("link %d: %v", i+2, err)
		}
	}
	// The session registers a link just after its handshake.
	for len(s.Links()) < 3 {
		<-s.waitChange()
	}
	h := dialHostile(t, s)
	_ = h.handshake(3, 10*time.Second)
	if !h.closedWithin(10 * time.Second) {
		t.Fatal("the fourth connection was not closed")
	}
	if st := s.Stats(); st.LinksRefused != 1 || st.ByLimit[LimitLinks] != 1 {
		t.Errorf("Stats = %+v, want one link refused for %s", st, LimitLinks)
	}
	if n := len(s.Links()); n != 3 {
		t.Errorf("%d links, want 3", n)
	}
	lp.check()
}
