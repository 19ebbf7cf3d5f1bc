package dds

import (
	"sync"
	"time"

	"github.com/afor-go/afor/transport/dds/internal/rtps"
)

// Batching of small samples. A writer sends a sample at once when it is
// idle: nothing is waiting for the reader, and either a sample was
// received since its last send (an answer to what came in: an
// acknowledgment does not count, or a stream to a reliable reader would go
// out one datagram per sample) or that send ended at least directGap ago
// (a periodic publication). A sample written right after another, while
// the writer is busy streaming, is appended instead to a pending message
// for the reader (INFO_TS and DATA, after one INFO_DST), which the
// participant's flusher sends as one datagram, or the writer itself once
// the message reaches batchMax. A lone message never
// waits; a stream costs one system call per batch rather than per sample.
const (
	// directGap is how long after a writer's last send a sample must come
	// to go out directly, unless something was received since.
	directGap = 5 * time.Microsecond
	// batchMax bounds a batched datagram (Cyclone's default
	// MaxMessageSize is 14720 bytes).
	batchMax = 14720
	// batchSampleMax is the largest payload that is batched; larger ones
	// go out in datagrams of their own.
	batchSampleMax = 8192
)

// flusher sends the pending batches of the participant's writers.
type flusher struct {
	mu    sync.Mutex
	dirty []*Writer
	kick  chan struct{}
}

func newFlusher() *flusher { return &flusher{kick: make(chan struct{}, 1)} }

// add queues w, which has pending batches, and wakes the flusher.
func (f *flusher) add(w *Writer) {
	f.mu.Lock()
	f.dirty = append(f.dirty, w)
	f.mu.Unlock()
	select {
	case f.kick <- struct{}{}:
	default:
	}
}

// flushLoop sends pending batches until the participant closes.
func (p *Participant) flushLoop() {
	defer p.wg.Done()
	f := p.flush
	var ws []*Writer
	for {
		select {
		case <-p.done:
			return
		case <-f.kick:
		}
		f.mu.Lock()
		ws, f.dirty = f.dirty, ws[:0]
		f.mu.Unlock()
		for i, w := range ws {
			w.flushAll()
			ws[i] = nil
		}
	}
}

// batchState is a writer's pending batch for one reader.
type batchState struct {
	b       rtps.Builder
	n       int                 // samples in b
	last    rtps.SequenceNumber // the SN of the last sample in b
	solicit bool                // the HEARTBEAT closing b asks for an answer
}

// idle reports whether a new sample may go out directly (w.mu held).
func (w *Writer) idle(now time.Time) bool {
	gap := directGap
	if w.p.cfg.directGap != 0 {
		gap = w.p.cfg.directGap
	}
	return w.p.stats.dataIn.Load() != w.rxAtSend || now.Sub(w.lastSend) >= gap
}

// sentNow records the end of a send of new samples (w.mu held).
func (w *Writer) sentNow() {
	w.lastSend = time.Now()
	w.rxAtSend = w.p.stats.dataIn.Load()
}

// sendNew sends a newly written change c to pr, directly or through pr's
// batch (w.mu held).
func (w *Writer) sendNew(pr *readerProxy, c *change, direct, solicit bool) {
	if pr.repairing {
		pr.hold(c.sn)
		return
	}
	if w.builtin || c.key || c.inline != nil || len(c.payload) > batchSampleMax {
		w.sendChange(pr, c, pr.reliable, solicit)
		return
	}
	if direct && pr.batch.n == 0 {
		w.sendChange(pr, c, pr.reliable, solicit)
		return
	}
	bs := &pr.batch
	// INFO_TS (12), DATA header (24), payload and padding (3), and the
	// closing HEARTBEAT (32).
	if bs.n > 0 && bs.b.Len()+12+24+len(c.payload)+3+32 > batchMax {
		w.flushProxy(pr)
	}
	if bs.n == 0 {
		bs.b.Reset(w.p.header())
		bs.b.InfoDst(pr.guid.Prefix)
	}
	w.appendChange(&bs.b, pr, c)
	bs.n++
	bs.last = c.sn
	bs.solicit = bs.solicit || solicit
	if !w.dirty {
		w.dirty = true
		w.p.flush.add(w)
	}
}

// flushProxy sends pr's pending batch, closed by a HEARTBEAT to a reliable
// reader (w.mu held). Every other send to pr calls it first, so that pr
// receives the writer's messages in order.
func (w *Writer) flushProxy(pr *readerProxy) {
	bs := &pr.batch
	if bs.n == 0 {
		return
	}
	if pr.reliable {
		// The HEARTBEAT announces no more than the batch holds: a
		// sample written since (sendNew flushes a full batch before
		// adding the sample that overflows it) is not on its way yet,
		// and a reader told of it asks for it at once.
		first, last := w.heartbeatRange(pr)
		last = min(last, max(bs.last, first-1))
		w.hbCount++
		bs.b.Heartbeat(&rtps.Heartbeat{ReaderID: pr.guid.Entity, WriterID: w.guid.Entity, First: first, Last: last, Count: w.hbCount, Final: !bs.solicit})
	}
	w.p.sendTo(bs.b.Bytes(), pr.locs)
	bs.n, bs.solicit = 0, false
	w.sentNow()
}

// flushAll sends the pending batches of every reader.
func (w *Writer) flushAll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.dirty = false
	if w.closed {
		return
	}
	for _, pr := range w.proxies {
		w.flushProxy(pr)
	}
}
