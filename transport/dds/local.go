package dds

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/afor-go/afor/transport/dds/internal/rtps"
)

// In-process delivery. A writer matched with a reader of its own
// participant hands it each sample directly, never through a socket, as
// Fast DDS (intra-process delivery) and Cyclone (local delivery) do.
//
// Of the two ways to do it, an in-memory loopback of the RTPS datagrams
// and direct delivery of the samples, this is direct delivery: a loopback
// would still build, parse and copy every datagram and run the reliable
// protocol (HEARTBEAT, ACKNACK) between two endpoints that cannot lose
// anything, whereas direct delivery costs one payload copy (the one the
// consumer owns) and no protocol traffic at all.
//
// The writer, with its lock held, appends the sample to the participant's
// local queue (so that the queue holds each writer's samples in sequence
// order); once the lock is released, the writing goroutine delivers the
// queue itself unless another goroutine is already delivering, in which
// case that one delivers it too (a trampoline). Reader callbacks run with
// no writer lock held, and a callback that writes to a local reader only
// queues the sample: the goroutine already delivering delivers it after
// the callback returns. A ping-pong between two callbacks therefore loops
// in one goroutine, with a constant stack, instead of recursing.
//
// A receive goroutine that delivers a datagram's samples to user readers
// holds the same delivery role for the datagram (waiting for it if a
// writer is delivering), and delivers what its callbacks queued before it
// reads the next datagram: user callbacks of a participant thus run one at
// a time, as they did when every sample came through its user socket, and
// a callback never re-enters a reader it is called from.
//
// The protocol state follows: a local reader is matched like a remote one
// (match counts, WaitMatched, QoS checks), is treated as acknowledging
// every sample as soon as it is queued (so a KEEP_ALL writer never blocks
// on it, nor sends it HEARTBEATs), and a TRANSIENT_LOCAL writer queues its
// history, less what its lifespan expired, for a TRANSIENT_LOCAL local
// reader that joins late. The sample carries what a remote delivery gives:
// writer GUID, sequence number, source timestamp and related sample
// identity, with a payload the consumer owns, of any size (nothing is
// fragmented). A volatile writer with no reliable remote reader keeps no
// history, as it would never resend anything. Samples queued for a reader
// that closes are dropped; those of a writer that closes are still
// delivered.

// maxIdleLocalQueue bounds the capacity an empty local queue keeps.
const maxIdleLocalQueue = 1024

// localItem is a sample queued for a local reader.
type localItem struct {
	r       *Reader // nil once dropped (localRoom)
	w       *Writer
	pr      *readerProxy
	writer  rtps.GUID
	sn      rtps.SequenceNumber
	ts      rtps.Time
	related rtps.SampleIdentity
	payload []byte
}

// localQueue is a participant's queue of samples for its own readers, and
// the role of delivering them (see above).
type localQueue struct {
	mu    sync.Mutex
	cond  sync.Cond // signalled when the role is handed over or released
	items []localItem
	head  int // items[:head] are delivered
	// n counts the items queued and not yet taken (read without mu).
	n atomic.Int32
	// delivering: some goroutine holds the delivery role. waiting counts
	// the receive goroutines waiting for it; handoff passes it to one.
	delivering bool
	waiting    int
	handoff    bool
	// cur is the sample being delivered, reused (only the role's holder
	// touches it).
	cur inSample
	// delivered counts the samples delivered in memory (Stats.Local),
	// dropped those dropped to bound the queue (Stats.LocalDropped).
	delivered atomic.Uint64
	dropped   atomic.Uint64
}

func newLocalQueue() *localQueue {
	q := &localQueue{}
	q.cond.L = &q.mu
	return q
}

