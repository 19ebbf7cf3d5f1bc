package dds

import (
	"errors"
	"net"
	"net/netip"

	"github.com/afor-go/afor/transport/dds/internal/rtps"
)

// receive reads datagrams from c until the participant closes. Each is
// parsed in this goroutine, and its submessages handed to the endpoints.
func (p *Participant) receive(c *net.UDPConn) {
	defer p.wg.Done()
	buf := make([]byte, 65536)
	rd := newRawConn(c).receiver(buf)
	h := &rx{p: p}
	h.rcv.Self = p.prefix
	for {
		n, src, err := rd.read()
		if err != nil {
			if errors.Is(err, net.ErrClosed) || p.isClosed() {
				return
			}
			continue
		}
		p.stats.received.Add(1)
		if p.cfg.dropIn != nil && p.cfg.dropIn(buf[:n]) {
			continue
		}
		h.src = src
		h.input(buf[:n])
	}
}

// rx is the rtps.Handler of one receive goroutine.
type rx struct {
	p   *Participant
	rcv rtps.Receiver
	// holding: the goroutine holds the participant's delivery role for
	// the datagram being handled (local.go).
	holding bool
	// src is the source of the datagram being handled; answered is set
	// when it holds a submessage other than an SPDP DATA.
	src      netip.AddrPort
	answered bool
	// data is set once the datagram's first DATA or DATA_FRAG other than
	// SPDP's is counted (counters.dataIn).
	data bool
	// locked is a user reader whose locks the goroutine holds across the
	// datagram's consecutive DATA submessages for it (a batch of small
	// samples takes its locks once, not once per sample); its samples
	// are delivered when it is released: before any other submessage is
	// handled and at the datagram's end.
	locked *Reader
	// route caches the datagram's last readersFor lookup.
	route struct {
		ok      bool
		writer  rtps.GUID
		reader  rtps.EntityID
		readers []*Reader
	}
}

// readersFor is Participant.readersFor, cached for the submessages of one
// datagram from the same writer to the same reader id.
func (h *rx) readersFor(g rtps.GUID, readerID rtps.EntityID) []*Reader {
	rt := &h.route
	if rt.ok && rt.writer == g && rt.reader == readerID {
		return rt.readers
	}
	rt.readers = h.p.readersFor(g, readerID, rt.readers[:0])
	rt.ok, rt.writer, rt.reader = true, g, readerID
	return rt.readers
}

// lock holds r's locks until release (see rx.locked).
func (h *rx) lock(r *Reader) {
	if h.locked == r {
		return
	}
	h.release()
	r.lock()
	h.locked = r
}

// release releases the reader lock holds, delivering its samples.
func (h *rx) release() {
	if r := h.locked; r != nil {
		h.locked = nil
		r.unlock()
	}
}

// sawData counts the datagram in counters.dataIn, once, before its first
// sample is handed to a reader: a writer answering from the reader's
// callback then sends at once (Writer.idle).
func (h *rx) sawData() {
	if !h.data {
		h.data = true
		h.p.stats.dataIn.Add(1)
	}
}

// hold takes the participant's delivery role, if r is a user reader and
// the goroutine does not hold it yet, so that the reader's callbacks do
// not run concurrently with in-memory deliveries, and what they write to
// local readers is delivered once the datagram is handled.
func (h *rx) hold(r *Reader) {
	if !h.holding && !r.builtin {
		h.p.local.acquire()
		h.holding = true
	}
}

// input handles one datagram.
func (h *rx) input(b []byte) {
	hd, err := rtps.ParseHeader(b)
	if err != nil {
		h.p.stats.malformed.Add(1)
		return
	}
	h.answered, h.data = false, false
	h.route.ok = false
	clear(h.route.readers)
	if err := h.rcv.Parse(b, h); err != nil {
		h.p.stats.malformed.Add(1)
		h.p.log.Debug("dds: malformed message", "from", hd.Prefix, "err", err)
	}
	if hd.Prefix != h.p.prefix {
		h.p.renewLease(hd.Prefix, h.answered)
	}
	h.release()
	if h.holding {
		h.holding = false
		h.p.local.release()
	}
}

