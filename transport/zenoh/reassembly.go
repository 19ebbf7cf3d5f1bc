package zenoh

// Reassembly of fragmented messages: the receiving side of large.go.
//
// A link reads each FRAGMENT's bytes straight into the message's buffer,
// which is allocated as the fragments arrive: in chunks (64 KiB, doubling
// up to 4 MiB), never by growing one buffer and copying it, so that a
// message that never ends holds what it received and leaves no garbage. A
// message that ends within one chunk is decoded in place; one that spans
// several is joined into a buffer of its exact size (a copy; both count
// while it is made). A link whose last message fitted in keepDefrag starts
// the next in a buffer of that size, so a stream of equal images is
// reassembled in place, without a copy.
//
// Everything links hold to reassemble counts: the messages in progress
// against MaxLinkReassembly (per message) and MaxSessionReassembly (for the
// session), and the buffers links keep between messages (up to keepDefrag
// each) against a quarter of MaxSessionReassembly. Those are kept in a
// store of the session, least recently used dropped first, and dropped too
// when a message in progress needs their room: links that each sent one
// large message no longer add up (120 links of 8 MB held 971 MB). The
// store also holds, within the same quarter, the chunks of messages that
// were joined or dropped, for the next chunks any link needs: a message
// dropped for room leaves its memory to the messages that go on, not to
// the garbage collector.
//
// An incomplete message that goes stale is dropped and its memory
// released: its next fragment is late by Limits.ReassemblyTimeout after the
// last one, or after the first one plus a second per MiB received (so a
// trickle of fragments is stale too). The link's read deadline wakes its
// reader for that, even while the remote sends keep-alives; the reader
// goes on reading where it was (see link.wake).

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// Names of the reassembly limits in Stats.ByLimit.
const (
	// LimitReassembly counts the fragmented messages dropped because
	// their link (MaxLinkReassembly) or the session (MaxSessionReassembly)
	// would hold too much.
	LimitReassembly = "MaxSessionReassembly"
	// LimitKeptReassembly counts the buffers kept between messages that
	// were dropped for room (a quarter of MaxSessionReassembly).
	LimitKeptReassembly = "MaxSessionReassembly.kept"
	// LimitReassemblyTimeout counts the incomplete messages dropped as
	// stale (Limits.ReassemblyTimeout).
	LimitReassemblyTimeout = "ReassemblyTimeout"
)

const (
	// minDefrag is the smallest reassembly chunk a link allocates.
	minDefrag = 64 << 10
	// maxChunk is the largest reassembly chunk a link allocates, but for
	// a first chunk sized as the link's last message.
	maxChunk = 4 << 20
	// minReassemblyRate is the average rate, in bytes per second, below
	// which a message being reassembled goes stale (beyond its first
	// ReassemblyTimeout).
	minReassemblyRate = 1 << 20
)

// reassembly is the message a link is reassembling (reader only).
type reassembly struct {
	// chunks hold its bytes in order, each full (len == cap) but the last.
	chunks   [][]byte
	size     int       // its length so far
	start    time.Time // when its first fragment came
	last     time.Time // when its last fragment came
	gen      uint64    // bumped whenever a message ends or is dropped
	skipping bool      // dropping the rest of a message (until its last fragment)
}

// defragStore counts the memory of the session's reassembly: the messages
// links are reassembling and the buffers they keep between messages, which
// it holds (so that it can drop them).
type defragStore struct {
	mu    sync.Mutex
	inUse int // bytes of messages being reassembled
	idle  int // bytes of kept buffers and free chunks
	// The kept buffers, least recently kept first: a list through the
	// links' own keptBuf, so that keeping one allocates nothing.
	first, last *keptBuf
	// free holds chunks of messages that ended or were dropped, by
	// capacity, for the next chunks any link needs: a message dropped for
	// room leaves its memory to the others rather than as garbage.
	free  map[int][][]byte
	freeN int // their bytes
}

// keptBuf is the buffer a link kept for its next message, in the
// session's list of them (defragStore.mu).
type keptBuf struct {
	l          *link
	b          []byte // nil: none
	prev, next *keptBuf
}

