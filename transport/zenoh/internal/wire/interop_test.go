package wire

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/afor-go/afor/internal/peers"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// rawLink is a hand-driven Zenoh link built only from this package's
// codec: enough of a peer to exchange every message kind with the Rust
// implementation. It is test scaffolding, not the session.
type rawLink struct {
	t    *testing.T
	conn net.Conn
	br   *bufio.Reader

	mu  sync.Mutex // guards writes and sn
	sn  uint64
	buf []byte
}

func (l *rawLink) readBatch() ([]byte, error) {
	var hdr [BatchLenSize]byte
	if _, err := io.ReadFull(l.br, hdr[:]); err != nil {
		return nil, err
	}
	n, _ := BatchLen(hdr[:])
	b := make([]byte, n)
	_, err := io.ReadFull(l.br, b)
	return b, err
}

// send writes one transport message as a batch.
func (l *rawLink) send(m TransportMessage) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sendLocked(m)
}

func (l *rawLink) sendLocked(m TransportMessage) error {
	b, err := m.AppendBinary(append(l.buf[:0], 0, 0))
	if err != nil {
		return err
	}
	if err := PutBatchLen(b, len(b)-BatchLenSize); err != nil {
		return err
	}
	l.buf = b
	_, err = l.conn.Write(b)
	return err
}

// sendNet frames network messages on the reliable channel.
func (l *rawLink) sendNet(msgs ...NetworkMessage) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	f := &Frame{Reliable: true, SN: l.sn, Messages: msgs}
	l.sn++
	return l.sendLocked(f)
}

// sendFragmented splits one network message into FRAGMENTs of at most
// chunk bytes, marking the first one when patch allows it.
func (l *rawLink) sendFragmented(m NetworkMessage, chunk int, patch bool) error {
	enc, err := m.AppendBinary(nil)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for off := 0; off < len(enc); off += chunk {
		end := min(off+chunk, len(enc))
		f := &Fragment{Reliable: true, More: end < len(enc), SN: l.sn, First: patch && off == 0,
			Payload: enc[off:end]}
		l.sn++
		if err := l.sendLocked(f); err != nil {
			return err
		}
	}
	return nil
}

// handshake answers the peer's INIT and OPEN and returns its INIT syn.
func (l *rawLink) handshake(zid ZenohID) (*Init, error) {
	b, err := l.readBatch()
	if err != nil {
		return nil, err
	}
	m, _, err := DecodeTransport(b, Limits{})
	if err != nil {
		return nil, fmt.Errorf("decoding INIT syn % x: %w", b, err)
	}
	syn, ok := m.(*Init)
	if !ok || syn.Ack {
		return nil, fmt.Errorf("expected INIT syn, got %#v", m)
	}
	cookie := []byte("afor-wire-cookie")
	ack := &Init{Ack: true, Version: ProtoVersion, WhatAmI: Peer, ZID: zid,
		Resolution: syn.Resolution, BatchSize: syn.BatchSize, Cookie: cookie, Patch: min(syn.Patch, 1)}
	if err := l.send(ack); err != nil {
		return nil, err
	}
	if b, err = l.readBatch(); err != nil {
		return nil, err
	}
	if m, _, err = DecodeTransport(b, Limits{}); err != nil {
		return nil, fmt.Errorf("decoding OPEN syn % x: %w", b, err)
	}
	open, ok := m.(*Open)
	if !ok || open.Ack || !bytes.Equal(open.Cookie, cookie) {
		return nil, fmt.Errorf("expected OPEN syn echoing the cookie, got %#v", m)
	}
	return syn, l.send(&Open{Ack: true, Lease: 10 * time.Second, InitialSN: 0})
}

// events turns what the peer sends into lines such as "DSUB afor/wire/**"
// or "PUSH PUT afor/wire/x payload attachment", answering interests and
// requests addressed to the Go side on the way.
type events struct {
	l       *rawLink
	keys    map[uint16]string // the peer's D_KEYEXPR table
	ours    map[uint16]string // the Go side's D_KEYEXPR table
	frag    []byte
	ch      chan string
	goQuery string // key of the queryable declared by Go, if any
	mu      sync.Mutex
	stop    <-chan struct{} // closed when the test stops listening
}

