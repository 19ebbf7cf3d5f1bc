package zenoh

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// Limits of the transmit path.
const (
	// maxPending is how many queued bytes make a publisher wait for the
	// writer (a single bigger message is still accepted when the queue is
	// empty).
	maxPending = 4 << 20
	// writeChunk is how many framed bytes the writer gathers per Write call.
	writeChunk = 256 << 10
	// frameOverhead bounds a FRAME or FRAGMENT header: header byte, a
	// 64-bit SN as zint, and the First extension.
	frameOverhead = 1 + wire.MaxZintLen + 1
	// keepDefrag is the largest reassembly buffer kept between messages.
	keepDefrag = 8 << 20
	// closeWriteTimeout bounds the final CLOSE write.
	closeWriteTimeout = time.Second
)

// link is one established transport with a remote node: a reader goroutine
// (decoding batches and dispatching to the session) and a writer goroutine
// (draining the queue into batches).
type link struct {
	s         *Session
	conn      net.Conn
	br        *bufio.Reader
	log       *slog.Logger
	remoteZID []byte
	whatami   wire.WhatAmI
	dialed    bool       // we connected (rather than accepted)
	ip        netip.Addr // the remote's address
	batch     int        // negotiated batch size
	snMask    uint64     // 2^resolution - 1
	patch     uint64
	peerLease time.Duration
	keepAlive time.Duration

	// Transmit queue: network messages back to back, with their end offsets.
	mu      sync.Mutex
	pending []byte
	bounds  []int
	kick    chan struct{} // wakes the writer (capacity 1)
	space   chan struct{} // tells a waiting producer the queue drained (capacity 1)

	ctrlQueued int       // bytes queueCtrl added since the writer last took the queue (l.mu)
	tx         txAccount // what it holds to send, as the session counts it (queue_limits.go)

	// Direct writes: a sender that finds the queue empty and no write in
	// progress frames its message and writes it to the socket itself, in
	// one non-blocking system call, instead of waking the writer
	// goroutine. What the socket does not take at once is left in carry,
	// which the writer sends before anything else.
	raw       *directWriter // nil: every write goes through the writer
	wmu       sync.Mutex    // held while writing to conn; guards txSN, dbuf and carry
	txSN      uint64
	dbuf      []byte
	carry     []byte
	sent      atomic.Bool   // a direct write went out since the last keep-alive tick
	born      time.Time     // when the link was made
	gap       time.Duration // directGap (0: write directly whenever possible)
	lastWrite atomic.Int64  // when the last write ended, in ns since born
	rxAtWrite atomic.Uint64 // rxBatches then

	rxBatches atomic.Uint64 // batches read

	// Large messages (large.go): vectored writes of fragments, and the
	// reassembly buffer lent to subscribers.
	dl               sync.Mutex   // orders close's write deadline with writeLarge's
	iov              net.Buffers  // fragment headers and message pieces (l.wmu held)
	iovw             net.Buffers  // the copy of iov that a write consumes
	iovBase          [][]byte     // the storage of iovw
	fhdr             []byte       // the fragment headers iov points into
	loan             payloadLoan  // the reassembled message's buffer, lent (reader only)
	defragHint       int          // size of the last reassembled message (reader only)
	counted          int          // bytes counted in the session's reassembly, in use (reader only)
	kept             keptBuf      // the buffer kept for its next message (Session.defrag.mu)
	rx               *spillReader // the source of br, for vectored reads of fragments (reader only)
	warnedReassembly bool         // the session's reassembly limit was logged (reader only)

	// Receive state, reader only.
	rxSN      [2]uint64 // next SN expected on the best-effort and reliable channels
	rxStarted [2]bool
	reasm     reassembly // the message being reassembled (reassembly.go)
	rxActive  bool       // the last batch held more than a keep-alive
	// The read deadline: the lease's end, or sooner for housekeeping (see
	// link.wake).
	leaseEnd     time.Time
	readDeadline time.Time
	rearm        bool // the deadline must be set again
	aliases      map[uint16]string
	lastScope    uint16
	lastSfx      string
	lastKey      string
	rxRoute      *routeCache
	rxData       dataMsg     // the sample being dispatched
	fwd          []byte      // encoding buffer for forwarded samples
	fwdEnc       pushEncoder // encoder of forwarded samples
	wdec         *wire.Decoder
	// Gossip received: the decoded list (reused) and the sender's psids.
	gossipBuf   []wire.LinkState
	gossipNames map[uint64]string

	aliasBytes int // total length of the keys in aliases (reader only)
	// aliasHeld is what the aliases count in Session.aliasHeld; aliasGone
	// is set once it was taken off it (Session.aliasMu, aliases.go).
	aliasHeld int
	aliasGone bool

	// Guarded by Session.mu.
	remoteSubs   map[uint32]uint32 // remote subscriber id -> session entry id
	remoteQabls  map[uint32]uint32 // remote queryable id -> session queryable id
	remoteTokens map[uint32]uint32 // remote token id -> session token id
	wantsDecl    bool              // push declarations as they happen
	askedSubs    bool              // we sent the remote an interest in its subscribers
	subsKnown    bool              // and it answered (D_FINAL)
	declsKnown   bool              // a peer sent D_FINAL for the initial interest (id 0)
	agg          map[uint32]*aggInterest
	removed      bool
	// The declarations relayed (routing_relay.go): this link's relayed on
	// their own, and the aggregates it gets.
	relayOne int
	relayed  []relayRef
	aggN     [2]int    // aggregated declarations it may see, by kind
	aggID    [2]uint32 // the id of its aggregate, by kind
	aggSent  [2]bool   // whether it was declared to it

	pend linkPending // its requests in progress (guarded by Session.pend.mu)

	once     sync.Once
	done     chan struct{} // closed when the link is told to end
	finished chan struct{} // closed after the link left the session
	reason   int           // CLOSE reason to send, or -1
	limitHit atomic.Bool   // closed for a limit (counted once)
	evicted  bool          // closed to make room for a newcomer (Session.mu)

	// lastActive is when the remote last sent something other than a
	// keep-alive, in Unix ns (0: nothing since the handshake); see
	// admission.go.
	lastActive atomic.Int64
	cause      error
}