// reserve adds n bytes to what l counts for messages in progress, within
// MaxSessionReassembly, dropping kept buffers (the least recently kept
// first) to make room. It reports false, with a warning (once per link),
// when that is not enough; nothing is counted then.
func (l *link) reserve(n int) bool {
	s := l.s
	d := &s.defrag
	max := s.cfg.MaxSessionReassembly
	d.mu.Lock()
	var dropped int
	d.dropFreeLocked(d.inUse + d.idle + n - max)
	for d.inUse+d.idle+n > max && d.first != nil {
		d.dropLocked(d.first)
		dropped++
	}
	ok := d.inUse+d.idle+n <= max
	if ok {
		d.inUse += n
		l.counted += n
		s.reassembly.Store(int64(d.inUse))
	}
	d.mu.Unlock()
	if dropped > 0 {
		s.countKeptDropped(l, dropped)
	}
	if !ok {
		if !l.warnedReassembly {
			l.warnedReassembly = true
			l.log.Warn("zenoh: dropping a fragmented message: the session reassembles too much",
				"link", l.String(), "limit", LimitReassembly, "max", max)
		}
		s.countLimit(LimitReassembly)
	}
	return ok
}

// unreserve takes n bytes off what l counts for messages in progress.
func (l *link) unreserve(n int) {
	if n == 0 {
		return
	}
	d := &l.s.defrag
	d.mu.Lock()
	d.inUse -= n
	l.counted -= n
	l.s.reassembly.Store(int64(d.inUse))
	d.mu.Unlock()
}

// keep stores b, the buffer of l's last message (which l counts, alone),
// for l's next message, if it is small enough and there is room (dropping
// the least recently kept first); else it lets it go.
func (l *link) keep(b []byte) {
	s := l.s
	d := &s.defrag
	max := s.cfg.MaxSessionReassembly / 4
	d.mu.Lock()
	d.inUse -= l.counted
	l.counted = 0
	s.reassembly.Store(int64(d.inUse))
	var dropped int
	if cap(b) <= keepDefrag && cap(b) <= max {
		d.dropFreeLocked(d.idle + cap(b) - max)
		for d.idle+cap(b) > max && d.first != nil {
			d.dropLocked(d.first)
			dropped++
		}
		k := &l.kept
		if k.b != nil {
			d.dropLocked(k)
		}
		k.l, k.b, k.prev, k.next = l, b[:0], d.last, nil
		if d.last != nil {
			d.last.next = k
		} else {
			d.first = k
		}
		d.last = k
		d.idle += cap(b)
	}
	d.mu.Unlock()
	if dropped > 0 {
		s.countKeptDropped(l, dropped)
	}
}

// takeKept returns the buffer l kept (now counted as in use), or nil.
func (l *link) takeKept() []byte {
	d := &l.s.defrag
	d.mu.Lock()
	defer d.mu.Unlock()
	b := l.kept.b
	if b == nil {
		return nil
	}
	d.dropLocked(&l.kept)
	d.inUse += cap(b)
	l.counted += cap(b)
	l.s.reassembly.Store(int64(d.inUse))
	return b
}

// dropLocked forgets a kept buffer (d.mu held).
func (d *defragStore) dropLocked(k *keptBuf) {
	if k.prev != nil {
		k.prev.next = k.next
	} else {
		d.first = k.next
	}
	if k.next != nil {
		k.next.prev = k.prev
	} else {
		d.last = k.prev
	}
	d.idle -= cap(k.b)
	k.b, k.prev, k.next = nil, nil, nil
}

// dropFreeLocked drops free chunks until n bytes are freed or none is
// left (d.mu held).
func (d *defragStore) dropFreeLocked(n int) {
	for c, bs := range d.free {
		for n > 0 && len(bs) > 0 {
			bs[len(bs)-1] = nil
			bs = bs[:len(bs)-1]
			d.idle -= c
			d.freeN -= c
			n -= c
		}
		if len(bs) == 0 {
			delete(d.free, c)
		} else {
			d.free[c] = bs
		}
		if n <= 0 {
			return
		}
	}
}

// isChunkSize reports whether c is the capacity of chunks links allocate
// as a message grows (a power of two from minDefrag to maxChunk).
func isChunkSize(c int) bool {
	return c >= minDefrag && c <= maxChunk && c&(c-1) == 0
}