// push queues it. Call with the writer's lock held, so that each writer's
// samples are queued in sequence order.
func (q *localQueue) push(it localItem) {
	q.mu.Lock()
	if q.head > 0 && len(q.items) == cap(q.items) {
		// Reuse the delivered prefix rather than grow.
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items = q.items[:n]
		q.head = 0
	}
	q.items = append(q.items, it)
	it.pr.pending.Add(1)
	it.pr.pendingBytes.Add(int64(len(it.payload)))
	q.n.Add(1)
	q.mu.Unlock()
}

// run delivers the queue if no goroutine holds the delivery role; else
// the holder delivers it. Call with no writer or reader lock held.
func (q *localQueue) run() {
	if q.n.Load() == 0 {
		return
	}
	q.mu.Lock()
	if q.delivering {
		q.mu.Unlock()
		return
	}
	q.delivering = true
	q.drainLocked()
}

// acquire takes the delivery role, waiting for its holder to hand it over
// (a receive goroutine, before it delivers to user readers; it must hold
// no writer or reader lock).
func (q *localQueue) acquire() {
	q.mu.Lock()
	for q.delivering && !q.handoff {
		q.waiting++
		q.cond.Wait()
		q.waiting--
	}
	q.handoff = false
	q.delivering = true
	q.mu.Unlock()
}

// release delivers what is queued and gives up the delivery role.
func (q *localQueue) release() {
	q.mu.Lock()
	q.drainLocked()
}

// drainLocked delivers the queued samples in order until the queue is
// empty, then gives up the role; if a receive goroutine waits for the
// role, it hands the role (and the rest of the queue) over to it instead.
// Call with q.mu and the role held; it returns with q.mu released.
func (q *localQueue) drainLocked() {
	for {
		if q.waiting > 0 {
			q.handoff = true
			q.cond.Signal()
			q.mu.Unlock()
			return
		}
		if q.head == len(q.items) {
			clear(q.items)
			q.items, q.head = q.items[:0], 0
			if cap(q.items) > maxIdleLocalQueue {
				q.items = nil // a burst is over: let its memory go
			}
			q.delivering = false
			q.mu.Unlock()
			return
		}
		it := q.items[q.head]
		q.items[q.head] = localItem{}
		q.head++
		q.n.Add(-1)
		q.mu.Unlock()
		if it.r != nil {
			n := len(it.payload)
			q.deliver(&it)
			it.pr.pending.Add(-1)
			it.pr.pendingBytes.Add(-int64(n))
			if it.w.localWait.Load() > 0 {
				it.w.mu.Lock()
				it.w.signalRoom()
				it.w.mu.Unlock()
			}
		}
		q.mu.Lock()
	}
}

// deliver hands it to its reader, unless the reader is closed.
func (q *localQueue) deliver(it *localItem) {
	r := it.r
	r.dmu.Lock()
	r.mu.Lock()
	closed := r.closed
	r.mu.Unlock()
	if !closed {
		q.cur = inSample{payload: it.payload, writer: it.writer, sn: it.sn, ts: it.ts, hasTS: true, related: it.related}
		r.deliver(&q.cur)
		q.cur = inSample{}
		q.delivered.Add(1)
	}
	r.dmu.Unlock()
}

// dropOldest drops the oldest sample queued for the local reader of pr;
// it reports false if none is queued (see Writer.localRoom).
func (q *localQueue) dropOldest(pr *readerProxy) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i := q.head; i < len(q.items); i++ {
		if it := &q.items[i]; it.pr == pr && it.r != nil {
			pr.pending.Add(-1)
			pr.pendingBytes.Add(-int64(len(it.payload)))
			it.r, it.payload = nil, nil
			q.dropped.Add(1)
			return true
		}
	}
	return false
}

// localQueueBytes is what a local reader's queue may hold beyond the
// writer's history limit: the part a socket buffer plays for a remote
// reader, so that a burst of small samples written while the reader's
// callback runs is delivered whole.
const localQueueBytes = 4 << 20