// emit hands a line to the test unless it has stopped listening.
func (e *events) emit(s string) {
	select {
	case e.ch <- s:
	case <-e.stop:
	}
}

func (e *events) key(w WireExpr) string {
	if w.Scope == 0 {
		return string(w.Suffix)
	}
	if w.Mapping == MappingReceiver {
		if k, ok := e.ours[w.Scope]; ok {
			return k + string(w.Suffix)
		}
		return fmt.Sprintf("<unknown receiver scope %d>%s", w.Scope, w.Suffix)
	}
	return e.keys[w.Scope] + string(w.Suffix)
}

func describePayload(p []byte) string {
	if len(p) == 0 {
		return "-"
	}
	if len(p) < 64 {
		return string(p)
	}
	sum := 0
	for _, c := range p {
		sum += int(c)
	}
	return fmt.Sprintf("len=%d,sum=%d", len(p), sum)
}

func (e *events) network(m NetworkMessage) error {
	if testing.Verbose() {
		e.l.t.Logf("from Rust: %T %+v", m, m)
	}
	switch m := m.(type) {
	case *Declare:
		switch d := m.Body.(type) {
		case *DeclareKeyExpr:
			e.keys[d.ID] = e.key(WireExpr{Scope: d.WireExpr.Scope, Suffix: d.WireExpr.Suffix, Mapping: MappingSender})
			e.emit("DKEY " + e.keys[d.ID])
		case *DeclareSubscriber:
			e.emit("DSUB " + e.key(d.WireExpr))
		case *DeclareQueryable:
			e.emit("DQBL " + e.key(d.WireExpr))
		case *DeclareToken:
			e.emit("DTOKEN " + e.key(d.WireExpr))
		case *DeclareFinal:
			e.emit("DFINAL")
		default:
			e.emit(fmt.Sprintf("DECL %T", d))
		}
	case *Interest:
		e.emit(fmt.Sprintf("INTEREST %d mode %d", m.ID, m.Mode))
		if m.Mode == InterestCurrent || m.Mode == InterestCurrentFuture {
			return e.l.sendNet(&Declare{HasInterestID: true, InterestID: m.ID, Body: &DeclareFinal{}})
		}
	case *Push:
		switch b := m.Body.(type) {
		case *Put:
			att := "-"
			if b.Attachment != nil {
				att = string(b.Attachment)
			}
			e.emit(fmt.Sprintf("PUSH PUT %s %s %s", e.key(m.WireExpr), describePayload(b.Payload), att))
			e.emit(fmt.Sprintf("META-PUSH qos=%#x ts=%v enc=%d;%s", m.EffectiveQoS(), b.HasTimestamp,
				b.Encoding.ID, b.Encoding.Schema))
		case *Del:
			e.emit("PUSH DEL " + e.key(m.WireExpr))
		}
	case *Request:
		key := e.key(m.WireExpr)
		e.emit(fmt.Sprintf("REQUEST %s", key))
		q := &m.Body
		e.emit(fmt.Sprintf("META-REQ target=%d cons=%d params=%s body=%v/%s/%d att=%s", m.Target,
			q.Consolidation, q.Parameters, q.HasBody, q.Body.Payload, q.Body.Encoding.ID, q.Attachment))
		e.mu.Lock()
		goQuery := e.goQuery
		e.mu.Unlock()
		if goQuery != "" && strings.HasPrefix(key, goQuery) {
			reply := &Response{RequestID: m.ID, WireExpr: WireExpr{Suffix: []byte(goQuery)},
				Body: &Reply{Body: &Put{Payload: []byte("qval-from-go"), Encoding: Encoding{ID: 1}}}}
			if err := e.l.sendNet(reply); err != nil {
				return err
			}
		}
		return e.l.sendNet(&ResponseFinal{RequestID: m.ID})
	case *Response:
		switch b := m.Body.(type) {
		case *Reply:
			if p, ok := b.Body.(*Put); ok {
				e.emit(fmt.Sprintf("RESPONSE %d %s %s", m.RequestID, e.key(m.WireExpr), p.Payload))
			}
		case *Err:
			e.emit(fmt.Sprintf("RESPONSEERR %d %s enc=%d", m.RequestID, b.Payload, b.Encoding.ID))
		}
	case *ResponseFinal:
		e.emit(fmt.Sprintf("FINAL %d", m.RequestID))
	default:
		e.emit(fmt.Sprintf("NET %T", m))
	}
	return nil
}

