package rtps

import (
	"fmt"
	"math"
)

// Builder appends one RTPS message, always little-endian, to a reusable
// buffer. Start each message with Reset, then add submessages. A submessage
// that cannot be encoded (one over 65535 bytes) is left out and recorded in
// Err; later submessages are still added. A Builder is not safe for
// concurrent use.
type Builder struct {
	buf []byte
	err error
	pl  PLWriter
}

// Reset starts a new message with header h, keeping the buffer's storage.
func (b *Builder) Reset(h Header) {
	b.buf = append(b.buf[:0], 'R', 'T', 'P', 'S', h.Version[0], h.Version[1], h.Vendor[0], h.Vendor[1])
	b.buf = append(b.buf, h.Prefix[:]...)
	b.err = nil
}

// Len returns the length of the message so far.
func (b *Builder) Len() int { return len(b.buf) }

// Bytes returns the message. It aliases the Builder's buffer, valid until
// the next Reset.
func (b *Builder) Bytes() []byte { return b.buf }

// Truncate drops everything after the first n bytes, such as a submessage
// that made the message too large for a datagram. n is a value Len returned
// after Reset.
func (b *Builder) Truncate(n int) {
	if n >= HeaderSize && n <= len(b.buf) {
		b.buf = b.buf[:n]
	}
}

// Err returns the first submessage that could not be encoded since Reset.
func (b *Builder) Err() error { return b.err }

// begin appends a submessage header and returns its offset.
func (b *Builder) begin(id, flags byte) int {
	off := len(b.buf)
	b.buf = append(b.buf, id, flags|flagE, 0, 0)
	return off
}

// end pads the submessage begun at off to 4 bytes and patches its length,
// or removes it if it is too long.
func (b *Builder) end(off int) {
	for len(b.buf)%4 != 0 {
		b.buf = append(b.buf, 0)
	}
	n := len(b.buf) - off - 4
	if n > math.MaxUint16 {
		id := b.buf[off]
		b.buf = b.buf[:off]
		if b.err == nil {
			b.err = fmt.Errorf("%w: submessage %#02x of %d bytes", ErrTooLarge, id, n)
		}
		return
	}
	b.buf[off+2], b.buf[off+3] = byte(n), byte(n>>8)
}

func (b *Builder) ids(r, w EntityID) {
	b.buf = append(b.buf, r[:]...)
	b.buf = append(b.buf, w[:]...)
}

// InfoDst appends INFO_DST for participant p.
func (b *Builder) InfoDst(p GuidPrefix) {
	b.buf = append(b.buf, idInfoDst, flagE, 12, 0)
	b.buf = append(b.buf, p[:]...)
}

// InfoTS appends INFO_TS with t, or with the invalidate flag if t is
// TimeInvalid.
func (b *Builder) InfoTS(t Time) {
	if t == TimeInvalid {
		b.buf = append(b.buf, idInfoTS, flagE|flagInvalidate, 0, 0)
		return
	}
	b.buf = append(b.buf, idInfoTS, flagE, 8, 0)
	b.buf = le32(b.buf, uint32(t.Sec))
	b.buf = le32(b.buf, t.Frac)
}

// InfoSrc appends INFO_SRC naming another source participant.
func (b *Builder) InfoSrc(v ProtocolVersion, vendor VendorID, p GuidPrefix) {
	b.buf = append(b.buf, idInfoSrc, flagE, 20, 0, 0, 0, 0, 0, v[0], v[1], vendor[0], vendor[1])
	b.buf = append(b.buf, p[:]...)
}

// Data appends a DATA submessage. d.InlineQoS, if not nil, is copied as is
// (little-endian, SENTINEL included); d.Payload, if not nil, is copied
// after it, with the K flag if d.Key, else the D flag.
func (b *Builder) Data(d *Data) { b.DataWith(d, nil) }

// DataWith appends a DATA submessage like Data, with inline QoS written by
// inline straight into the message: inline appends parameters to the
// PLWriter, and DataWith adds the SENTINEL. d.InlineQoS is copied before
// them, without its SENTINEL. A nil inline is Data.
func (b *Builder) DataWith(d *Data, inline func(*PLWriter)) {
	var flags byte
	if d.InlineQoS != nil || inline != nil {
		flags |= flagDataQ
	}
	if d.Payload != nil {
		if d.Key {
			flags |= flagDataK
		} else {
			flags |= flagDataD
		}
	}
	off := b.begin(idData, flags)
	b.buf = append(b.buf, 0, 0, dataOctetsToQoS, 0)
	b.ids(d.ReaderID, d.WriterID)
	b.buf = appendSN(b.buf, d.SN)
	if flags&flagDataQ != 0 {
		if !b.inlineQoS(d.InlineQoS, inline) {
			b.buf = b.buf[:off]
			return
		}
	}
	b.buf = append(b.buf, d.Payload...)
	b.end(off)
}

// inlineQoS appends raw (less its sentinel) and what inline writes, then a
// sentinel. It reports false, recording the error, if inline failed.
func (b *Builder) inlineQoS(raw []byte, inline func(*PLWriter)) bool {
	if raw != nil {
		if n, err := walkPL(raw, true, nil); err == nil {
			raw = raw[:n-4]
		}
		b.buf = append(b.buf, raw...)
	}
	if inline != nil {
		b.pl.Reset(b.buf)
		inline(&b.pl)
		b.buf = b.pl.buf
		b.pl.buf = nil
		if err := b.pl.err; err != nil {
			if b.err == nil {
				b.err = err
			}
			return false
		}
	}
	b.buf = append(b.buf, 1, 0, 0, 0)
	return true
}