// isClient reports whether the remote node is a client.
func (l *link) isClient() bool { return l.whatami == wire.Client }

func (l *link) String() string {
	return fmt.Sprintf("%s(%x)", l.conn.RemoteAddr(), l.remoteZID)
}

// close ends the link once: it records why, lets the writer send CLOSE with
// the given reason (negative: none) and close the connection.
func (l *link) close(reason int, cause error) {
	l.once.Do(func() {
		l.reason, l.cause = reason, cause
		// Unblock a writer stuck on a peer that does not read.
		l.dl.Lock() // no writeLarge resets it after
		_ = l.conn.SetWriteDeadline(time.Now().Add(closeWriteTimeout))
		close(l.done)
		l.dl.Unlock()
	})
}

// queue appends encoded network messages (msg, then more, together) for
// the writer, waiting while the queue is full. It returns errLinkClosed once the link ended.
func (l *link) queue(ctx context.Context, msg []byte, more ...[]byte) error {
	_, err := l.send(ctx, sendBlock, msg, more...)
	return err
}

// sendMode tells link.send how to treat a full queue and a busy link.
type sendMode uint8

const (
	// sendBlock waits for room in a full queue (bounded by ctx) instead of
	// dropping after DropWait.
	sendBlock sendMode = 1 << iota
	// sendExpress writes directly whenever the link is free, even right
	// after another write (see directGap).
	sendExpress
	// sendJoined makes msg and more the pieces of one network message
	// (a PUSH head and its payload, see sendLarge) instead of messages of
	// their own.
	sendJoined
)