// recycle gives up chunks of l's, which l counts: those of a size links
// allocate go to the free chunks while they fit in a quarter of
// MaxSessionReassembly, the others are let go.
func (l *link) recycle(chunks [][]byte) {
	s := l.s
	d := &s.defrag
	max := s.cfg.MaxSessionReassembly / 4
	d.mu.Lock()
	for _, c := range chunks {
		n := cap(c)
		d.inUse -= n
		l.counted -= n
		if isChunkSize(n) && d.idle+n <= max {
			if d.free == nil {
				d.free = make(map[int][][]byte)
			}
			d.free[n] = append(d.free[n], c[:0])
			d.idle += n
			d.freeN += n
		}
	}
	s.reassembly.Store(int64(d.inUse))
	d.mu.Unlock()
}

// takeFree returns a free chunk of capacity c, now counted as l's, or nil.
func (l *link) takeFree(c int) []byte {
	d := &l.s.defrag
	d.mu.Lock()
	defer d.mu.Unlock()
	bs := d.free[c]
	if len(bs) == 0 {
		return nil
	}
	b := bs[len(bs)-1]
	bs[len(bs)-1] = nil
	d.free[c] = bs[:len(bs)-1]
	d.idle -= c
	d.freeN -= c
	d.inUse += c
	l.counted += c
	l.s.reassembly.Store(int64(d.inUse))
	return b
}

// countKeptDropped counts and logs kept buffers dropped for room.
func (s *Session) countKeptDropped(l *link, n int) {
	for range n - 1 {
		s.countLimit(LimitKeptReassembly)
	}
	if c, log := s.countLimit(LimitKeptReassembly); log {
		l.log.Warn("zenoh: dropping buffers links kept between fragmented messages, to make room", "link", l.String(),
			"limit", LimitKeptReassembly, "max", s.cfg.MaxSessionReassembly/4, "count", c)
	}
}

// releaseDefrag gives up everything l holds to reassemble, when the link
// ends.
func (l *link) releaseDefrag() {
	l.dropMessage(false)
	d := &l.s.defrag
	d.mu.Lock()
	if l.kept.b != nil {
		d.dropLocked(&l.kept)
	}
	d.mu.Unlock()
}

// newChunk returns a chunk of length n and capacity c, counted: a free one
// if there is one, else a new one. It returns nil when the session cannot
// hold it.
func (l *link) newChunk(n, c int) []byte {
	if b := l.takeFree(c); b != nil {
		return b[:n]
	}
	if !l.reserve(c) {
		return nil
	}
	b := make([]byte, n, c)
	if extra := cap(b) - c; extra > 0 { // rounded up by the allocator
		d := &l.s.defrag
		d.mu.Lock()
		d.inUse += extra
		l.counted += extra
		l.s.reassembly.Store(int64(d.inUse))
		d.mu.Unlock()
	}
	return b
}

// dropMessage drops the message being reassembled and releases its
// memory; more tells whether fragments of it are still to come (to be
// skipped).
func (l *link) dropMessage(more bool) {
	l.recycle(l.reasm.chunks)
	l.forgetMessage(more)
}

// forgetMessage drops the message being reassembled without reusing its
// chunks (the reader may be reading into one); see dropMessage.
func (l *link) forgetMessage(more bool) {
	r := &l.reasm
	clear(r.chunks)
	r.chunks = r.chunks[:0]
	r.size = 0
	r.gen++
	r.skipping = more
	l.unreserve(l.counted) // what recycle did not take
}

// Receiving.

// fragPeek is how many bytes of a batch the reader looks at to find a
// FRAGMENT header it can read the payload after.
const fragPeek = 32

// readNext reads the next batch and returns it, read into buf. A batch
// holding a FRAGMENT (alone, as senders write them) is instead read
// straight into the reassembly buffer and handled: readNext then returns a
// nil batch and the error of handling it, herr. err is an error reading
// the socket.
func (l *link) readNext(buf []byte) (b []byte, herr, err error) {
	if _, err := io.ReadFull(l.br, buf[:wire.BatchLenSize]); err != nil {
		return nil, nil, err
	}
	n, _ := wire.BatchLen(buf)
	if n > len(buf) {
		return nil, nil, fmt.Errorf("%w: batch of %d bytes", ErrTooLarge, n)
	}
	if n > fragPeek {
		if peek, err := l.br.Peek(fragPeek); err == nil && peek[0]&wire.IDMask == wire.IDFragment {
			d := l.decoder()
			d.Reset(peek)
			if m, err := d.Next(); err == nil {
				if f, ok := m.(*wire.Fragment); ok {
					hdr := fragPeek - len(f.Payload)
					_, _ = l.br.Discard(hdr) // peeked: cannot fail
					herr, err := l.readFragment(f, n-hdr)
					return nil, herr, err
				}
			}
		}
	}
	if _, err := io.ReadFull(l.br, buf[:n]); err != nil {
		return nil, nil, err
	}
	return buf[:n], nil, nil
}