// run reads and decodes batches until the link fails.
func (e *events) run() error {
	d := NewDecoder(Limits{})
	for {
		b, err := e.l.readBatch()
		if err != nil {
			return err
		}
		d.Reset(b)
		for {
			m, err := d.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return fmt.Errorf("decoding batch % x: %w", b, err)
			}
			switch m := m.(type) {
			case *Frame:
				for {
					nm, err := d.NextNetwork()
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						return fmt.Errorf("decoding frame % x: %w", b, err)
					}
					if err := e.network(nm); err != nil {
						return err
					}
				}
			case *Fragment:
				e.frag = append(e.frag, m.Payload...)
				if m.More {
					continue
				}
				whole := e.frag
				e.frag = nil
				for len(whole) > 0 {
					nm, n, err := DecodeNetwork(whole, Limits{MaxPayload: 1 << 20})
					if err != nil {
						return fmt.Errorf("decoding reassembled fragments: %w", err)
					}
					if err := e.network(nm); err != nil {
						return err
					}
					whole = whole[n:]
				}
				e.emit("FRAGMENTED")
			case *KeepAlive:
			case *Close:
				e.emit(fmt.Sprintf("CLOSE %d", m.Reason))
			default:
				e.emit(fmt.Sprintf("TRANSPORT %T", m))
			}
		}
	}
}

// waitLine waits for a line with the given prefix on ch, returning it; the
// lines skipped are returned for diagnostics.
func waitLine(ctx context.Context, ch <-chan string, prefix string, d time.Duration) (string, []string, error) {
	var seen []string
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case s, ok := <-ch:
			if !ok {
				return "", seen, io.EOF
			}
			if strings.HasPrefix(s, prefix) {
				return s, seen, nil
			}
			seen = append(seen, s)
		case <-timer.C:
			return "", seen, fmt.Errorf("no %q within %v", prefix, d)
		case <-ctx.Done():
			return "", seen, ctx.Err()
		}
	}
}

// pyPeer is the Python driver of the Rust implementation.
type pyPeer struct {
	t     *testing.T
	stdin io.WriteCloser
	lines chan string // its stdout, line by line
}

// startPeer runs testdata/zenoh_peer.py with args. The process and its
// reader are stopped by t.Cleanup; stop must be closed before that (it
// unblocks the reader if the test stopped listening).
func startPeer(t *testing.T, ctx context.Context, stop <-chan struct{}, args ...string) *pyPeer {
	py := peers.Python(t, "zenoh")
	cmd := exec.CommandContext(ctx, py, append([]string{"testdata/zenoh_peer.py"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &pyPeer{t: t, stdin: stdin, lines: make(chan string, 64)}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(p.lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			select {
			case p.lines <- sc.Text():
			case <-stop:
			}
		}
	}()
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		wg.Wait()
		if t.Failed() {
			t.Logf("python stderr:\n%s", stderr.String())
		}
	})
	return p
}

// say sends a command line to the driver.
func (p *pyPeer) say(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		p.t.Fatalf("python stdin: %v", err)
	}
}

// startEvents runs the link's reader; the returned function stops it and
// reports its error.
func startEvents(t *testing.T, link *rawLink, stop <-chan struct{}, ours map[uint16]string) (*events, func()) {
	ev := &events{l: link, keys: map[uint16]string{}, ours: ours, ch: make(chan string, 256), stop: stop}
	runErr := make(chan error, 1)
	go func() {
		err := ev.run()
		close(ev.ch)
		runErr <- err
	}()
	return ev, func() {
		link.conn.Close()
		if err := <-runErr; err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
			t.Errorf("reader: %v", err)
		}
	}
}

