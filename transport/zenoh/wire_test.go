package zenoh

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// unhex decodes hex with spaces, for byte vectors copied from captures.
func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rawConn speaks batches over TCP by hand, as a scripted remote node.
type rawConn struct {
	t    testing.TB
	conn net.Conn
	br   *bufio.Reader
}

func dialRaw(t testing.TB, addr string) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(addr, "tcp/"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawConn{t: t, conn: c, br: bufio.NewReader(c)}
}

// writeBatch writes one message as a length-prefixed batch.
func writeBatch(conn net.Conn, msg []byte) error {
	b, err := wire.AppendBatchLen(make([]byte, 0, wire.BatchLenSize+len(msg)), len(msg))
	if err != nil {
		return err
	}
	_, err = conn.Write(append(b, msg...))
	return err
}

func (r *rawConn) send(msg []byte) {
	r.t.Helper()
	if err := writeBatch(r.conn, msg); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rawConn) recv() []byte {
	r.t.Helper()
	_ = r.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	b, err := readBatch(r.br, make([]byte, 65535))
	if err != nil {
		r.t.Fatalf("raw read: %v", err)
	}
	return bytes.Clone(b)
}

// recvUntil reads batches until one satisfies ok, skipping keep-alives and
// other traffic.
func (r *rawConn) recvUntil(ok func([]byte) bool) []byte {
	r.t.Helper()
	for {
		if b := r.recv(); ok(b) {
			return b
		}
	}
}

// picoZID is the 16-byte ZID used in the golden vectors.
const picoZID = "0102030405060708090a0b0c0d0e0f10"

// picoHandshake plays zenoh-pico's connecting side (bytes as captured in
// the protocol notes, §3.3) against s, returning the INIT ack.
func picoHandshake(t *testing.T, s *Session, leaseByte string) (*rawConn, *wire.Init) {
	r := dialRaw(t, s.ListenAddrs()[0])
	r.send(unhex(t, "c1 09 f1"+picoZID+"0a 00 08 27 01"))
	raw := r.recv()
	ack, err := decodeInit(raw)
	if err != nil {
		t.Fatal(err)
	}
	// INIT|A|S|Z, version 9, a 16-byte ZID of a peer, 32-bit resolutions,
	// pico's batch of 2048, an empty cookie and Patch 1, byte for byte.
	zid := make([]byte, 0, 16)
	zid = append(zid, s.cfg.ZID...)
	want := append(append([]byte{0xe1, 0x09, 0xf1}, zid...), unhex(t, "0a 00 08 00 27 01")...)
	if !bytes.Equal(raw, want) {
		t.Fatalf("INIT ack\n got % x\nwant % x", raw, want)
	}
	r.send(unhex(t, leaseByte+"00 00")) // OPEN, lease, initial SN 0, empty cookie
	raw = r.recv()
	open, err := decodeOpen(raw)
	if err != nil || !open.Ack || raw[0]&0x3f != 0x22 || open.Lease != s.cfg.Lease {
		t.Fatalf("OPEN ack % x: %+v %v", raw, open, err)
	}
	return r, ack
}

func TestGoldenPicoHandshakeAndTraffic(t *testing.T) {
	s := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}})
	got := collector(t, s, "demo/**")
	r, ack := picoHandshake(t, s, "42 0a")
	if !ack.Ack || ack.Version != 9 || ack.WhatAmI != wire.Peer || ack.BatchSize != 2048 || ack.Resolution != 0x0a || ack.Patch != 1 || len(ack.Cookie) != 0 {
		t.Fatalf("INIT ack %+v", ack)
	}
	// The Go peer pushes its subscriber, then D_FINAL for interest 0.
	decl := r.recvUntil(func(b []byte) bool { return bytes.Contains(b, []byte("demo/**")) })
	if decl[0] != 0x25 {
		t.Fatalf("declarations not in a reliable FRAME: % x", decl)
	}
	// Pico's own declarations and a PUSH through an alias, byte for byte.
	r.send(unhex(t, "25 00 1e 20 01 00 0c"+hex.EncodeToString([]byte("demo/example"))))
	r.send(unhex(t, "25 01 5d 01 01 0c"+hex.EncodeToString([]byte("[   0] hello"))))
	smp := recv(t, got)
	if smp.KeyExpr != "demo/example" || string(smp.Payload) != "[   0] hello" {
		t.Fatalf("got %+v", smp)
	}
	// A subscriber declared with a scoped key, as pico does; then Go
	// publishes and the raw peer receives a PUSH.
	r.send(unhex(t, "25 02 3e 00 20 02 00 04"+hex.EncodeToString([]byte("back"))))
	r.send(unhex(t, "25 03 3e 00 62 01 02 03"+hex.EncodeToString([]byte("/**"))))
	r.send(unhex(t, "25 04 3e 00 1a"))
	p := publisher(t, s, "back/x")
	if err := p.Put(testCtx(t), []byte("hi")); err != nil {
		t.Fatal(err)
	}
	push := r.recvUntil(func(b []byte) bool { return bytes.Contains(b, []byte("back/x")) })
	fr, _, err := wire.DecodeTransport(push, wire.Limits{})
	if err != nil {
		t.Fatalf("push % x: %v", push, err)
	}
	var pm *wire.Push
	for _, nm := range fr.(*wire.Frame).Messages {
		if p, ok := nm.(*wire.Push); ok && string(p.WireExpr.Suffix) == "back/x" {
			pm = p
		}
	}
	if put, ok := pm.Body.(*wire.Put); !ok || string(put.Payload) != "hi" {
		t.Fatalf("push % x: %+v", push, pm)
	}
}

