package dds

import (
	"time"

	"github.com/afor-go/afor/transport/dds/internal/rtps"
)

// Resends. The samples one ACKNACK asks for again go out packed into
// datagrams of up to batchMax bytes, as a stream's new samples do
// (batch.go), the last closed by the HEARTBEAT that follows a repair. A
// reader that dropped a burst of a stream of small samples (a full socket
// buffer, or a volatile Cyclone DDS reader's first moments, see
// readerProxy.unsynced) asks for up to 256 of them at a time; sent one
// datagram each, each send flushing the reader's pending batch of new
// samples ahead of it, a repair cut the stream into datagrams of one or two
// samples, and a Cyclone reader, which keeps only a few samples beyond a
// hole, dropped the new ones it was sent meanwhile and asked for them
// again: a 16-byte stream could settle at a tenth of its rate, every sample
// sent twice.

// resends packs the resends of one ACKNACK to reader pr in w.b (w.mu
// held).
type resends struct {
	w   *Writer
	pr  *readerProxy
	n   int       // samples in w.b
	now time.Time // when they go
}

// add resends c, packed with the others when it is small enough to batch,
// else on its own.
func (r *resends) add(c *change) {
	w, b := r.w, &r.w.b
	c.resentTo, c.resentAt = r.pr, r.now
	if len(c.payload)+len(c.inline) > batchSampleMax {
		r.flush(false)
		w.sendChange(r.pr, c, false, false)
		return
	}
	// INFO_TS (12), DATA header (24), inline QoS with its sentinel,
	// payload and padding, and the closing HEARTBEAT (32).
	if r.n > 0 && b.Len()+12+24+len(c.inline)+4+len(c.payload)+3+32 > batchMax {
		r.flush(false)
	}
	if r.n == 0 {
		w.flushProxy(r.pr)
		b.Reset(w.p.header())
		b.InfoDst(r.pr.guid.Prefix)
	}
	w.appendChange(b, r.pr, c)
	r.n++
}

// flush sends the packed resends, closed by a HEARTBEAT (not final) when
// hb is set, and reports whether there were any.
func (r *resends) flush(hb bool) bool {
	if r.n == 0 {
		return false
	}
	if hb {
		r.w.appendHeartbeat(r.pr, false)
	}
	r.w.p.sendTo(r.w.b.Bytes(), r.pr.locs)
	r.n = 0
	return true
}

// A reader that asks for samples again is repairing (readerProxy.repairing)
// until an ACKNACK of it asks for nothing: new samples are held back from
// it meanwhile, announced only by the HEARTBEAT closing each repair, so
// that it asks for them in order, up to 256 at a time, packed as above.
// Sent at once, they would land beyond the hole it is repairing, and a
// reader that keeps few samples beyond a hole (Cyclone DDS: 128, its
// PrimaryReorderMaxSamples) drops them, asks for them again, and the writer, refilling its window as
// the repair frees it, keeps the hole open for good. A sample held back
// costs no resend credit the first time it goes out (spend, histSent).
// Once the reader asks for nothing, what was held back and not yet asked
// for goes out with the answer.

// hold records that new sample sn was not sent to pr, which repairs
// (w.mu held).
func (pr *readerProxy) hold(sn rtps.SequenceNumber) {
	if pr.histEnd != sn-1 {
		pr.histSent = sn - 1
	}
	pr.histEnd = sn
}

// release sends pr, whose repair is over, the samples held back from it
// that it was not sent since, packed in rs, and reports whether there were
// any (w.mu held).
func (w *Writer) release(pr *readerProxy, rs *resends, now time.Time) bool {
	sent := false
	for sn := max(pr.acked, pr.histSent+1); sn <= min(pr.histEnd, w.lastSN); sn++ {
		c := w.hist.get(sn)
		if c == nil {
			continue // gone: the reader gets a GAP when it asks
		}
		if !w.spend(pr, sn, fragments(c), now) {
			break
		}
		rs.add(c)
		sent = true
	}
	return sent
}

// resendQuiet is how long a sample resent to a reader is not resent to
// it again. A reader answers every HEARTBEAT, and a writer whose write
// waits for room asks it again every blockedAskPeriod: an ACKNACK it sent
// before a resend reached it asks for that again. Answered, each such
// duplicate started an exchange of its own that went on for the whole
// repair, every sample sent twice or more. A resend that was lost goes
// out again when the reader asks after resendQuiet, at the latest after
// the next periodic HEARTBEAT.
const resendQuiet = 10 * time.Millisecond
