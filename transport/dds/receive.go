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
	if err := h.rcv.Parse(b, h); err != nil {
		h.p.stats.malformed.Add(1)
		h.p.log.Debug("dds: malformed message", "from", hd.Prefix, "err", err)
	}
	if hd.Prefix != h.p.prefix {
		h.p.renewLease(hd.Prefix, h.answered)
	}
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
		for _, r := range re.matchedR {
			dst = append(dst, r)
		}
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
		h.p.onSPDP(c, d, h.src)
		return
	}
	h.answered = true
	h.sawData()
	g := rtps.GUID{Prefix: c.SourcePrefix, Entity: d.WriterID}
	var buf [4]*Reader
	for _, r := range h.p.readersFor(g, d.ReaderID, buf[:0]) {
		h.hold(r)
		r.onData(g, c, d)
	}
}

func (h *rx) DataFrag(c *rtps.Context, d *rtps.DataFrag) {
	h.answered = true
	h.sawData()
	g := rtps.GUID{Prefix: c.SourcePrefix, Entity: d.WriterID}
	var buf [4]*Reader
	for _, r := range h.p.readersFor(g, d.ReaderID, buf[:0]) {
		h.hold(r)
		r.onDataFrag(g, c, d)
	}
}

func (h *rx) Heartbeat(c *rtps.Context, hb *rtps.Heartbeat) {
	h.answered = true
	g := rtps.GUID{Prefix: c.SourcePrefix, Entity: hb.WriterID}
	var buf [4]*Reader
	for _, r := range h.p.readersFor(g, hb.ReaderID, buf[:0]) {
		h.hold(r)
		r.onHeartbeat(g, hb)
	}
}

func (h *rx) Gap(c *rtps.Context, gp *rtps.Gap) {
	h.answered = true
	g := rtps.GUID{Prefix: c.SourcePrefix, Entity: gp.WriterID}
	var buf [4]*Reader
	for _, r := range h.p.readersFor(g, gp.ReaderID, buf[:0]) {
		h.hold(r)
		r.onGap(g, gp)
	}
}

func (h *rx) HeartbeatFrag(c *rtps.Context, hf *rtps.HeartbeatFrag) {
	h.answered = true
	g := rtps.GUID{Prefix: c.SourcePrefix, Entity: hf.WriterID}
	var buf [4]*Reader
	for _, r := range h.p.readersFor(g, hf.ReaderID, buf[:0]) {
		r.onHeartbeatFrag(g, hf)
	}
}

func (h *rx) AckNack(c *rtps.Context, a *rtps.AckNack) {
	h.answered = true
	if w := h.p.writerFor(a.WriterID); w != nil {
		w.onAckNack(rtps.GUID{Prefix: c.SourcePrefix, Entity: a.ReaderID}, a)
	}
}

func (h *rx) NackFrag(c *rtps.Context, n *rtps.NackFrag) {
	h.answered = true
	if w := h.p.writerFor(n.WriterID); w != nil {
		w.onNackFrag(rtps.GUID{Prefix: c.SourcePrefix, Entity: n.ReaderID}, n)
	}
}