// send appends encoded network messages (msg, then more, together) for the
// writer, or writes them itself when the link is idle. When the queue is
// full it waits for room: as long as ctx allows with sendBlock, else for
// DropWait (DropWaitFragments for a message that needs fragments), after
// which it drops the messages and reports false. It
// returns errLinkClosed once the link ended.
func (l *link) send(ctx context.Context, mode sendMode, msg []byte, more ...[]byte) (bool, error) {
	size := len(msg)
	for _, m := range more {
		size += len(m)
	}
	var drop <-chan time.Time
	for {
		l.mu.Lock()
		select {
		case <-l.done:
			l.mu.Unlock()
			return false, errLinkClosed
		default:
		}
		if len(l.pending) == 0 && l.raw != nil && size+frameOverhead <= l.batch-2 &&
			(mode&sendExpress != 0 && l.wmu.TryLock() || mode&sendExpress == 0 && l.directOK()) {
			// Nothing is queued, nobody is writing and nothing was sent
			// just before (or the message is express): send it ourselves.
			l.mu.Unlock()
			err := l.writeDirect(msg, more)
			l.wroteNow()
			l.wmu.Unlock()
			return err == nil, err
		}
		if len(l.pending) == 0 || len(l.pending)+size <= maxPending {
			l.pushAll(mode, msg, more)
			l.mu.Unlock()
			l.kickWriter()
			l.s.checkTx()
			return true, nil
		}
		l.mu.Unlock()
		if mode&sendBlock == 0 && drop == nil {
			wait := DropWait
			if size+frameOverhead > l.batch-2 {
				wait = DropWaitFragments
			}
			t := time.NewTimer(wait)
			defer t.Stop()
			drop = t.C
		}
		select {
		case <-l.space:
		case <-drop:
			return false, nil
		case <-l.done:
			return false, errLinkClosed
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

// directGap is how long after the last write a message must come to be
// written directly, unless something was received since: a stream of
// messages is left to the writer, which batches them (one system call per
// batch rather than per message), while an answer to what came in, or a
// message after a pause (a periodic publication), goes out at once.
const directGap = 5 * time.Microsecond

// directOK reports whether the link is idle: something was received since
// the last write or it ended at least directGap ago, and nobody is
// writing. Then the caller holds l.wmu, and calls wroteNow after its write
// (l.mu held).
func (l *link) directOK() bool {
	idle := l.rxBatches.Load() != l.rxAtWrite.Load() ||
		time.Since(l.born)-time.Duration(l.lastWrite.Load()) >= l.gap
	return idle && l.wmu.TryLock()
}

// wroteNow records the end of a write (l.wmu held).
func (l *link) wroteNow() {
	l.lastWrite.Store(int64(time.Since(l.born)))
	l.rxAtWrite.Store(l.rxBatches.Load())
}

// queueCtrl appends a control message without waiting for space; it is
// used under Session.mu for declarations.
//
// What it queued since the writer last took the queue is bounded by
// Limits.MaxQueuedBytes: a remote that does not read and makes the session
// answer (interests, queries) loses its link instead.
func (l *link) queueCtrl(msg []byte) {
	l.mu.Lock()
	select {
	case <-l.done:
		l.mu.Unlock()
		return // the writer is gone
	default:
	}
	if max := l.s.cfg.Limits.MaxQueuedBytes; l.ctrlQueued+len(msg) > max {
		l.mu.Unlock()
		l.closeForLimit(&limitError{limit: LimitQueuedBytes, max: max, what: "the control messages queued for a remote that does not read"})
		return
	}
	l.ctrlQueued += len(msg)
	l.push(msg)
	l.mu.Unlock()
	l.kickWriter()
	l.s.checkTx()
}

// queueOrDrop appends a relayed sample unless the queue is full, in which
// case the sample is dropped (Zenoh's default congestion control) so that
// a slow link cannot stall the link it is relayed from.
func (l *link) queueOrDrop(msg []byte) bool {
	l.mu.Lock()
	select {
	case <-l.done:
		l.mu.Unlock()
		return false // the writer is gone
	default:
	}
	if len(l.pending) > 0 && len(l.pending)+len(msg) > maxPending {
		l.mu.Unlock()
		return false
	}
	l.push(msg)
	l.mu.Unlock()
	l.kickWriter()
	l.s.checkTx()
	return true
}

// push appends one network message to the transmit queue (l.mu held).
func (l *link) push(msg []byte) {
	l.pending = append(l.pending, msg...)
	l.bounds = append(l.bounds, len(l.pending))
	l.holdTxLocked(len(msg))
}

// writeDirect frames msg and more in one FRAME and writes it without
// blocking; l.wmu is held. A link that fails the write is closed.
func (l *link) writeDirect(msg []byte, more [][]byte) error {
	w := append(l.dbuf[:0], 0, 0)
	w = wire.AppendFrameHeader(w, true, l.txSN)
	l.txSN = (l.txSN + 1) & l.snMask
	w = append(w, msg...)
	for _, m := range more {
		w = append(w, m...)
	}
	_ = wire.PutBatchLen(w, len(w)-wire.BatchLenSize) // the caller checked the size
	l.dbuf = w
	n := 0
	if len(l.carry) == 0 {
		var err error
		if n, err = l.raw.write(w); err != nil {
			l.close(-1, fmt.Errorf("%w: write: %w", errLinkClosed, err))
			return errLinkClosed
		}
		l.sent.Store(true)
	}
	if n < len(w) {
		l.carry = append(l.carry, w[n:]...)
		l.mu.Lock()
		l.holdTxLocked(len(w) - n)
		l.mu.Unlock()
		l.kickWriter()
		l.s.checkTx()
	}
	return nil
}

// kickWriter wakes the writer goroutine.
func (l *link) kickWriter() {
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

// flushCarry writes what a direct write left behind; l.wmu is held.
func (l *link) flushCarry() error {
	if len(l.carry) == 0 {
		return nil
	}
	_, err := l.conn.Write(l.carry)
	l.freeTx(len(l.carry))
	l.carry = l.carry[:0]
	return err
}

// writeLoop drains the queue into batches until the link ends, sending
// KEEP_ALIVE when nothing else went out for a keep-alive period.
func (l *link) writeLoop() {
	defer l.s.wg.Done()
	ticker := time.NewTicker(l.keepAlive)
	defer ticker.Stop()
	var (
		spare   []byte
		spareB  []int
		wbuf    []byte // grows with the first writes: an idle link holds little
		wrote   bool
		lastErr error
	)
	for lastErr == nil {
		select {
		case <-l.kick:
		case <-ticker.C:
			l.wmu.Lock()
			if lastErr = l.flushCarry(); lastErr == nil && !wrote && !l.sent.Load() {
				wbuf, _ = appendBatch(wbuf[:0], &wire.KeepAlive{})
				_, lastErr = l.conn.Write(wbuf)
			}
			l.wmu.Unlock()
			wrote = false
			l.sent.Store(false)
			continue
		case <-l.done:
			lastErr = errLinkClosed
			l.wmu.Lock()
			if l.reason == wire.CloseGeneric {
				// A graceful close still sends what was queued before it
				// (bounded by the write deadline set by close).
				l.mu.Lock()
				msgs, bounds := l.pending, l.bounds
				l.pending, l.bounds = nil, nil
				l.mu.Unlock()
				if err := l.flushCarry(); err == nil && len(bounds) > 0 {
					wbuf, _ = l.writeMessages(wbuf[:0], msgs, bounds)
				}
				l.freeTx(len(msgs))
			}
			l.wmu.Unlock()
			continue
		}
		l.wmu.Lock()
		if lastErr = l.flushCarry(); lastErr != nil {
			l.wmu.Unlock()
			break
		}
		l.mu.Lock()
		msgs, bounds := l.pending, l.bounds
		l.pending, l.bounds = spare[:0], spareB[:0]
		l.ctrlQueued = 0
		l.mu.Unlock()
		select {
		case l.space <- struct{}{}:
		default:
		}
		if len(bounds) == 0 {
			l.wmu.Unlock()
			spare, spareB = msgs, bounds
			continue
		}
		wbuf, lastErr = l.writeMessages(wbuf[:0], msgs, bounds)
		l.wroteNow()
		l.wmu.Unlock()
		l.freeTx(len(msgs))
		spare, spareB = msgs, bounds
		if cap(spare) > 2*maxPending {
			spare, spareB = nil, nil // do not pin the memory of a huge message
		}
		wrote = true
	}
	select {
	case <-l.done:
	default:
		l.close(-1, fmt.Errorf("%w: write: %w", errLinkClosed, lastErr))
	}
	l.wmu.Lock()
	if l.reason >= 0 {
		_, _ = l.conn.Write(appendClose(wbuf[:0], byte(l.reason), l.reason == wire.CloseGeneric))
	}
	_ = l.conn.Close()
	l.releaseTx()
	// Route caches elsewhere may keep the link itself a while (a table
	// snapshot, a destination list): not what it held.
	l.dbuf, l.carry, l.fhdr, l.iov, l.iovw, l.iovBase = nil, nil, nil, nil, nil, nil
	l.wmu.Unlock()
	l.mu.Lock()
	l.pending, l.bounds = nil, nil
	l.mu.Unlock()
}

// releaseReader gives up what the reader holds when the link ends: its
// reassembly buffer, its aliases and its caches. Route caches elsewhere
// may keep the link itself a while (a table snapshot, a destination
// list), not what it held.
func (l *link) releaseReader() {
	l.releaseDefrag()
	l.releaseAliases()
	l.aliases, l.lastKey, l.lastSfx = nil, "", ""
	l.rxRoute, l.fwd, l.wdec, l.gossipBuf, l.gossipNames = nil, nil, nil, nil, nil
	l.rxData = dataMsg{}
}

// writeMessages frames msgs (split at bounds) into batches and writes them.
func (l *link) writeMessages(w []byte, msgs []byte, bounds []int) ([]byte, error) {
	start := -1 // offset in w of the open frame's length prefix, or -1
	prev := 0
	// On stream links the batch size counts the 2-byte length prefix.
	budget := l.batch - 2
	for _, end := range bounds {
		m := msgs[prev:end]
		prev = end
		if start >= 0 && len(w)-start-2+len(m) > budget {
			_ = wire.PutBatchLen(w[start:], len(w)-start-2)
			start = -1
			if len(w) >= writeChunk {
				if _, err := l.conn.Write(w); err != nil {
					return w, err
				}
				w = w[:0]
			}
		}
		if start < 0 && len(m)+frameOverhead > budget {
			var err error
			if w, err = l.writeFragments(w, m); err != nil {
				return w, err
			}
			continue
		}
		if start < 0 {
			start = len(w)
			w = append(w, 0, 0)
			w = wire.AppendFrameHeader(w, true, l.txSN)
			l.txSN = (l.txSN + 1) & l.snMask
		}
		w = append(w, m...)
	}
	if start >= 0 {
		_ = wire.PutBatchLen(w[start:], len(w)-start-2)
	}
	_, err := l.conn.Write(w)
	return w[:0], err
}

// writeFragments sends one message too big for a batch as FRAGMENTs:
// what w holds first, then the fragments with a vectored write, their
// bytes straight from m (see buildFragments).
func (l *link) writeFragments(w []byte, m []byte) ([]byte, error) {
	if len(w) > 0 {
		if _, err := l.conn.Write(w); err != nil {
			return w, err
		}
		w = w[:0]
	}
	l.buildFragments(m, nil)
	_, err := l.writeIOV()
	clear(l.iov)
	return w, err
}

// readBatch reads one length-prefixed batch into buf.
func readBatch(br *bufio.Reader, buf []byte) ([]byte, error) {
	if _, err := io.ReadFull(br, buf[:wire.BatchLenSize]); err != nil {
		return nil, err
	}
	n, _ := wire.BatchLen(buf)
	if n > len(buf) {
		return nil, fmt.Errorf("%w: batch of %d bytes", ErrTooLarge, n)
	}
	if _, err := io.ReadFull(br, buf[:n]); err != nil {
		return nil, err
	}
	return buf[:n], nil
}

// readLoop reads batches until the link fails or ends, then removes the link
// from the session.
func (l *link) readLoop() {
	defer l.s.wg.Done()
	defer close(l.finished)
	defer l.s.removeLink(l)
	defer l.releaseReader()
	buf := make([]byte, wire.MaxBatchSize)
	// The lease's end is pushed forward at most every lease/4, so a
	// silent peer is dropped between one and 1.25 leases after its last
	// batch.
	step := l.peerLease / 4
	var deadlineSet time.Time
	for {
		now := time.Now()
		if l.rxActive {
			l.lastActive.Store(now.UnixNano())
			l.rxActive = false
		}
		if now.Sub(deadlineSet) >= step {
			l.leaseEnd = now.Add(l.peerLease + step)
			deadlineSet = now
			l.armDeadline()
		} else if l.rearm {
			l.armDeadline()
		}
		b, herr, err := l.readNext(buf) // a fragment is read and handled at once (large.go)
		l.rxBatches.Add(1)
		if err != nil {
			switch {
			case errors.Is(err, os.ErrDeadlineExceeded):
				l.close(wire.CloseExpired, errLeaseExpired)
			case errors.Is(err, ErrProtocol), errors.Is(err, ErrTooLarge):
				l.close(wire.CloseInvalid, err)
			default:
				l.close(-1, fmt.Errorf("%w: %w", errLinkClosed, err))
			}
			return
		}
		if b != nil {
			herr = l.handleBatch(b)
		}
		if err := herr; err != nil {
			if le := (*limitError)(nil); errors.As(err, &le) {
				l.closeForLimit(le)
			} else if !errors.Is(err, errLinkClosed) {
				l.log.Warn("zenoh: dropping link after bad input", "link", l.String(), "err", err)
				l.close(wire.CloseInvalid, err)
			}
			return
		}
		select {
		case <-l.done:
			return // ended meanwhile (over a limit, say): read no more
		default:
		}
	}
}

// handleBatch decodes the transport messages of one batch.
func (l *link) handleBatch(b []byte) error {
	d := l.decoder()
	d.Reset(b)
	for {
		m, err := d.Next()
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return wireError(err)
		}
		switch m := m.(type) {
		case *wire.Frame:
			l.rxActive = true
			l.checkSN(m.Reliable, m.SN)
			if err := l.handleNetworkMessages(d); err != nil {
				return err
			}
		case *wire.Fragment:
			// A FRAGMENT's payload runs to the end of the batch.
			return l.handleFragment(m)
		case *wire.KeepAlive, *wire.TransportOAM:
		case *wire.Close:
			cause := fmt.Errorf("%w: closed by remote, reason %d", errLinkClosed, m.Reason)
			if m.Reason == wire.CloseInvalid {
				cause = errRemoteInvalid
				l.s.remoteClosedInvalid(l)
			}
			l.close(-1, cause)
			return errLinkClosed
		default:
			return fmt.Errorf("%w: unexpected transport message %T", ErrProtocol, m)
		}
	}
}

// wireError classifies an error of the wire decoder: input beyond a limit
// is ErrTooLarge, anything else ErrProtocol.
func wireError(err error) error {
	if errors.Is(err, wire.ErrLimit) {
		return fmt.Errorf("%w: %w", ErrTooLarge, err)
	}
	return fmt.Errorf("%w: %w", ErrProtocol, err)
}

// checkSN follows the remote's frame sequence numbers, which run apart on
// the reliable and the best-effort channel. A gap cannot happen on TCP; if
// it does, it is logged and the count resynchronised.
func (l *link) checkSN(reliable bool, sn uint64) {
	ch := 0
	if reliable {
		ch = 1
	}
	if l.rxStarted[ch] && sn != l.rxSN[ch] {
		l.log.Debug("zenoh: unexpected frame SN", "link", l.String(), "reliable", reliable, "got", sn, "want", l.rxSN[ch])
	}
	l.rxStarted[ch] = true
	l.rxSN[ch] = (sn + 1) & l.snMask
}

// handleWhole decodes the network messages of a reassembled message. It
// resets the link's decoder.
func (l *link) handleWhole(b []byte) error {
	d := l.decoder()
	for len(b) > 0 {
		nm, n, err := d.DecodeNetwork(b)
		if err != nil {
			return wireError(err)
		}
		if err := l.s.handleNetwork(l, nm); err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// handleNetworkMessages dispatches the network messages of the FRAME that
// d last returned.
func (l *link) handleNetworkMessages(d *wire.Decoder) error {
	for {
		nm, err := d.NextNetwork()
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return wireError(err)
		}
		if err := l.s.handleNetwork(l, nm); err != nil {
			return err
		}
	}
}

// errUnknownScope is logged and the message dropped, as the reference does.
var errUnknownScope = errors.New("zenoh: unknown key expression scope")

// resolveKey returns the full key of a wire expression, using the
// remote's D_KEYEXPR declarations. The last result is cached so that a
// stream on one key allocates no string.
func (l *link) resolveKey(w *wire.WireExpr) (string, error) {
	if w.Scope == l.lastScope && l.lastKey != "" && string(w.Suffix) == l.lastSfx {
		return l.lastKey, nil
	}
	var key string
	if w.Scope == 0 {
		key = string(w.Suffix)
	} else {
		if w.Mapping != wire.MappingSender {
			return "", fmt.Errorf("%w %d in our table: we declare none", errUnknownScope, w.Scope)
		}
		prefix, ok := l.aliases[w.Scope]
		if !ok {
			return "", fmt.Errorf("%w %d", errUnknownScope, w.Scope)
		}
		key = prefix + string(w.Suffix)
	}
	if key == "" {
		return "", fmt.Errorf("%w: empty key expression", ErrProtocol)
	}
	l.lastScope, l.lastSfx, l.lastKey = w.Scope, string(w.Suffix), key
	return key, nil
}
