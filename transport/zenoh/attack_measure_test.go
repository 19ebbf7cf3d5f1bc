//go:build zenohmeasure

package zenoh

// The measuring harness of issue 32: each row of the issue driven at full
// scale against a session with the default Config, printing what it costs
// the session. It is not a test (it asserts nothing) and takes minutes:
//
//	go test -tags zenohmeasure -run Measure -v -timeout 30m ./transport/zenoh/
//
// Run it without -race: it measures memory.

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// peakRSS resets the peak resident set size (VmHWM) and returns a function
// reading it, in bytes.
func peakRSS(t *testing.T) func() uint64 {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Logf("cannot reset VmHWM: %v", err)
	}
	return func() uint64 {
		b, err := os.ReadFile("/proc/self/status")
		if err != nil {
			return 0
		}
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
				kb, _ := strconv.ParseUint(f[1], 10, 64)
				return kb << 10
			}
		}
		return 0
	}
}

func mb(n uint64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

// countingHandler counts log records whose message contains a substring.
type countingHandler struct {
	sub string
	n   *atomic.Int64
}

func (h countingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h countingHandler) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, h.sub) {
		h.n.Add(1)
	}
	return nil
}
func (h countingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h countingHandler) WithGroup(string) slog.Handler      { return h }

// measureLegit links a Go peer to s publishing at 200 msg/s to a subscriber
// of s; it returns a function stopping it and reporting sent, received and
// how many times its link was lost.
func measureLegit(t *testing.T, s *Session) func() (sent, got, lost int64) {
	var recvd atomic.Int64
	sub, err := s.DeclareSubscriber("legit/seq", func(Sample) { recvd.Add(1) })
	if err != nil {
		t.Fatal(err)
	}
	var lost atomic.Int64
	log := slog.New(countingHandler{sub: "link lost", n: &lost})
	p, err := Open(context.Background(), Config{Connect: s.ListenAddrs(), Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := p.DeclarePublisher("legit/seq")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	_ = pub.WaitMatching(ctx)
	cancel()
	stop := make(chan struct{})
	var sent atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		tk := time.NewTicker(5 * time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tk.C:
			}
			_ = pub.Put(context.Background(), []byte("x"))
			sent.Add(1)
		}
	}()
	return func() (int64, int64, int64) {
		close(stop)
		<-done
		time.Sleep(200 * time.Millisecond)
		p.Close()
		sub.Undeclare()
		return sent.Load(), recvd.Load(), lost.Load()
	}
}