func expecter(t *testing.T, ctx context.Context) func(<-chan string, string) string {
	return func(ch <-chan string, prefix string) string {
		t.Helper()
		s, seen, err := waitLine(ctx, ch, prefix, 10*time.Second)
		if err != nil {
			t.Fatalf("waiting for %q: %v (seen %q)", prefix, err, seen)
		}
		return s
	}
}

// TestInteropRustPeer drives the Rust Zenoh implementation (a peer opened by
// the eclipse-zenoh Python package, connecting to us) over TCP with
// messages built and parsed only by this package.
func TestInteropRustPeer(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	stop := make(chan struct{}) // unblocks the helper goroutines at the end
	peer := startPeer(t, ctx, stop, "connect", fmt.Sprint(ln.Addr().(*net.TCPAddr).Port))
	pyLines, pySay := peer.lines, peer.say

	ln.(*net.TCPListener).SetDeadline(time.Now().Add(20 * time.Second))
	conn, err := ln.Accept()
	if err != nil {
		close(stop)
		t.Fatalf("accept: %v", err)
	}
	defer conn.Close()
	link := &rawLink{t: t, conn: conn, br: bufio.NewReader(conn)}
	zid, _ := NewZenohID([]byte("afor-wire-test"))
	syn, err := link.handshake(zid)
	if err != nil {
		close(stop)
		t.Fatalf("handshake: %v", err)
	}
	t.Logf("Rust INIT syn: whatami %v zid %v resolution %#x batch %d patch %d exts %+v",
		syn.WhatAmI, syn.ZID, syn.Resolution, syn.BatchSize, syn.Patch, syn.Exts)

	ev, stopEvents := startEvents(t, link, stop, map[uint16]string{5: "afor/wire"})
	defer stopEvents()
	defer close(stop)
	expect := expecter(t, ctx)

	expect(pyLines, "READY")
	expect(ev.ch, "DQBL afor/wire/pyq")

	// Go -> Rust: PUT with attachment, DEL.
	if err := link.sendNet(&Push{WireExpr: WireExpr{Suffix: []byte("afor/wire/from_go")},
		Body: &Put{Payload: []byte("hello-py"), Attachment: []byte("att-go"), Encoding: Encoding{ID: 1}}}); err != nil {
		t.Fatal(err)
	}
	if s := expect(pyLines, "SUB"); s != "SUB PUT afor/wire/from_go hello-py att-go" {
		t.Errorf("python got %q", s)
	}
	// A declared key expression, then a PUSH scoped by it.
	if err := link.sendNet(
		&Declare{Body: &DeclareKeyExpr{ID: 5, WireExpr: WireExpr{Suffix: []byte("afor/wire")}}},
		&Push{WireExpr: WireExpr{Scope: 5, Suffix: []byte("/scoped"), Mapping: MappingSender},
			Body: &Del{}}); err != nil {
		t.Fatal(err)
	}
	if s := expect(pyLines, "SUB"); s != "SUB DELETE afor/wire/scoped - -" {
		t.Errorf("python got %q", s)
	}
	// A PUT too large for one batch, sent as FRAGMENTs.
	big := make([]byte, 150000)
	sum := 0
	for i := range big {
		big[i] = byte(i % 251)
		sum += int(big[i])
	}
	if err := link.sendFragmented(&Push{WireExpr: WireExpr{Suffix: []byte("afor/wire/big")},
		Body: &Put{Payload: big}}, 60000, syn.Patch >= 1); err != nil {
		t.Fatal(err)
	}
	if s, want := expect(pyLines, "SUB"), fmt.Sprintf("SUB PUT afor/wire/big len=%d,sum=%d -", len(big), sum); s != want {
		t.Errorf("python got %q, want %q", s, want)
	}

	// Go queries the Rust queryable.
	if err := link.sendNet(&Request{ID: 7, WireExpr: WireExpr{Suffix: []byte("afor/wire/pyq")},
		Timeout: 5 * time.Second, Body: Query{Consolidation: ConsolidationNone, Parameters: []byte("a=1")}}); err != nil {
		t.Fatal(err)
	}
	expect(pyLines, "QUERY afor/wire/pyq?a=1")
	if s := expect(ev.ch, "RESPONSE"); s != "RESPONSE 7 afor/wire/pyq qval-from-py" {
		t.Errorf("got %q", s)
	}
	expect(ev.ch, "FINAL 7")

	// Rust -> Go: declare a subscriber, then let Python publish until it
	// arrives (the declaration and the put travel on different Rust tasks).
	if err := link.sendNet(&Declare{Body: &DeclareSubscriber{ID: 1, WireExpr: WireExpr{Suffix: []byte("afor/**")}}}); err != nil {
		t.Fatal(err)
	}
	got := ""
	for i := 0; i < 20 && got == ""; i++ {
		pySay("put afor/wire/from_py hello-go")
		expect(pyLines, "SUB PUT afor/wire/from_py") // its own subscriber
		if s, _, err := waitLine(ctx, ev.ch, "PUSH", 500*time.Millisecond); err == nil {
			got = s
		}
	}
	if got != "PUSH PUT afor/wire/from_py hello-go att" {
		t.Errorf("Go got %q", got)
	}
	pySay("putbig afor/wire/big_from_py 100000")
	s := expect(ev.ch, "PUSH PUT afor/wire/big_from_py")
	bigSum := 0
	for i := range 100000 {
		bigSum += i % 251
	}
	if want := fmt.Sprintf("PUSH PUT afor/wire/big_from_py len=100000,sum=%d -", bigSum); s != want {
		t.Errorf("got %q, want %q", s, want)
	}
	pySay("delete afor/wire/from_py")
	expect(ev.ch, "PUSH DEL afor/wire/from_py")

	// Rust queries the Go queryable.
	ev.mu.Lock()
	ev.goQuery = "afor/wire/goq"
	ev.mu.Unlock()
	if err := link.sendNet(&Declare{Body: &DeclareQueryable{ID: 2, Complete: true,
		WireExpr: WireExpr{Suffix: []byte("afor/wire/goq")}}}); err != nil {
		t.Fatal(err)
	}
	got = ""
	for i := 0; i < 20 && got == ""; i++ {
		pySay("get afor/wire/goq")
		for {
			s := expect(pyLines, "")
			if strings.HasPrefix(s, "REPLY") {
				got = s
			}
			if s == "GETDONE" {
				break
			}
		}
	}
	if got != "REPLY afor/wire/goq qval-from-go" {
		t.Errorf("python got %q", got)
	}

	// Undeclarations, then Python closes its session: Rust sends CLOSE.
	if err := link.sendNet(&Declare{Body: &UndeclareSubscriber{ID: 1}},
		&Declare{Body: &UndeclareQueryable{ID: 2, HasWireExpr: true, WireExpr: WireExpr{Suffix: []byte("afor/wire/goq")}}}); err != nil {
		t.Fatal(err)
	}
	if err := link.send(&KeepAlive{}); err != nil {
		t.Fatal(err)
	}
	pySay("quit")
	expect(ev.ch, "CLOSE")
}

