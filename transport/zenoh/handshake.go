package zenoh

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// handshakeTimeout bounds an INIT/OPEN exchange.
const handshakeTimeout = 10 * time.Second

// handshake runs INIT/OPEN on conn, as the connecting side when dialer is
// true, and returns the link ready to run (not yet in the session). An
// inbound handshake, admitted as p, that lasts longer than handshakeGrace
// goes on only if it may stall (see admission.go).
func (s *Session) handshake(ctx context.Context, conn net.Conn, dialer bool, p *pendingHandshake) (*link, error) {
	start := time.Now()
	deadline := start.Add(handshakeTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	hr := handshakeReader{r: conn, budget: s.cfg.Limits.MaxHandshakeBytes}
	if p != nil && start.Add(handshakeGrace).Before(deadline) {
		_ = conn.SetDeadline(start.Add(handshakeGrace))
		hr.stall = func() error {
			if limit, ok := s.stalled(p); !ok {
				return &limitError{limit: limit, max: s.stalledLimit(limit), what: "a handshake that stalled"}
			}
			_ = conn.SetDeadline(deadline)
			return ctx.Err() // a close that set the deadline before us
		}
	} else {
		_ = conn.SetDeadline(deadline)
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if tc, ok := conn.(*tlsConn); ok && p != nil {
		if err := s.acceptTLS(ctx, tc, p, start, deadline); err != nil {
			return nil, err
		}
	}

	// A small read buffer: the bytes of FRAGMENTs are read past it, straight
	// into the reassembly buffer (see link.readNext); bigger reads of
	// whole batches also bypass it.
	rx := newSpillReader(conn)
	br := bufio.NewReaderSize(rx, linkReadBuffer)
	// The handshake reads the remote's messages straight from conn (br
	// stays empty for the link), within the handshake's byte budget.
	l := &link{
		s:            s,
		conn:         conn,
		ip:           sourceAddr(conn),
		raw:          newDirectWriter(conn),
		born:         time.Now(),
		gap:          directGap,
		br:           br,
		rx:           rx,
		kick:         make(chan struct{}, 1),
		space:        make(chan struct{}, 1),
		done:         make(chan struct{}),
		finished:     make(chan struct{}),
		aliases:      make(map[uint16]string),
		remoteSubs:   make(map[uint32]uint32),
		remoteQabls:  make(map[uint32]uint32),
		remoteTokens: make(map[uint32]uint32),
		reason:       -1,
		dialed:       dialer,
	}
	// The link's reader reads through wake (reassembly.go).
	rx.conn, rx.wake = wakeReader{l}, l.wake
	zid, err := wire.NewZenohID(s.cfg.ZID)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrHandshake, err)
	}
	ours := wire.Init{
		Version:    wire.ProtoVersion,
		WhatAmI:    s.whatami(),
		ZID:        zid,
		Resolution: wire.DefaultResolution,
		BatchSize:  uint16(min(s.cfg.BatchSize, linkMTU(conn))),
		Patch:      1,
	}
	auth := s.cfg.auth
	var theirs *wire.Init
	if dialer {
		auth.initSyn(&ours)
		if err = writeMessage(conn, &ours); err != nil {
			return nil, fmt.Errorf("%w: send INIT: %w", ErrHandshake, err)
		}
		b, err := hr.read()
		if err != nil {
			return nil, fmt.Errorf("%w: read INIT ack: %w", ErrHandshake, err)
		}
		if theirs, err = decodeInit(b); err != nil {
			return nil, fmt.Errorf("%w: decode INIT ack: %w", ErrHandshake, err)
		}
		if !theirs.Ack {
			return nil, fmt.Errorf("%w: got INIT syn, want INIT ack", ErrHandshake)
		}
		if theirs.Resolution&3 > ours.Resolution&3 || theirs.Resolution>>2&3 > ours.Resolution>>2&3 {
			return nil, fmt.Errorf("%w: INIT ack raised the resolution %#x", ErrHandshake, theirs.Resolution)
		}
		if err := l.setParams(s, theirs, theirs.Resolution, min(int(theirs.BatchSize), int(ours.BatchSize)), min(theirs.Patch, 1)); err != nil {
			return nil, err
		}
		if err := s.checkRemote(conn, theirs); err != nil {
			return nil, err
		}
		l.txSN = rand.Uint64() & l.snMask
		open := wire.Open{Lease: s.cfg.Lease, InitialSN: l.txSN, Cookie: theirs.Cookie}
		if open.Exts, err = auth.openSyn(theirs); err != nil {
			return nil, err
		}
		if err = writeMessage(conn, &open); err != nil {
			return nil, fmt.Errorf("%w: send OPEN: %w", ErrHandshake, err)
		}
		b, err = hr.read()
		if err != nil {
			return nil, auth.authRefused(fmt.Errorf("%w: read OPEN ack: %w", ErrHandshake, err))
		}
		ack, err := decodeOpen(b)
		if err != nil {
			return nil, auth.authRefused(fmt.Errorf("%w: decode OPEN ack: %w", ErrHandshake, err))
		}
		if !ack.Ack {
			return nil, fmt.Errorf("%w: got OPEN syn, want OPEN ack", ErrHandshake)
		}
		if err := auth.openAck(ack); err != nil {
			return nil, err
		}
		l.setLease(s, ack.Lease)
		l.rxSN[0], l.rxSN[1] = ack.InitialSN&l.snMask, ack.InitialSN&l.snMask
		l.rxStarted = [2]bool{true, true}
	} else {
		b, err := hr.read()
		if err != nil {
			return nil, fmt.Errorf("%w: read INIT: %w", ErrHandshake, err)
		}
		if theirs, err = decodeInit(b); err != nil {
			return nil, fmt.Errorf("%w: decode INIT: %w", ErrHandshake, err)
		}
		if theirs.Ack {
			return nil, fmt.Errorf("%w: got INIT ack, want INIT syn", ErrHandshake)
		}
		if err := s.checkRemote(conn, theirs); err != nil {
			return nil, err
		}
		authExts, nonce, err := auth.initAck(theirs)
		if err != nil {
			return nil, &refusal{reason: wire.CloseInvalid, err: err}
		}
		res := min(theirs.Resolution&3, ours.Resolution&3) | min(theirs.Resolution>>2&3, ours.Resolution>>2&3)<<2
		ack := ours
		ack.Ack = true
		ack.Resolution = res
		ack.BatchSize = min(theirs.BatchSize, ours.BatchSize)
		ack.Patch = min(theirs.Patch, 1)
		ack.Exts = authExts
		if err := l.setParams(s, theirs, res, int(ack.BatchSize), ack.Patch); err != nil {
			return nil, err
		}
		if err = writeMessage(conn, &ack); err != nil {
			return nil, fmt.Errorf("%w: send INIT ack: %w", ErrHandshake, err)
		}
		b, err = hr.read()
		if err != nil {
			return nil, fmt.Errorf("%w: read OPEN: %w", ErrHandshake, err)
		}
		syn, err := decodeOpen(b)
		if err != nil {
			return nil, fmt.Errorf("%w: decode OPEN: %w", ErrHandshake, err)
		}
		if syn.Ack {
			return nil, fmt.Errorf("%w: got OPEN ack, want OPEN syn", ErrHandshake)
		}
		replyExts, err := auth.checkOpen(syn, nonce)
		if err != nil {
			return nil, &refusal{reason: wire.CloseInvalid, err: err}
		}
		l.setLease(s, syn.Lease)
		l.rxSN[0], l.rxSN[1] = syn.InitialSN&l.snMask, syn.InitialSN&l.snMask
		l.rxStarted = [2]bool{true, true}
		if err := s.checkLinkRoom(l); err != nil {
			return nil, err // refused before the remote believes it linked
		}
		l.txSN = rand.Uint64() & l.snMask
		reply := wire.Open{Ack: true, Lease: s.cfg.Lease, InitialSN: l.txSN, Exts: replyExts}
		if err = writeMessage(conn, &reply); err != nil {
			return nil, fmt.Errorf("%w: send OPEN ack: %w", ErrHandshake, err)
		}
	}
	_ = conn.SetDeadline(time.Time{})
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return l, nil
}