func measureTarget(t *testing.T) *Session {
	s, err := Open(context.Background(), Config{Listen: []string{"tcp/127.0.0.1:0"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Row 1: two client links declare 40,000 subscribers each.
func TestMeasureRelayedDeclarations(t *testing.T) {
	s := measureTarget(t)
	stopLegit := measureLegit(t, s)
	for i := range 2 {
		h := dialHostile(t, s)
		if err := h.handshakeAs(1000+i, wire.Client, 10*time.Second); err != nil {
			t.Fatal(err)
		}
		h.drain()
		msgs := make([][]byte, 0, 40000)
		for j := range 40000 {
			msgs = append(msgs, appendDeclareSubscriber(nil, nil, uint32(j+1), fmt.Sprintf("attack/%d/sub/%d", i, j)))
		}
		go h.frame(msgs...)
	}
	time.Sleep(20 * time.Second)
	sent, got, lost := stopLegit()
	t.Logf("ROW1 relayed declarations: legit sent %d, received %d, lost %d; legit link lost %d times in 20 s; stats %+v",
		sent, got, sent-got, lost, s.Stats())
}

// Row 2: 120 links each chain 63 aliases on one long key.
func TestMeasureAliases(t *testing.T) {
	for _, v := range []struct {
		name     string
		key, seg int
		n        int
	}{{"63 x 65 KB", 65000, 1, 63}, {"900 x 3.5 KB", 3000, 1, 900}} {
		s := measureTarget(t)
		seen := collector(t, s, "mark/*")
		base := liveHeap()
		var sent int64
		var hs []*hostile
		for i := range 120 {
			h := dialHostile(t, s)
			if err := h.handshake(2000+i, 10*time.Second); err != nil {
				t.Logf("link %d: %v", i, err)
				continue
			}
			hs = append(hs, h)
			h.drain()
			msgs := [][]byte{aliasMsg(1, 0, "k/"+strings.Repeat("a", v.key))}
			for id := 2; id <= v.n; id++ {
				msgs = append(msgs, aliasMsg(uint16(id), uint16(id-1), strings.Repeat("b", v.seg)))
			}
			msgs = append(msgs, marker(fmt.Sprintf("mark/%d", i)))
			for _, m := range msgs {
				sent += int64(len(m))
			}
			_ = h.frame(msgs...)
		}
		marks := 0
		timeout := time.After(20 * time.Second)
	wait:
		for marks < len(hs) {
			select {
			case <-seen:
				marks++
			case <-timeout:
				break wait
			}
		}
		held := liveHeap() - base
		t.Logf("ROW2 aliases %s: %d links, %s sent, live heap +%s (%.0fx), %d links up; stats %+v",
			v.name, len(hs), mb(uint64(sent)), mb(held), float64(held)/float64(sent), len(s.Links()), s.Stats())
		for _, h := range hs {
			h.conn.Close()
		}
		s.Close()
	}
}

// Row 3: 120 links each send one complete 8,000,000-byte PUSH to a key
// nobody subscribes.
func TestMeasureKeptBuffers(t *testing.T) {
	s := measureTarget(t)
	seen := collector(t, s, "mark/*")
	base := liveHeap()
	var hs []*hostile
	for i := range 120 {
		h := dialHostile(t, s)
		if err := h.handshake(3000+i, 10*time.Second); err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
		h.drain()
		if err := h.fragmentedPush(fmt.Sprintf("nobody/%d", i), 8_000_000); err != nil {
			t.Fatal(err)
		}
		_ = h.frame(marker(fmt.Sprintf("mark/%d", i)))
	}
	for range hs {
		recv(t, seen)
	}
	held := liveHeap() - base
	t.Logf("ROW3 kept buffers: 120 x 8,000,000 B sent, live heap +%s with the links up; stats %+v", mb(held), s.Stats())
}

// Row 4: a client sends 500k REQUESTs with a 1 h timeout; another declares
// a queryable on q/** and never answers.
func TestMeasurePendingQueries(t *testing.T) {
	s := measureTarget(t)
	stopLegit := measureLegit(t, s)
	base := liveHeap()
	probe := startHeapProbe()
	qb := dialHostile(t, s)
	if err := qb.handshakeAs(4000, wire.Client, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	qbDone := qb.drain()
	_ = qb.frame(appendDeclareQueryable(nil, nil, 1, "q/**", false))
	for !s.hasQueryableFor("q/x") {
		time.Sleep(time.Millisecond)
	}
	qa := dialHostile(t, s)
	if err := qa.handshakeAs(4001, wire.Client, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	qaDone := qa.drain()
	const n = 500000
	msgs := make([][]byte, 0, n)
	var sent int64
	for i := range n {
		m := requestMsg(uint32(i+1), "q/x", time.Hour)
		sent += int64(len(m))
		msgs = append(msgs, m)
	}
	msgs = append(msgs, marker("mark/q"))
	seen := collector(t, s, "mark/q")
	start := time.Now()
	_ = qa.frame(msgs...)
	select {
	case <-seen:
	case <-qaDone:
	case <-time.After(60 * time.Second):
	}
	s.mu.Lock()
	gets := len(s.gets)
	s.mu.Unlock()
	during := liveHeap() - base
	t.Logf("ROW4 queries: %s sent in %v, %d queries pending, live heap +%s", mb(uint64(sent)), time.Since(start).Round(time.Millisecond), gets, mb(during))
	qa.conn.Close()
	qb.conn.Close()
	<-qaDone
	<-qbDone
	time.Sleep(2 * time.Second)
	after := liveHeap() - base
	peak := probe.end() - base
	s.mu.Lock()
	gets = len(s.gets)
	s.mu.Unlock()
	sentL, got, lost := stopLegit()
	t.Logf("ROW4 queries: peak heap +%s; after both links closed: %d pending, live heap +%s; legit %d/%d (link lost %d); stats %+v",
		mb(peak), gets, mb(after), got, sentL, lost, s.Stats())
}

// Row 5: 4 links x 60 MB of fragments that never complete, then only
// keep-alives.
func TestMeasureNeverEndingFragments(t *testing.T) {
	s := measureTarget(t)
	stopLegit := measureLegit(t, s)
	seen := collector(t, s, "mark/*")
	base := liveHeap()
	rss := peakRSS(t)
	rss0 := rss()
	probe := startHeapProbe()
	stop := make(chan struct{})
	defer close(stop)
	var wg sync.WaitGroup
	for i := range 4 {
		h := dialHostile(t, s)
		if err := h.handshake(5000+i, 10*time.Second); err != nil {
			t.Fatal(err)
		}
		h.drain()
		wg.Go(func() {
			_ = h.fragments(60 << 20)
			_ = h.frame(marker(fmt.Sprintf("mark/%d", i)))
			go h.keepAlive(time.Second, stop)
		})
	}
	wg.Wait()
	for range 4 {
		recv(t, seen)
	}
	peak := probe.end() - base
	held := s.reassembly.Load()
	t.Logf("ROW5 fragments: counted %s, peak heap +%s, peak RSS %s (at start %s)", mb(uint64(held)), mb(peak), mb(rss()), mb(rss0))
	for _, d := range []time.Duration{2 * time.Second, 5 * time.Second} {
		time.Sleep(d)
		t.Logf("ROW5 fragments: +%v of keep-alives only: counted %s, live heap +%s", d, mb(uint64(s.reassembly.Load())), mb(liveHeap()-base))
	}
	sent, got, lost := stopLegit()
	t.Logf("ROW5 legit %d/%d (link lost %d); stats %+v", got, sent, lost, s.Stats())
}

// joinLocal opens a new local node linked to s, as a robot's node would,
// and reports whether it joined within timeout.
func joinLocal(s *Session, timeout time.Duration) (bool, time.Duration) {
	start := time.Now()
	p, err := Open(context.Background(), Config{Connect: s.ListenAddrs(), ConnectTimeout: timeout,
		ConnectExitOnFailure: true, RetryInterval: 100 * time.Millisecond})
	if err != nil {
		return false, time.Since(start)
	}
	d := time.Since(start)
	p.Close()
	return true, d
}

// Row 6a: 127 links that finish the handshake and go silent, then new
// local nodes.
func TestMeasureSilentLocalLinks(t *testing.T) {
	s := measureTarget(t)
	stopLegit := measureLegit(t, s)
	var hs []*hostile
	for i := range 127 {
		h := dialHostile(t, s)
		if err := h.handshake(6000+i, time.Hour); err != nil {
			t.Logf("silent link %d: %v", i, err)
			continue
		}
		hs = append(hs, h)
	}
	time.Sleep(1500 * time.Millisecond)
	joined := 0
	var took []time.Duration
	for range 5 {
		ok, d := joinLocal(s, time.Second)
		if ok {
			joined++
		}
		took = append(took, d.Round(time.Millisecond))
	}
	sent, got, lost := stopLegit()
	t.Logf("ROW6 silent links: %d linked, new local nodes joined %d of 5 (%v); legit %d/%d (lost %d); stats %+v",
		len(hs), joined, took, got, sent, lost, s.Stats())
}

// Row 6b: a slow handshaker that redials at once.
func TestMeasureSlowHandshaker(t *testing.T) {
	s := measureTarget(t)
	stopLegit := measureLegit(t, s)
	addr := strings.TrimPrefix(s.ListenAddrs()[0], "tcp/")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var dials atomic.Int64
	init, _ := appendBatch(nil, &wire.Init{Version: wire.ProtoVersion, WhatAmI: wire.Peer, ZID: hostileZID(7000),
		Resolution: wire.DefaultResolution, BatchSize: 65535, Patch: 1})
	for range 64 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				c, err := net.Dial("tcp", addr)
				if err != nil {
					continue
				}
				dials.Add(1)
				closed := make(chan struct{})
				go func() { _, _ = bufio.NewReader(c).ReadByte(); close(closed) }()
			slow:
				for i := 0; i < len(init)-1; i++ { // never the last byte
					if _, err := c.Write(init[i : i+1]); err != nil {
						break
					}
					select {
					case <-closed:
						break slow
					case <-stop:
						break slow
					case <-time.After(300 * time.Millisecond):
					}
				}
				c.Close()
			}
		})
	}
	time.Sleep(500 * time.Millisecond)
	joined, tries := 0, 0
	var took []time.Duration
	deadline := time.Now().Add(12 * time.Second)
	for time.Now().Before(deadline) {
		tries++
		ok, d := joinLocal(s, time.Second)
		if ok {
			joined++
		}
		took = append(took, d.Round(time.Millisecond))
		time.Sleep(200 * time.Millisecond) // a new node now and then
	}
	close(stop)
	wg.Wait()
	sent, got, lost := stopLegit()
	slowest := slices.Max(took)
	t.Logf("ROW6 slow handshaker: %d attacker dials, new local nodes joined %d of %d (slowest %v); legit %d/%d (lost %d); stats %+v",
		dials.Load(), joined, tries, slowest, got, sent, lost, s.Stats())
}

// Row 7: 300 plain TCP connections that never send a byte.
func TestMeasureSilentConnections(t *testing.T) {
	s := measureTarget(t)
	stopLegit := measureLegit(t, s)
	addr := strings.TrimPrefix(s.ListenAddrs()[0], "tcp/")
	var conns []net.Conn
	for range 300 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	time.Sleep(500 * time.Millisecond)
	ok, d := joinLocal(s, 3*time.Second)
	sent, got, lost := stopLegit()
	t.Logf("ROW7 silent TCP connections: new local node (ConnectTimeout 3 s, exit on failure) joined %v after %v; legit %d/%d (lost %d); stats %+v",
		ok, d.Round(time.Millisecond), got, sent, lost, s.Stats())
}

// Row 8 (found on the way): 60 client links subscribe and never read; a
// client publishes 12 MB once, which the session relays to each.
func TestMeasureRelayToSinks(t *testing.T) {
	s := measureTarget(t)
	stopLegit := measureLegit(t, s)
	base := liveHeap()
	for i := range 60 {
		h := dialHostile(t, s)
		if tc, ok := h.conn.(*net.TCPConn); ok {
			_ = tc.SetReadBuffer(4096)
		}
		if err := h.handshakeAs(8000+i, wire.Client, 10*time.Second); err != nil {
			t.Fatal(err)
		}
		_ = h.frame(appendDeclareSubscriber(nil, nil, 1, "flood/**"))
	}
	src := dialHostile(t, s)
	if err := src.handshakeAs(8100, wire.Client, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	src.drain()
	time.Sleep(500 * time.Millisecond)
	payload := make([]byte, 60000)
	for i := range 200 {
		_ = src.frame(cpuPush(fmt.Sprintf("flood/%d", i), payload))
	}
	time.Sleep(3 * time.Second)
	held := liveHeap() - base
	sent, got, lost := stopLegit()
	t.Logf("ROW8 relay to 60 sinks: 12.0 MB sent once, live heap +%s, %d links up; legit %d/%d (lost %d); stats %+v",
		mb(held), len(s.Links()), got, sent, lost, s.Stats())
}