// localRoom bounds what is queued for each local reader before a sample
// of size bytes joins it: at most the writer's history limit (Depth, or
// MaxSamples for KEEP_ALL) or localQueueBytes, whichever holds more, as
// the history and the socket bound it for a remote reader whose callbacks
// are slow (the queue grows only when a callback is slower than writers
// on other goroutines, or when a callback writes a burst). Past that, a
// KEEP_LAST or best-effort writer drops the oldest sample queued for the
// reader (which sees a gap in the sequence numbers, as a remote one does
// when the history no longer holds what it missed; Stats.LocalDropped
// counts them), and a reliable KEEP_ALL writer waits, up to
// QoS.MaxBlocking and as long as ctx allows, then fails with ErrTimeout,
// as it does for a remote reader that does not acknowledge (a callback
// that writes more than that to a reader of its own participant fails so
// too: its deliveries wait for it to return). Call with w.mu held; it may
// release it while it waits, and then reports that it waited.
func (w *Writer) localRoom(ctx context.Context, size int) (waited bool, err error) {
	limit := int32(max(1, w.qos.limit()))
	full := func(pr *readerProxy) bool {
		return pr.pending.Load() >= limit && pr.pendingBytes.Load()+int64(size) > localQueueBytes
	}
	block := !w.builtin && w.qos.History == KeepAll && w.qos.Reliability == Reliable
	var deadline <-chan time.Time
	for {
		wait := false
		for _, pr := range w.proxies {
			if pr.local == nil || !full(pr) {
				continue
			}
			if block {
				wait = true
				continue
			}
			for full(pr) && w.p.local.dropOldest(pr) {
			}
		}
		if !wait {
			return deadline != nil, nil
		}
		if deadline == nil {
			t := time.NewTimer(w.qos.MaxBlocking)
			defer t.Stop()
			deadline = t.C
		}
		w.localWait.Add(1)
		_, err := w.waitRoomLocked(ctx, deadline, nil)
		w.localWait.Add(-1)
		if err != nil {
			return true, err
		}
		if w.closed {
			return true, ErrClosed
		}
	}
}

// localReader returns the participant's own user reader g, or nil if g is
// not one of them.
func (p *Participant) localReader(g rtps.GUID) *Reader {
	if g.Prefix != p.prefix {
		return nil
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.readers[g.Entity]
}

// queueLocal queues c for the local reader of pr. Call with w.mu held.
func (w *Writer) queueLocal(pr *readerProxy, c *change, related rtps.SampleIdentity) {
	w.p.local.push(localItem{
		r: pr.local, w: w, pr: pr, writer: w.guid, sn: c.sn, ts: c.ts, related: related,
		payload: slices.Clone(c.payload),
	})
}

// queueHistory queues the history for a local reader that joins late,
// less what the lifespan expired. Call with w.mu held.
func (w *Writer) queueHistory(pr *readerProxy) {
	now := time.Now()
	for _, c := range w.hist.changes {
		if c.payload == nil || c.key || (!c.expires.IsZero() && now.After(c.expires)) {
			continue
		}
		w.queueLocal(pr, c, relatedOf(c))
	}
}

// relatedOf returns the related sample identity that c's inline QoS
// carries (WriteRelated), zero if none.
func relatedOf(c *change) rtps.SampleIdentity {
	if c.inline == nil {
		return rtps.SampleIdentity{}
	}
	q, err := rtps.ParseInlineQoS(c.inline, true, rtps.VendorAfor)
	if err != nil || !q.HasRelated {
		return rtps.SampleIdentity{}
	}
	return q.Related
}

// needsHistory reports whether a new sample must stay in the history: for
// the builtin writers, a TRANSIENT_LOCAL one, or a reliable one with a
// reliable remote reader (for resends). Call with w.mu held.
func (w *Writer) needsHistory() bool {
	if w.builtin || w.qos.Durability == TransientLocal {
		return true
	}
	if w.qos.Reliability != Reliable {
		return false
	}
	for _, pr := range w.proxies {
		if pr.local == nil && pr.reliable {
			return true
		}
	}
	return false
}