// readFragment reads the n payload bytes of FRAGMENT f from the socket
// into the reassembly buffer (or past it, when the message is dropped) and
// handles the message when it is whole. It returns the error of handling
// it, then the error of reading.
func (l *link) readFragment(f *wire.Fragment, n int) (herr, err error) {
	more := f.More
	a, b, ok := l.fragmentBegin(f, n)
	if !ok {
		_, err = l.br.Discard(n)
		return nil, err
	}
	gen := l.reasm.gen
	for _, dst := range [2][]byte{a, b} {
		if len(dst) == 0 {
			continue
		}
		if l.rx == nil {
			_, err = io.ReadFull(l.br, dst)
		} else {
			// What br holds, then straight from the socket (large_read.go).
			k, _ := io.ReadFull(l.br, dst[:min(l.br.Buffered(), len(dst))]) // buffered: cannot fail
			err = l.rx.readInto(dst[k:])
		}
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
	if l.reasm.gen != gen {
		// Dropped as stale while its bytes came: skip its rest.
		l.reasm.skipping = more
		return nil, nil
	}
	if more {
		return nil, nil
	}
	return l.fragmentEnd(), nil
}

// handleFragment adds a FRAGMENT decoded from a batch to the message being
// reassembled and handles the message when it is whole.
func (l *link) handleFragment(f *wire.Fragment) error {
	a, b, ok := l.fragmentBegin(f, len(f.Payload))
	if !ok {
		return nil
	}
	k := copy(a, f.Payload)
	copy(b, f.Payload[k:])
	if f.More {
		return nil
	}
	return l.fragmentEnd()
}

// fragmentBegin follows FRAGMENT f, whose payload has n bytes, and returns
// where in the reassembly buffer they go: a, then b (a new chunk) for what
// does not fit in a. It reports false when they are to be dropped (a
// dropped message, or the end of one over a limit).
func (l *link) fragmentBegin(f *wire.Fragment, n int) (a, b []byte, ok bool) {
	l.rxActive = true
	l.checkSN(f.Reliable, f.SN)
	r := &l.reasm
	if f.First || f.Drop {
		if r.size > 0 || r.skipping {
			l.dropMessage(false) // a new message: the one before is incomplete
		}
		r.skipping = false
	}
	if f.Drop {
		return nil, nil, false
	}
	if r.skipping {
		r.skipping = f.More
		return nil, nil, false
	}
	size := r.size + n
	if limit := min(l.s.cfg.MaxMessageSize, l.s.cfg.MaxLinkReassembly); size > limit {
		// As the reference does, drop the message but keep the link.
		if c, log := l.s.countLimit(LimitReassembly); log {
			l.log.Warn("zenoh: dropping a fragmented message over the size limit", "link", l.String(),
				"limit", LimitReassembly, "max", limit, "count", c)
		}
		l.dropMessage(f.More)
		return nil, nil, false
	}
	now := time.Now()
	if r.size == 0 {
		r.start = now
		l.rearm = true // a stale deadline to set
		if first := l.firstChunk(n); first != nil {
			r.chunks = append(r.chunks[:0], first)
		} else {
			l.dropMessage(f.More)
			return nil, nil, false
		}
	}
	r.last = now
	last := &r.chunks[len(r.chunks)-1]
	used := len(*last)
	if room := cap(*last) - used; room >= n {
		*last = (*last)[:used+n]
		r.size = size
		return (*last)[used:], nil, true
	}
	need := n - (cap(*last) - used)
	c := max(min(2*cap(*last), maxChunk), minDefrag, need)
	c = max(min(c, l.s.cfg.MaxLinkReassembly-l.counted), need)
	chunk := l.newChunk(need, c)
	if chunk == nil {
		l.dropMessage(f.More)
		return nil, nil, false
	}
	*last = (*last)[:cap(*last)]
	a = (*last)[used:]
	r.chunks = append(r.chunks, chunk)
	r.size = size
	return a, chunk, true
}

// firstChunk returns the first chunk of a message whose first fragment has
// n bytes: the buffer the link kept, else one the size of its last message
// if that fitted in keepDefrag, else the smallest; nil when the session
// cannot hold it.
func (l *link) firstChunk(n int) []byte {
	if b := l.takeKept(); b != nil {
		return b[:0]
	}
	c := minDefrag
	if l.defragHint <= keepDefrag {
		c = max(c, l.defragHint)
	}
	c = max(min(c, l.s.cfg.MaxLinkReassembly), n)
	b := l.newChunk(0, c)
	if b == nil {
		return nil
	}
	return b
}

// fragmentEnd handles the message reassembled in l.reasm. Its payloads
// are lent to the subscribers (see payloadLoan): when one of them kept
// the buffer, the link's next message starts in a new one.
func (l *link) fragmentEnd() error {
	r := &l.reasm
	b := r.chunks[0]
	if len(r.chunks) > 1 {
		// Join the chunks: the joined buffer counts while they do.
		j := l.newChunk(0, r.size)
		if j == nil {
			l.dropMessage(false)
			return nil
		}
		for _, c := range r.chunks {
			j = append(j, c...)
		}
		l.recycle(r.chunks)
		clear(r.chunks)
		r.chunks = append(r.chunks[:0], j)
		b = j
	}
	l.defragHint = len(b)
	l.loan = payloadLoan{}
	l.rxData.loan = &l.loan
	err := l.handleWhole(b)
	l.rxData.loan = nil
	taken := l.loan.taken
	clear(r.chunks)
	r.chunks = r.chunks[:0]
	r.size = 0
	r.gen++
	if taken {
		l.unreserve(l.counted) // the subscriber's now
	} else {
		l.keep(b) // for the next message, if there is room
	}
	return err
}

// staleAt is when the message being reassembled goes stale.
func (l *link) staleAt() time.Time {
	r := &l.reasm
	t := l.s.cfg.Limits.ReassemblyTimeout
	more := time.Duration(int64(r.size) * int64(time.Second) / minReassemblyRate)
	byRate := r.start.Add(min(t, maxLease-more) + more) // no overflow when lifted
	if late := r.last.Add(t); late.Before(byRate) {
		return late
	}
	return byRate
}

// armDeadline sets the connection's read deadline: the lease's end, or
// sooner when the message being reassembled would go stale.
func (l *link) armDeadline() {
	l.rearm = false
	d := l.leaseEnd
	if l.reasm.size > 0 {
		if at := l.staleAt(); at.Before(d) {
			d = at
		}
	}
	if !d.Equal(l.readDeadline) {
		_ = l.conn.SetReadDeadline(d)
		l.readDeadline = d
	}
}

// wake is called by the reader when a read ends with err. When err is a
// deadline set for housekeeping, not the lease's end, it drops the message
// being reassembled if it went stale, sets the next deadline and reports
// true: the read goes on where it was. Otherwise (the lease ended, or
// another error) it reports false.
func (l *link) wake(err error) bool {
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		return false
	}
	now := time.Now()
	if !now.Before(l.leaseEnd) {
		return false
	}
	if r := &l.reasm; r.size > 0 && !now.Before(l.staleAt()) {
		if c, log := l.s.countLimit(LimitReassemblyTimeout); log {
			l.log.Warn("zenoh: dropping a fragmented message that went stale", "link", l.String(),
				"limit", LimitReassemblyTimeout, "max", l.s.cfg.Limits.ReassemblyTimeout, "received", r.size,
				"since", now.Sub(r.start).Round(time.Millisecond), "count", c)
		}
		l.forgetMessage(true) // the read in progress may be into it
	}
	l.armDeadline()
	return true
}

// wakeReader is the connection as the link's reader reads it: a read that
// ends at a housekeeping deadline goes on (see link.wake).
type wakeReader struct{ l *link }

func (w wakeReader) Read(p []byte) (int, error) {
	for {
		n, err := w.l.conn.Read(p)
		if err == nil || n > 0 || !w.l.wake(err) {
			return n, err
		}
	}
}