// handshakeReader reads the remote's handshake batches straight from a
// connection, within a byte budget (Limits.MaxHandshakeBytes) for the
// whole handshake, so that a remote cannot make a handshake in progress
// hold more. A handshake holds nothing until a batch's length has come.
type handshakeReader struct {
	r      io.Reader
	budget int
	// stall, if set, is called once when a read reaches the deadline: the
	// end of an inbound handshake's grace. The read goes on if it returns
	// nil.
	stall func() error
}

// read reads one length-prefixed batch; a batch beyond what is left of
// the budget is refused with a limitError.
func (h *handshakeReader) read() ([]byte, error) {
	var hdr [wire.BatchLenSize]byte
	if err := h.full(hdr[:]); err != nil {
		return nil, err
	}
	n, _ := wire.BatchLen(hdr[:])
	max := h.budget - wire.BatchLenSize
	h.budget -= wire.BatchLenSize + n
	if h.budget < 0 {
		return nil, &limitError{limit: LimitHandshakeBytes, max: max, what: fmt.Sprintf("a handshake message of %d bytes", n)}
	}
	buf := make([]byte, n)
	if err := h.full(buf); err != nil {
		return nil, err
	}
	return buf, nil
}

// full fills b, going on past the end of the grace if stall allows.
func (h *handshakeReader) full(b []byte) error {
	for len(b) > 0 {
		n, err := h.r.Read(b)
		b = b[n:]
		switch {
		case err == nil, len(b) == 0:
		case h.stall != nil && errors.Is(err, os.ErrDeadlineExceeded):
			stall := h.stall
			h.stall = nil
			if err := stall(); err != nil {
				return err
			}
		case err == io.EOF:
			return io.ErrUnexpectedEOF
		default:
			return err
		}
	}
	return nil
}