// DataFrag appends a DATA_FRAG submessage carrying d.Payload, which should
// hold d.FragsInSubmsg fragments of d.FragSize bytes (the last fragment of
// the sample may be shorter).
func (b *Builder) DataFrag(d *DataFrag) { b.DataFragWith(d, nil) }

// DataFragWith is DataFrag with inline QoS written by inline, as DataWith.
func (b *Builder) DataFragWith(d *DataFrag, inline func(*PLWriter)) {
	off, ok := b.dataFragHead(d, inline)
	if !ok {
		return
	}
	b.buf = append(b.buf, d.Payload...)
	b.end(off)
}

// DataFragSplit appends the DATA_FRAG of d without its payload, for a
// sender that sends the payload from where it lies (a vectored send). The
// message is then Bytes()[:at], d.Payload, Bytes()[at:]: the bytes from at
// on are the padding that ends the submessage, then the submessages
// appended after it. DataFragSplit returns -1 if the submessage was left
// out (Err says why).
func (b *Builder) DataFragSplit(d *DataFrag) (at int) {
	off, ok := b.dataFragHead(d, nil)
	if !ok {
		return -1
	}
	at = len(b.buf)
	pad := (4 - (at+len(d.Payload))%4) % 4
	n := at - off - 4 + len(d.Payload) + pad
	if n > math.MaxUint16 {
		b.buf = b.buf[:off]
		if b.err == nil {
			b.err = fmt.Errorf("%w: submessage %#02x of %d bytes", ErrTooLarge, idDataFrag, n)
		}
		return -1
	}
	b.buf = append(b.buf, make([]byte, pad)...)
	b.buf[off+2], b.buf[off+3] = byte(n), byte(n>>8)
	return at
}

// dataFragHead appends a DATA_FRAG submessage up to its payload and
// returns its offset, or false if it was left out.
func (b *Builder) dataFragHead(d *DataFrag, inline func(*PLWriter)) (off int, ok bool) {
	var flags byte
	if d.InlineQoS != nil || inline != nil {
		flags |= flagDataQ
	}
	if d.Key {
		flags |= flagFragK
	}
	off = b.begin(idDataFrag, flags)
	b.buf = append(b.buf, 0, 0, fragOctetsToQoS, 0)
	b.ids(d.ReaderID, d.WriterID)
	b.buf = appendSN(b.buf, d.SN)
	b.buf = le32(b.buf, d.FragStart)
	b.buf = le16(b.buf, d.FragsInSubmsg)
	b.buf = le16(b.buf, d.FragSize)
	b.buf = le32(b.buf, d.SampleSize)
	if flags&flagDataQ != 0 {
		if !b.inlineQoS(d.InlineQoS, inline) {
			b.buf = b.buf[:off]
			return off, false
		}
	}
	return off, true
}

// Heartbeat appends a HEARTBEAT submessage.
func (b *Builder) Heartbeat(h *Heartbeat) {
	var flags byte
	if h.Final {
		flags |= flagFinal
	}
	if h.Liveliness {
		flags |= flagLiveliness
	}
	b.buf = append(b.buf, idHeartbeat, flags|flagE, 28, 0)
	b.ids(h.ReaderID, h.WriterID)
	b.buf = appendSN(b.buf, h.First)
	b.buf = appendSN(b.buf, h.Last)
	b.buf = le32(b.buf, h.Count)
}

// AckNack appends an ACKNACK submessage.
func (b *Builder) AckNack(a *AckNack) {
	var flags byte
	if a.Final {
		flags |= flagFinal
	}
	off := b.begin(idAckNack, flags)
	b.ids(a.ReaderID, a.WriterID)
	b.snSet(&a.State)
	b.buf = le32(b.buf, a.Count)
	b.end(off)
}

func (b *Builder) snSet(s *SNSet) {
	b.buf = appendSN(b.buf, s.Base)
	b.buf = le32(b.buf, min(s.NumBits, 256))
	for i := range s.words() {
		b.buf = le32(b.buf, s.Bits[i])
	}
}

// NackFrag appends a NACK_FRAG submessage.
func (b *Builder) NackFrag(n *NackFrag) {
	off := b.begin(idNackFrag, 0)
	b.ids(n.ReaderID, n.WriterID)
	b.buf = appendSN(b.buf, n.SN)
	b.buf = le32(b.buf, n.State.Base)
	b.buf = le32(b.buf, min(n.State.NumBits, 256))
	for i := range n.State.words() {
		b.buf = le32(b.buf, n.State.Bits[i])
	}
	b.buf = le32(b.buf, n.Count)
	b.end(off)
}

// HeartbeatFrag appends a HEARTBEAT_FRAG submessage.
func (b *Builder) HeartbeatFrag(h *HeartbeatFrag) {
	b.buf = append(b.buf, idHeartbeatFrag, flagE, 24, 0)
	b.ids(h.ReaderID, h.WriterID)
	b.buf = appendSN(b.buf, h.SN)
	b.buf = le32(b.buf, h.LastFrag)
	b.buf = le32(b.buf, h.Count)
}

// Gap appends a GAP submessage.
func (b *Builder) Gap(g *Gap) {
	off := b.begin(idGap, 0)
	b.ids(g.ReaderID, g.WriterID)
	b.buf = appendSN(b.buf, g.Start)
	b.snSet(&g.List)
	b.end(off)
}