// TestInteropRustListener dials a listening Rust peer: our INIT syn and
// OPEN syn, its INIT ack (with its opaque cookie) and OPEN ack, then a
// publication each way and a CLOSE from Go.
func TestInteropRustListener(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	stop := make(chan struct{})
	peer := startPeer(t, ctx, stop, "listen")
	expect := expecter(t, ctx)
	var port int
	if _, err := fmt.Sscanf(expect(peer.lines, "LISTEN"), "LISTEN %d", &port); err != nil {
		close(stop)
		t.Fatal(err)
	}
	expect(peer.lines, "READY")

	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		close(stop)
		t.Fatal(err)
	}
	defer conn.Close()
	link := &rawLink{t: t, conn: conn, br: bufio.NewReader(conn)}
	zid, _ := NewZenohID([]byte("afor-wire-dialer"))
	handshake := func() error {
		syn := &Init{Version: ProtoVersion, WhatAmI: Peer, ZID: zid, Resolution: DefaultResolution,
			BatchSize: DefaultBatchSize, Patch: 1}
		if err := link.send(syn); err != nil {
			return err
		}
		b, err := link.readBatch()
		if err != nil {
			return err
		}
		m, _, err := DecodeTransport(b, Limits{})
		if err != nil {
			return fmt.Errorf("decoding INIT ack % x: %w", b, err)
		}
		ack, ok := m.(*Init)
		if !ok || !ack.Ack || ack.Version != ProtoVersion || ack.WhatAmI != Peer || len(ack.Cookie) == 0 {
			return fmt.Errorf("unexpected INIT ack %#v", m)
		}
		t.Logf("Rust INIT ack: zid %v resolution %#x batch %d patch %d cookie %d bytes exts %+v",
			ack.ZID, ack.Resolution, ack.BatchSize, ack.Patch, len(ack.Cookie), ack.Exts)
		if err := link.send(&Open{Lease: 10 * time.Second, InitialSN: 1000, Cookie: ack.Cookie}); err != nil {
			return err
		}
		if b, err = link.readBatch(); err != nil {
			return err
		}
		if m, _, err = DecodeTransport(b, Limits{}); err != nil {
			return fmt.Errorf("decoding OPEN ack % x: %w", b, err)
		}
		if o, ok := m.(*Open); !ok || !o.Ack || o.Lease <= 0 {
			return fmt.Errorf("unexpected OPEN ack %#v", m)
		}
		return nil
	}
	if err := handshake(); err != nil {
		close(stop)
		t.Fatalf("handshake: %v", err)
	}
	link.sn = 1000

	ev, stopEvents := startEvents(t, link, stop, map[uint16]string{})
	defer stopEvents()
	defer close(stop)

	expect(ev.ch, "DSUB afor/wire/**")
	if err := link.sendNet(&Push{WireExpr: WireExpr{Suffix: []byte("afor/wire/dialed")},
		Body: &Put{Payload: []byte("from-dialer")}}); err != nil {
		t.Fatal(err)
	}
	if s := expect(peer.lines, "SUB"); s != "SUB PUT afor/wire/dialed from-dialer -" {
		t.Errorf("python got %q", s)
	}
	if err := link.sendNet(&Declare{Body: &DeclareSubscriber{ID: 1, WireExpr: WireExpr{Suffix: []byte("afor/wire/**")}}}); err != nil {
		t.Fatal(err)
	}
	got := ""
	for i := 0; i < 20 && got == ""; i++ {
		peer.say("put afor/wire/to_dialer v")
		expect(peer.lines, "SUB PUT afor/wire/to_dialer")
		if s, _, err := waitLine(ctx, ev.ch, "PUSH", 500*time.Millisecond); err == nil {
			got = s
		}
	}
	if got != "PUSH PUT afor/wire/to_dialer v att" {
		t.Errorf("Go got %q", got)
	}
	if err := link.send(&Close{Session: true, Reason: CloseGeneric}); err != nil {
		t.Fatal(err)
	}
	// Rust drops the link after a CLOSE: the reader sees the end of stream.
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	for range ev.ch {
	}
}