// writeMessage writes one handshake message as a batch.
func writeMessage(conn net.Conn, m wire.TransportMessage) error {
	b, err := appendBatch(nil, m)
	if err != nil {
		return err
	}
	_, err = conn.Write(b)
	return err
}

// decodeInit decodes a handshake batch that must hold an INIT. Its slices
// alias b.
func decodeInit(b []byte) (*wire.Init, error) {
	m, err := decodeHandshake(b)
	if err != nil {
		return nil, err
	}
	init, ok := m.(*wire.Init)
	if c, closed := m.(*wire.Close); closed {
		return nil, closedInHandshake(c)
	}
	if !ok {
		return nil, fmt.Errorf("%w: expected INIT, got %T", ErrHandshake, m)
	}
	return init, nil
}

// decodeOpen decodes a handshake batch that must hold an OPEN. Its slices
// alias b.
func decodeOpen(b []byte) (*wire.Open, error) {
	m, err := decodeHandshake(b)
	if err != nil {
		return nil, err
	}
	open, ok := m.(*wire.Open)
	if c, closed := m.(*wire.Close); closed {
		return nil, closedInHandshake(c)
	}
	if !ok {
		return nil, fmt.Errorf("%w: expected OPEN, got %T", ErrHandshake, m)
	}
	return open, nil
}

// decodeHandshake decodes the first transport message of a handshake
// batch; what follows it is ignored.
func decodeHandshake(b []byte) (wire.TransportMessage, error) {
	if len(b) > 0 && wire.HeaderID(b[0]) == wire.IDFrame {
		// Not a handshake message: do not decode a whole frame.
		return nil, fmt.Errorf("%w: expected INIT or OPEN, got FRAME", ErrHandshake)
	}
	m, _, err := wire.DecodeTransport(b, wire.Limits{})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrProtocol, err)
	}
	return m, nil
}

// setParams records what INIT negotiated.
func (l *link) setParams(s *Session, theirs *wire.Init, res wire.Resolution, batch int, patch uint64) error {
	if batch < MinBatchSize {
		return fmt.Errorf("%w: batch size %d below %d", ErrHandshake, batch, MinBatchSize)
	}
	l.remoteZID = bytes.Clone(theirs.ZID.Slice())
	l.whatami = theirs.WhatAmI
	l.batch = batch
	l.patch = patch
	// As in the reference implementation, an N-bit resolution keeps the SN
	// within the bits its zint encoding fits in: 7, 14, 28 or 63 bits.
	l.snMask = [4]uint64{1<<7 - 1, 1<<14 - 1, 1<<28 - 1, 1<<63 - 1}[res&3]
	l.log = s.log.With("remote", fmt.Sprintf("%x", l.remoteZID))
	return nil
}