func TestGoldenPicoInitAckQuirk(t *testing.T) {
	// A listener that answers like zenoh-pico when its peer sent no Patch:
	// the Z flag is set and no extension follows.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	done := make(chan []byte, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			done <- nil
			return
		}
		defer c.Close()
		r := &rawConn{t: t, conn: c, br: bufio.NewReader(c)}
		syn := r.recv()
		r.send(unhex(t, "e1 09 f1"+picoZID+"0a 00 08 00"))
		_ = r.recv() // OPEN syn
		r.send(unhex(t, "62 0a 00"))
		done <- syn
		// Stay until the Go side closes (it sends declarations meanwhile).
		_, _ = io.Copy(io.Discard, c)
	}()
	s := openT(t, Config{Mode: ModeClient, Connect: []string{"tcp/" + ln.Addr().String()}})
	syn := <-done
	// INIT|Z, version 9, ZID length 16 and client, and the Patch extension
	// (always sent). Our resolution (32-bit) and batch size (65535) are the
	// protocol defaults, which the reference omits with the S flag.
	want := append(append([]byte{0x81, 0x09, 0xf2}, s.cfg.ZID...), unhex(t, "27 01")...)
	if !bytes.Equal(syn, want) {
		t.Fatalf("INIT syn\n got % x\nwant % x", syn, want)
	}
	if n := len(s.table.Load().all); n != 1 {
		t.Fatalf("%d links, want 1", n)
	}
}

// waitLinks waits until s has n links.
func waitLinks(t *testing.T, s *Session, n int) {
	t.Helper()
	ctx := testCtx(t)
	for {
		ch := s.waitChange()
		if len(s.table.Load().all) == n {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("session has %d links, want %d", len(s.table.Load().all), n)
		}
	}
}

func TestGarbagePeerDropped(t *testing.T) {
	s := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}})
	good := openT(t, Config{Connect: s.ListenAddrs()})
	got := collector(t, s, "k")
	r, _ := picoHandshake(t, s, "42 0a")
	waitLinks(t, s, 2)
	r.send([]byte{0x25, 0x00, 0x1d, 0xff, 0xff, 0xff}) // PUSH with a truncated key
	cl := r.recvUntil(func(b []byte) bool { return wire.HeaderID(b[0]) == wire.IDClose })
	if cl[1] != wire.CloseInvalid {
		t.Fatalf("CLOSE % x: want reason INVALID", cl)
	}
	waitLinks(t, s, 1)
	// The session and its other link still work.
	p := publisher(t, good, "k")
	if err := p.Put(testCtx(t), []byte("still")); err != nil {
		t.Fatal(err)
	}
	if smp := recv(t, got); string(smp.Payload) != "still" {
		t.Fatalf("got %+v", smp)
	}
}

func TestSilentPeerDroppedAfterLease(t *testing.T) {
	s := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}})
	// OPEN without the T flag: lease in milliseconds (200 = c8 01).
	r, _ := picoHandshake(t, s, "02 c8 01")
	start := time.Now()
	waitLinks(t, s, 1)
	waitLinks(t, s, 0)
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Fatalf("dropped after %v, before the lease", d)
	}
	cl := r.recvUntil(func(b []byte) bool { return wire.HeaderID(b[0]) == wire.IDClose })
	if cl[1] != wire.CloseExpired {
		t.Fatalf("CLOSE % x: want reason EXPIRED", cl)
	}
}