// TestInteropRustRichMessages exchanges messages carrying the optional
// fields (timestamps, encodings with schema, source info, attachments, QoS,
// query bodies, targets, error replies, liveliness tokens) with Rust.
func TestInteropRustRichMessages(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	stop := make(chan struct{})
	peer := startPeer(t, ctx, stop, "connect", fmt.Sprint(ln.Addr().(*net.TCPAddr).Port))
	ln.(*net.TCPListener).SetDeadline(time.Now().Add(20 * time.Second))
	conn, err := ln.Accept()
	if err != nil {
		close(stop)
		t.Fatalf("accept: %v", err)
	}
	defer conn.Close()
	link := &rawLink{t: t, conn: conn, br: bufio.NewReader(conn)}
	zid, _ := NewZenohID([]byte{0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99})
	if _, err := link.handshake(zid); err != nil {
		close(stop)
		t.Fatalf("handshake: %v", err)
	}
	ev, stopEvents := startEvents(t, link, stop, map[uint16]string{})
	defer stopEvents()
	defer close(stop)
	expect := expecter(t, ctx)
	ev.mu.Lock()
	ev.goQuery = "afor/wire/goq"
	ev.mu.Unlock()
	if err := link.sendNet(
		&Declare{Body: &DeclareSubscriber{ID: 1, WireExpr: WireExpr{Suffix: []byte("afor/**")}}},
		&Declare{Body: &DeclareQueryable{ID: 2, Complete: true, Distance: 1,
			WireExpr: WireExpr{Suffix: []byte("afor/wire/goq")}}}); err != nil {
		t.Fatal(err)
	}
	expect(peer.lines, "READY")
	expect(ev.ch, "DQBL afor/wire/pyerr")

	// Go -> Rust: every optional field of PUSH and PUT.
	push := &Push{WireExpr: WireExpr{Suffix: []byte("afor/wire/rich")},
		NetworkExts: NetworkExts{HasQoS: true, QoS: NewQoS(PriorityDataHigh, true, true)},
		Body: &Put{HasTimestamp: true, Timestamp: Timestamp{Time: 0x1234567890abcdef, ID: zid},
			Encoding:      Encoding{ID: 4, Schema: []byte("charset=utf-8")},
			HasSourceInfo: true, SourceInfo: SourceInfo{ID: zid, EntityID: 3, SN: 9},
			Attachment: []byte("att-go"), Payload: []byte("v")}}
	if err := link.sendNet(push); err != nil {
		t.Fatal(err)
	}
	if s := expect(peer.lines, "SUB"); s != "SUB PUT afor/wire/rich v att-go" {
		t.Errorf("python got %q", s)
	}
	if s, want := expect(peer.lines, "META"), "META enc=text/plain;charset=utf-8 ts=1 si="+zid.String()+":3:9"; s != want {
		t.Errorf("python got %q, want %q", s, want)
	}

	// Rust -> Go: a PUT with every option Python offers.
	peer.say("putfull afor/wire/rich_from_py w")
	expect(peer.lines, "SUB PUT afor/wire/rich_from_py")
	if s := expect(ev.ch, "PUSH"); s != "PUSH PUT afor/wire/rich_from_py w att" {
		t.Errorf("Go got %q", s)
	}
	want := fmt.Sprintf("META-PUSH qos=%#x ts=true enc=4;charset=utf-8", NewQoS(PriorityInteractiveHigh, true, true))
	if s := expect(ev.ch, "META-PUSH"); s != want {
		t.Errorf("Go got %q, want %q", s, want)
	}

	// Rust queries Go with a body, an attachment, a target and a
	// consolidation mode.
	peer.say("getfull afor/wire/goq?x=1")
	expect(ev.ch, "REQUEST afor/wire/goq")
	if s, want := expect(ev.ch, "META-REQ"), "META-REQ target=1 cons=3 params=x=1 body=true/qbody/5 att=qatt"; s != want {
		t.Errorf("Go got %q, want %q", s, want)
	}
	if s := expect(peer.lines, "REPLY"); s != "REPLY afor/wire/goq qval-from-go" {
		t.Errorf("python got %q", s)
	}
	expect(peer.lines, "GETDONE")

	// Go queries an erroring queryable.
	if err := link.sendNet(&Request{ID: 9, WireExpr: WireExpr{Suffix: []byte("afor/wire/pyerr")},
		Target: TargetAll, Budget: 3, Timeout: 3 * time.Second,
		Body: Query{HasBody: true, Body: QueryBody{Encoding: Encoding{ID: 5}, Payload: []byte("{}")},
			Attachment: []byte("a")}}); err != nil {
		t.Fatal(err)
	}
	if s := expect(ev.ch, "RESPONSEERR"); s != "RESPONSEERR 9 boom enc=4" {
		t.Errorf("Go got %q", s)
	}
	expect(ev.ch, "FINAL 9")

	// Liveliness: an interest in tokens, then a token declared by Python.
	if err := link.sendNet(&Interest{ID: 11, Mode: InterestCurrentFuture,
		Options:  InterestKeyExprs | InterestTokens | InterestRestricted,
		WireExpr: WireExpr{Suffix: []byte("afor/wire/**")}}); err != nil {
		t.Fatal(err)
	}
	expect(ev.ch, "DFINAL")
	peer.say("token afor/wire/tok")
	expect(ev.ch, "DTOKEN afor/wire/tok")
	peer.say("quit")
	expect(ev.ch, "CLOSE")
}
