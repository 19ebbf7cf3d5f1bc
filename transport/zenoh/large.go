package zenoh

// Large messages: those too big for one batch, sent as FRAGMENTs. Their
// payload is copied only by the kernel's socket calls:
//
//   - A publisher encodes the PUSH without its payload (wire's
//     Push.AppendHead) and, when the link is idle, writes the fragments
//     itself with one vectored write (writev): the fragment headers from a
//     small buffer of the link, the message bytes straight from the caller's
//     payload. A busy link (something queued or being written) gets the
//     message queued as before, which copies it once.
//   - The reader reads each FRAGMENT's bytes from the socket straight into
//     the message's reassembly buffer, with one vectored read (readv) that
//     also takes what follows (the next batch's length and header) into a
//     small spill buffer (large_read.go); a whole message is decoded in
//     place: its payload aliases that buffer (see reassembly.go).
//   - The last local subscriber may keep the payload without a copy (a
//     Sample, or a codec that keeps what it decodes, see PayloadKeeper):
//     it takes the buffer, and the link starts its next message in a new
//     one, sized as the last. When nobody kept it, the link reuses the
//     buffer for its next message, so a stream of large samples decoded
//     by a copying codec allocates nothing in the transport.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// largePayload is the payload size from which a publisher encodes the
// PUSH head apart from the payload (below it, copying the payload into the
// encoded message costs less than the extra bookkeeping).
const largePayload = 32 << 10

// largeWriteWait bounds how long a publisher writing a large message
// itself waits for a peer that does not read: the rest is then left to
// the link's writer goroutine (copied), so that a slow peer cannot hold a
// publisher for longer than a dropped message would (DropWaitFragments).
const largeWriteWait = DropWaitFragments

// PayloadKeeper is implemented by codecs whose Decode keeps the bytes it
// is given (returns a value that aliases them, such as an aliasing CDR
// decode of a byte sequence), contrary to what afor.Codec asks. Given such
// a codec (KeepsPayload returns true), SubscribeCodec hands Decode bytes
// that nothing else uses and that the session never reuses: the reassembly
// buffer of a fragmented sample, without a copy, or else a copy of the
// payload. Other codecs decode from the session's buffers, which are reused
// once Decode returns.
type PayloadKeeper interface {
	KeepsPayload() bool
}

// keepsPayload reports whether codec keeps the bytes it decodes.
func keepsPayload(codec any) bool {
	k, ok := codec.(PayloadKeeper)
	return ok && k.KeepsPayload()
}

// payloadLoan lends a reassembled message's buffer to the subscribers it
// is delivered to: the last one may keep it, the others copy what they
// keep.
type payloadLoan struct {
	// last is set while the message is delivered to the last subscriber
	// and is not relayed: only then may the payload be taken, since the
	// taker may modify it.
	last  bool
	taken bool
}

// take returns a payload the caller owns: d's payload itself when it lives
// in a reassembly buffer nobody took yet, else a copy. It never returns
// nil for a put.
func (d *dataMsg) take() []byte {
	if d.loan != nil && d.loan.last && !d.loan.taken {
		d.loan.taken = true
		return d.payload[:len(d.payload):len(d.payload)]
	}
	if len(d.payload) == 0 {
		return []byte{}
	}
	return append(make([]byte, 0, len(d.payload)), d.payload...)
}

// appendHead appends the PUSH{PUT} of d on key without its payload bytes
// (see wire.Push.AppendHead).
func (e *pushEncoder) appendHead(dst []byte, key string, d *dataMsg) ([]byte, error) {
	payload := d.payload
	d.payload = nil
	out, err := e.append(dst, key, d) // sets e.push up for d (encoding a small message, dropped)
	d.payload = payload
	if err != nil {
		return dst, err
	}
	e.put.Payload = payload
	return e.push.AppendHead(out[:len(dst)])
}

// publishLarge sends a large put (already delivered locally) to every one
// of links, the payload written from the caller's slice where the link is
// idle; p.mu is held.
func (p *Publisher) publishLarge(ctx context.Context, mode sendMode, links []*link, d *dataMsg) error {
	var err error
	if p.buf, err = p.enc.appendHead(p.buf[:0], p.key, d); err != nil {
		return fmt.Errorf("zenoh: encode sample: %w", err)
	}
	var firstErr error
	for _, l := range links {
		sent, err := l.sendLarge(ctx, mode, p.buf, d.payload)
		if err == nil && !sent {
			p.dropped.Add(1)
			l.log.Debug("zenoh: queue full, sample dropped", "key", p.key)
		}
		if err != nil && firstErr == nil && err != errLinkClosed {
			firstErr = err
		}
	}
	return firstErr
}