func TestKeepAliveSent(t *testing.T) {
	s := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}, Lease: 400 * time.Millisecond})
	r, _ := picoHandshake(t, s, "42 0a")
	_ = s
	// With nothing to send, a KEEP_ALIVE comes within Lease/4 (100 ms);
	// wait for two to see the ticker repeat.
	for range 2 {
		r.recvUntil(func(b []byte) bool { return len(b) == 1 && b[0] == wire.IDKeepAlive })
	}
}

func TestOversizedFragmentedMessageDropped(t *testing.T) {
	a := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}, BatchSize: 2048, MaxMessageSize: 4096})
	got := collector(t, a, "big")
	b := openT(t, Config{Connect: a.ListenAddrs()})
	p := publisher(t, b, "big")
	ctx := testCtx(t)
	for _, n := range []int{5000, 4000, 100000, 10} {
		if err := p.Put(ctx, make([]byte, n)); err != nil {
			t.Fatal(err)
		}
	}
	// The messages over the limit are dropped; the link stays up.
	for _, n := range []int{4000, 10} {
		if s := recv(t, got); len(s.Payload) != n {
			t.Fatalf("got %d bytes, want %d", len(s.Payload), n)
		}
	}
	if n := len(a.table.Load().all); n != 1 {
		t.Fatalf("%d links, want 1", n)
	}
}

// writeMessages packs queued messages into as few batches as the batch
// size allows, and fragments a message bigger than a batch.
func TestWriterBatchesAndFragments(t *testing.T) {
	c1, c2 := net.Pipe()
	defer c1.Close()
	defer c2.Close()
	l := &link{conn: c1, batch: 256, snMask: 1<<28 - 1, patch: 1}
	var msgs []byte
	var bounds []int
	add := func(m []byte) {
		msgs = append(msgs, m...)
		bounds = append(bounds, len(msgs))
	}
	var enc pushEncoder
	push := func(key string, payload []byte) []byte {
		b, err := enc.append(nil, key, &dataMsg{payload: payload})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for i := range 30 {
		add(push("k", []byte{byte(i)})) // 7 bytes each
	}
	big := bytes.Repeat([]byte{0xee}, 600)
	add(push("big", big))
	add(push("k", []byte{99}))

	got := make(chan []byte, 64)
	go func() {
		defer close(got)
		br := bufio.NewReader(c2)
		for {
			b, err := readBatch(br, make([]byte, 65535))
			if err != nil {
				return
			}
			got <- bytes.Clone(b)
		}
	}()
	if _, err := l.writeMessages(nil, msgs, bounds); err != nil {
		t.Fatal(err)
	}
	c1.Close()
	var batches [][]byte
	for b := range got {
		if len(b)+2 > l.batch {
			t.Fatalf("batch of %d bytes over the batch size %d (with its prefix)", len(b), l.batch)
		}
		batches = append(batches, b)
	}
	// 30 small pushes in one FRAME, the big one in 3 FRAGMENTs (First
	// marker on the first, M on all but the last), then a FRAME.
	if len(batches) != 5 {
		t.Fatalf("%d batches, want 5", len(batches))
	}
	reliableFrame := byte(wire.IDFrame | wire.FlagReliable)
	if batches[0][0] != reliableFrame || bytes.Count(batches[0], []byte{wire.IDPush | wire.FlagNamed}) < 30 {
		t.Fatalf("first batch % x", batches[0])
	}
	var whole []byte
	for i, b := range batches[1:4] {
		m, _, err := wire.DecodeTransport(b, wire.Limits{})
		if err != nil {
			t.Fatalf("fragment %d: %v", i, err)
		}
		f, ok := m.(*wire.Fragment)
		if !ok || !f.Reliable || f.More != (i < 2) || f.First != (i == 0) || f.Drop || len(f.Exts) != 0 {
			t.Fatalf("fragment %d: %+v", i, m)
		}
		whole = append(whole, f.Payload...)
	}
	nm, n, err := wire.DecodeNetwork(whole, wire.Limits{})
	if err != nil || n != len(whole) {
		t.Fatalf("reassembled: %v, %d of %d bytes", err, n, len(whole))
	}
	if put, ok := nm.(*wire.Push).Body.(*wire.Put); !ok || !bytes.Equal(put.Payload, big) {
		t.Fatalf("reassembled %+v", nm)
	}
	if batches[4][0] != reliableFrame {
		t.Fatalf("last batch % x", batches[4])
	}
	// Frame and fragment SNs follow each other.
	for i, b := range batches {
		sn, _, _ := wire.ReadZint(b[1:])
		if sn != uint64(i) {
			t.Fatalf("batch %d has SN %d", i, sn)
		}
	}
}
