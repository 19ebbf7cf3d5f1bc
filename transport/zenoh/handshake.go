package zenoh

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"time"
)

// handshakeTimeout bounds an INIT/OPEN exchange.
const handshakeTimeout = 10 * time.Second

// handshake runs INIT/OPEN on conn, as the connecting side when dialer is
// true, and returns the link ready to run (not yet in the session).
func (s *Session) handshake(ctx context.Context, conn net.Conn, dialer bool) (*link, error) {
	deadline := time.Now().Add(handshakeTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	_ = conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	br := bufio.NewReaderSize(conn, 65536+2)
	buf := make([]byte, 65535)
	l := &link{
		s:            s,
		conn:         conn,
		raw:          newDirectWriter(conn),
		br:           br,
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
	ours := initMsg{
		version: protoVersion,
		whatami: s.whatami(),
		zid:     s.cfg.ZID,
		sizes:   true,
		res:     defaultResolution,
		batch:   uint16(s.cfg.BatchSize),
		patch:   1,
	}
	var theirs initMsg
	var err error
	if dialer {
		if err = writeBatch(conn, appendInit(nil, &ours)); err != nil {
			return nil, fmt.Errorf("%w: send INIT: %w", ErrHandshake, err)
		}
		b, err := readBatch(br, buf)
		if err != nil {
			return nil, fmt.Errorf("%w: read INIT ack: %w", ErrHandshake, err)
		}
		if theirs, err = decodeInit(b); err != nil {
			return nil, fmt.Errorf("%w: decode INIT ack: %w", ErrHandshake, err)
		}
		if !theirs.ack {
			return nil, fmt.Errorf("%w: got INIT syn, want INIT ack", ErrHandshake)
		}
		if theirs.res&3 > ours.res&3 || theirs.res>>2&3 > ours.res>>2&3 {
			return nil, fmt.Errorf("%w: INIT ack raised the resolution %#x", ErrHandshake, theirs.res)
		}
		if err := l.setParams(s, &theirs, theirs.res, min(int(theirs.batch), s.cfg.BatchSize), min(theirs.patch, 1)); err != nil {
			return nil, err
		}
		if err := s.checkRemote(conn, &theirs); err != nil {
			return nil, err
		}
		l.txSN = rand.Uint64() & l.snMask
		open := openMsg{lease: s.cfg.Lease, initialSN: l.txSN, cookie: theirs.cookie}
		if err = writeBatch(conn, appendOpen(nil, &open)); err != nil {
			return nil, fmt.Errorf("%w: send OPEN: %w", ErrHandshake, err)
		}
		b, err = readBatch(br, buf)
		if err != nil {
			return nil, fmt.Errorf("%w: read OPEN ack: %w", ErrHandshake, err)
		}
		ack, err := decodeOpen(b)
		if err != nil {
			return nil, fmt.Errorf("%w: decode OPEN ack: %w", ErrHandshake, err)
		}
		if !ack.ack {
			return nil, fmt.Errorf("%w: got OPEN syn, want OPEN ack", ErrHandshake)
		}
		l.setLease(s, ack.lease)
		l.rxSN = ack.initialSN & l.snMask
	} else {
		b, err := readBatch(br, buf)
		if err != nil {
			return nil, fmt.Errorf("%w: read INIT: %w", ErrHandshake, err)
		}
		if theirs, err = decodeInit(b); err != nil {
			return nil, fmt.Errorf("%w: decode INIT: %w", ErrHandshake, err)
		}
		if theirs.ack {
			return nil, fmt.Errorf("%w: got INIT ack, want INIT syn", ErrHandshake)
		}
		if err := s.checkRemote(conn, &theirs); err != nil {
			return nil, err
		}
		res := min(theirs.res&3, ours.res&3) | min(theirs.res>>2&3, ours.res>>2&3)<<2
		ack := ours
		ack.ack = true
		ack.res = res
		ack.batch = min(theirs.batch, ours.batch)
		ack.patch = min(theirs.patch, 1)
		if err := l.setParams(s, &theirs, res, int(ack.batch), ack.patch); err != nil {
			return nil, err
		}
		if err = writeBatch(conn, appendInit(nil, &ack)); err != nil {
			return nil, fmt.Errorf("%w: send INIT ack: %w", ErrHandshake, err)
		}
		b, err = readBatch(br, buf)
		if err != nil {
			return nil, fmt.Errorf("%w: read OPEN: %w", ErrHandshake, err)
		}
		syn, err := decodeOpen(b)
		if err != nil {
			return nil, fmt.Errorf("%w: decode OPEN: %w", ErrHandshake, err)
		}
		if syn.ack {
			return nil, fmt.Errorf("%w: got OPEN ack, want OPEN syn", ErrHandshake)
		}
		l.setLease(s, syn.lease)
		l.rxSN = syn.initialSN & l.snMask
		l.txSN = rand.Uint64() & l.snMask
		reply := openMsg{ack: true, lease: s.cfg.Lease, initialSN: l.txSN}
		if err = writeBatch(conn, appendOpen(nil, &reply)); err != nil {
			return nil, fmt.Errorf("%w: send OPEN ack: %w", ErrHandshake, err)
		}
	}
	_ = conn.SetDeadline(time.Time{})
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return l, nil
}

// setParams records what INIT negotiated.
func (l *link) setParams(s *Session, theirs *initMsg, res byte, batch int, patch uint64) error {
	if batch < MinBatchSize {
		return fmt.Errorf("%w: batch size %d below %d", ErrHandshake, batch, MinBatchSize)
	}
	l.remoteZID = bytes.Clone(theirs.zid)
	l.whatami = theirs.whatami
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
	l.peerLease = lease
	l.keepAlive = min(s.cfg.KeepAlive, lease/4)
	if l.keepAlive <= 0 {
		l.keepAlive = time.Millisecond
	}
}

// checkRemote rejects unsupported versions and connections to ourselves,
// telling the remote why.
func (s *Session) checkRemote(conn net.Conn, m *initMsg) error {
	if m.version != protoVersion {
		_, _ = conn.Write(appendClose(nil, closeUnsupported, true))
		return fmt.Errorf("%w: protocol version %#x, want %#x", ErrHandshake, m.version, protoVersion)
	}
	if bytes.Equal(m.zid, s.cfg.ZID) {
		_, _ = conn.Write(appendClose(nil, closeConnToSelf, true))
		return fmt.Errorf("%w: connection to self", ErrHandshake)
	}
	if m.whatami == 3 {
		return fmt.Errorf("%w: invalid whatami", ErrHandshake)
	}
	return nil
}