// sendLarge sends the network message head+payload. When it needs
// fragments and the link is idle (nothing queued, nobody writing, nothing
// left over), the caller writes it at once; otherwise it is queued as send
// does (a copy), and the caller waits or drops as send does.
func (l *link) sendLarge(ctx context.Context, mode sendMode, head, payload []byte) (bool, error) {
	mode |= sendJoined
	if len(head)+len(payload)+frameOverhead <= l.batch-2 {
		return l.send(ctx, mode, head, payload)
	}
	l.mu.Lock()
	select {
	case <-l.done:
		l.mu.Unlock()
		return false, errLinkClosed
	default:
	}
	if len(l.pending) == 0 && l.wmu.TryLock() {
		l.mu.Unlock()
		if len(l.carry) == 0 {
			err := l.writeLarge(head, payload)
			l.wroteNow()
			l.wmu.Unlock()
			return err == nil, err
		}
		l.wmu.Unlock()
	} else {
		l.mu.Unlock()
	}
	return l.send(ctx, mode, head, payload)
}

// writeLarge writes head+payload as FRAGMENTs with vectored writes, the
// message bytes straight from head and payload; l.wmu is held and carry
// is empty. A peer that takes nothing for largeWriteWait leaves the rest
// of the message to the writer goroutine (copied into carry). A link
// whose write fails is closed.
func (l *link) writeLarge(head, payload []byte) error {
	l.buildFragments(head, payload)
	l.setWriteDeadline(time.Now().Add(largeWriteWait))
	n, err := l.writeIOV()
	l.setWriteDeadline(time.Time{})
	if n > 0 {
		l.sent.Store(true)
	}
	if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
		clear(l.iov)
		l.close(-1, fmt.Errorf("%w: write: %w", errLinkClosed, err))
		return errLinkClosed
	}
	if err != nil { // a slow peer: the writer sends the rest
		skip := n
		left := len(l.carry)
		for _, b := range l.iov {
			if skip >= int64(len(b)) {
				skip -= int64(len(b))
				continue
			}
			l.carry = append(l.carry, b[skip:]...)
			skip = 0
		}
		l.mu.Lock()
		l.holdTxLocked(len(l.carry) - left)
		l.mu.Unlock()
		l.kickWriter()
		l.s.checkTx()
	}
	clear(l.iov)
	return nil
}

// pushAll appends msg and more to the transmit queue, as one network
// message with sendJoined, else as messages of their own (l.mu held).
func (l *link) pushAll(mode sendMode, msg []byte, more [][]byte) {
	if mode&sendJoined == 0 {
		l.push(msg)
		for _, m := range more {
			l.push(m)
		}
		return
	}
	l.pending = append(l.pending, msg...)
	for _, m := range more {
		l.pending = append(l.pending, m...)
	}
	l.bounds = append(l.bounds, len(l.pending))
}

// writeIOV writes l.iov with vectored writes; l.wmu is held.
func (l *link) writeIOV() (int64, error) {
	// WriteTo consumes the net.Buffers it writes: give it a copy of iov
	// in storage kept for the next time.
	l.iovBase = append(l.iovBase[:0], l.iov...)
	l.iovw = l.iovBase
	n, err := l.iovw.WriteTo(l.conn)
	clear(l.iovBase) // do not pin the caller's payload
	return n, err
}

// setWriteDeadline sets the connection's write deadline unless the link
// was told to end (close sets its own deadline, which must stay).
func (l *link) setWriteDeadline(t time.Time) {
	l.dl.Lock()
	select {
	case <-l.done:
	default:
		_ = l.conn.SetWriteDeadline(t)
	}
	l.dl.Unlock()
}

// buildFragments lays out head+payload as FRAGMENT batches in l.iov: for
// each, its length prefix and header (from l.fhdr), then the pieces of
// head and payload it carries.
func (l *link) buildFragments(head, payload []byte) {
	total := len(head) + len(payload)
	// A header takes at most frameOverhead bytes after the length prefix.
	room := l.batch - wire.BatchLenSize - frameOverhead
	nfrag := (total + room - 1) / room
	need := nfrag * (wire.BatchLenSize + frameOverhead)
	if cap(l.fhdr) < need {
		l.fhdr = make([]byte, 0, need)
	}
	h := l.fhdr[:0]
	l.iov = l.iov[:0]
	off := 0 // offset in head+payload
	first := true
	for off < total {
		start := len(h)
		f := wire.Fragment{Reliable: true, SN: l.txSN, First: first && l.patch >= 1}
		l.txSN = (l.txSN + 1) & l.snMask
		first = false
		h = append(h, 0, 0)
		h, _ = f.AppendBinary(h) // no payload: the header alone; fails only on invalid extensions
		hdr := len(h) - start - wire.BatchLenSize
		n := min(total-off, l.batch-wire.BatchLenSize-hdr)
		if off+n < total {
			h[start+wire.BatchLenSize] |= wire.FlagFragmentMore
		}
		_ = wire.PutBatchLen(h[start:], hdr+n)
		l.iov = append(l.iov, h[start:len(h):len(h)])
		end := off + n
		if off < len(head) {
			l.iov = append(l.iov, head[off:min(end, len(head))])
		}
		if end > len(head) {
			l.iov = append(l.iov, payload[max(off-len(head), 0):end-len(head)])
		}
		off = end
	}
	l.fhdr = h
}