// setLease records the remote's lease and picks our keep-alive period.
func (l *link) setLease(s *Session, lease time.Duration) {
	if lease <= 0 {
		lease = DefaultLease
	}
	lease = s.clampLease(lease)
	l.peerLease = lease
	l.keepAlive = min(s.cfg.KeepAlive, lease/4)
	if l.keepAlive <= 0 {
		l.keepAlive = time.Millisecond
	}
}

// checkRemote rejects unsupported versions and connections to ourselves,
// telling the remote why. (The decoder already rejected an invalid role.)
func (s *Session) checkRemote(conn net.Conn, m *wire.Init) error {
	if m.Version != wire.ProtoVersion {
		_, _ = conn.Write(appendClose(nil, wire.CloseUnsupported, true))
		return fmt.Errorf("%w: protocol version %#x, want %#x", ErrHandshake, m.Version, wire.ProtoVersion)
	}
	if bytes.Equal(m.ZID.Slice(), s.cfg.ZID) {
		_, _ = conn.Write(appendClose(nil, wire.CloseConnectionToSelf, true))
		return fmt.Errorf("%w: connection to self", ErrHandshake)
	}
	return nil
}

// refusal is the error of an inbound handshake refused for err (a failed
// authentication): the accepting side counts it and then tells the remote
// with a CLOSE of reason, so that a refused remote never sees its refusal
// before Stats do.
type refusal struct {
	reason byte
	err    error
}

func (r *refusal) Error() string { return r.err.Error() }
func (r *refusal) Unwrap() error { return r.err }

// closedInHandshake is the error of a handshake the remote ended with a
// CLOSE: a refused password or certificate, a full router.
func closedInHandshake(c *wire.Close) error {
	why := map[uint8]string{
		wire.CloseGeneric:          "generic",
		wire.CloseUnsupported:      "unsupported",
		wire.CloseInvalid:          "invalid",
		wire.CloseMaxSessions:      "too many sessions",
		wire.CloseMaxLinks:         "too many links",
		wire.CloseConnectionToSelf: "connection to self",
	}[c.Reason]
	if why == "" {
		why = fmt.Sprintf("reason %#x", c.Reason)
	}
	return fmt.Errorf("the remote closed the link during the handshake (%s)", why)
}

// authRefused turns the failure to get an OPEN ack after sending a user
// and password into ErrAuth: a remote that checks them closes the link
// when they are wrong.
func (a *authState) authRefused(err error) error {
	if a.user == nil || errors.Is(err, ErrProtocol) {
		return err
	}
	return fmt.Errorf("%w (user %q: wrong user or password?): %w", ErrAuth, a.user, err)
}

// acceptTLS runs the TLS handshake of an accepted tls/ link before its
// Zenoh handshake, within tls_handshake_timeout_ms and the handshake's
// deadline. A TLS handshake cannot resume after a read deadline, so its
// grace (see admission.go) is kept by a timer: past it the handshake goes
// on only if it may stall.
func (s *Session) acceptTLS(ctx context.Context, tc *tlsConn, p *pendingHandshake, start, deadline time.Time) error {
	limit := deadline
	if d := start.Add(tc.settings.handshakeTimeout); d.Before(limit) {
		limit = d
	}
	_ = tc.SetDeadline(limit)
	hctx, cancel := context.WithDeadline(ctx, limit)
	defer cancel()
	var refused error
	fired := make(chan struct{})
	graceEnd := start.Add(handshakeGrace)
	grace := time.AfterFunc(time.Until(graceEnd), func() {
		defer close(fired)
		if limit, ok := s.stalled(p); !ok {
			refused = &limitError{limit: limit, max: s.stalledLimit(limit), what: "a TLS handshake that stalled"}
			cancel()
		}
	})
	err := tc.HandshakeContext(hctx)
	if !grace.Stop() {
		<-fired // it ran: refused is set if it refused
	}
	if err != nil {
		if refused != nil {
			return refused
		}
		return fmt.Errorf("%w: TLS handshake: %w", ErrHandshake, err)
	}
	if time.Now().Before(graceEnd) {
		_ = tc.SetDeadline(graceEnd) // the Zenoh handshake's grace goes on
	} else {
		_ = tc.SetDeadline(deadline)
	}
	return nil
}