// readersFor returns the local readers a submessage from writer g to
// readerID is for: that reader, or every reader matched with g when
// readerID is ENTITYID_UNKNOWN.
func (p *Participant) readersFor(g rtps.GUID, readerID rtps.EntityID, dst []*Reader) []*Reader {
	switch g.Entity {
	case rtps.EntitySEDPPubWriter:
		return append(dst, p.sedpPubR)
	case rtps.EntitySEDPSubWriter:
		return append(dst, p.sedpSubR)
	case rtps.EntityWLPWriter:
		return append(dst, p.wlpR)
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	if readerID != rtps.EntityUnknown {
		if r := p.readers[readerID]; r != nil {
			dst = append(dst, r)
		}
		return dst
	}
	if re := p.remoteWriters[g]; re != nil {
		dst = append(dst, re.readers...)
	}
	return dst
}

// writerFor returns the local writer with id, or nil.
func (p *Participant) writerFor(id rtps.EntityID) *Writer {
	switch id {
	case rtps.EntitySEDPPubWriter:
		return p.sedpPubW
	case rtps.EntitySEDPSubWriter:
		return p.sedpSubW
	case rtps.EntityWLPWriter:
		return p.wlpW
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.writers[id]
}

func (h *rx) Data(c *rtps.Context, d *rtps.Data) {
	if d.WriterID == rtps.EntitySPDPWriter {
		h.release()
		h.p.onSPDP(c, d, h.src)
		return
	}
	h.answered = true
	h.sawData()
	g := rtps.GUID{Prefix: c.SourcePrefix, Entity: d.WriterID}
	rs := h.readersFor(g, d.ReaderID)
	for _, r := range rs {
		h.hold(r)
		if len(rs) == 1 && !r.builtin {
			h.lock(r)
			r.onDataLocked(g, c, d)
			continue
		}
		h.release()
		r.onData(g, c, d)
	}
}

func (h *rx) DataFrag(c *rtps.Context, d *rtps.DataFrag) {
	h.release()
	h.answered = true
	h.sawData()
	g := rtps.GUID{Prefix: c.SourcePrefix, Entity: d.WriterID}
	for _, r := range h.readersFor(g, d.ReaderID) {
		h.hold(r)
		r.onDataFrag(g, c, d)
	}
}

func (h *rx) Heartbeat(c *rtps.Context, hb *rtps.Heartbeat) {
	h.release()
	h.answered = true
	g := rtps.GUID{Prefix: c.SourcePrefix, Entity: hb.WriterID}
	for _, r := range h.readersFor(g, hb.ReaderID) {
		h.hold(r)
		r.onHeartbeat(g, hb)
	}
}

func (h *rx) Gap(c *rtps.Context, gp *rtps.Gap) {
	h.release()
	h.answered = true
	g := rtps.GUID{Prefix: c.SourcePrefix, Entity: gp.WriterID}
	for _, r := range h.readersFor(g, gp.ReaderID) {
		h.hold(r)
		r.onGap(g, gp)
	}
}

func (h *rx) HeartbeatFrag(c *rtps.Context, hf *rtps.HeartbeatFrag) {
	h.release()
	h.answered = true
	g := rtps.GUID{Prefix: c.SourcePrefix, Entity: hf.WriterID}
	for _, r := range h.readersFor(g, hf.ReaderID) {
		r.onHeartbeatFrag(g, hf)
	}
}

func (h *rx) AckNack(c *rtps.Context, a *rtps.AckNack) {
	h.release()
	h.answered = true
	if w := h.p.writerFor(a.WriterID); w != nil {
		w.onAckNack(rtps.GUID{Prefix: c.SourcePrefix, Entity: a.ReaderID}, a)
	}
}

func (h *rx) NackFrag(c *rtps.Context, n *rtps.NackFrag) {
	h.release()
	h.answered = true
	if w := h.p.writerFor(n.WriterID); w != nil {
		w.onNackFrag(rtps.GUID{Prefix: c.SourcePrefix, Entity: n.ReaderID}, n)
	}
}
