package rtps

import (
	"fmt"
)

// Receiver parses datagrams addressed to the participant Self, reusing its
// own storage so that parsing allocates nothing. The zero Receiver (Self
// zero) accepts submessages for every destination. A Receiver is not safe
// for concurrent use.
type Receiver struct {
	// Self is the local participant's prefix: submessages after an
	// INFO_DST naming another participant are skipped. Zero accepts all.
	Self GuidPrefix

	ctx  Context
	data Data
	frag DataFrag
	hb   Heartbeat
	an   AckNack
	nf   NackFrag
	hf   HeartbeatFrag
	gap  Gap
}

// Parse walks one datagram with a fresh Receiver that accepts every
// destination (the handler may check Context.DestPrefix). It allocates the
// Receiver; use Receiver.Parse on the hot path.
func Parse(msg []byte, h Handler) error {
	var r Receiver
	return r.Parse(msg, h)
}

// ParseHeader decodes the message header of msg. It fails with ErrNotRTPS
// unless msg starts with "RTPS" and protocol major version 2.
func ParseHeader(msg []byte) (Header, error) {
	var hd Header
	if len(msg) < HeaderSize || string(msg[:4]) != "RTPS" {
		return hd, fmt.Errorf("%w: no RTPS header", ErrNotRTPS)
	}
	if msg[4] != 2 {
		return hd, fmt.Errorf("%w: protocol version %d.%d", ErrNotRTPS, msg[4], msg[5])
	}
	hd.Version = ProtocolVersion{msg[4], msg[5]}
	hd.Vendor = VendorID{msg[6], msg[7]}
	copy(hd.Prefix[:], msg[8:20])
	return hd, nil
}

// Parse walks one datagram: it validates the header, then decodes each
// submessage in its own byte order, keeping the receiver state of INFO_TS,
// INFO_SRC, INFO_DST and INFO_REPLY(_IP4), and calls h for each entity
// submessage addressed to Self. PAD, vendor-specific (0x80-0xff) and unknown
// submessages are skipped. A malformed submessage stops the walk with an
// error wrapping ErrMalformed; what was delivered before stays delivered.
// The structs and slices passed to h alias msg and the Receiver.
func (r *Receiver) Parse(msg []byte, h Handler) error {
	hd, err := ParseHeader(msg)
	if err != nil {
		return err
	}
	c := &r.ctx
	// Field by field: clearing replyBuf would cost more than the parse.
	c.SourceVersion, c.SourceVendor, c.SourcePrefix = hd.Version, hd.Vendor, hd.Prefix
	c.DestPrefix, c.HaveTimestamp, c.Timestamp = GuidPrefix{}, false, Time{}
	c.UnicastReply, c.MulticastReply = nil, nil
	foreign := false // an INFO_DST named another participant
	for p := HeaderSize; p < len(msg); {
		if len(msg)-p < 4 {
			return fmt.Errorf("%w: %d trailing bytes at offset %d", ErrMalformed, len(msg)-p, p)
		}
		id, flags := msg[p], msg[p+1]
		le := flags&flagE != 0
		n := int(u16(msg[p+2:], le))
		start := p + 4
		var body []byte
		switch {
		case n == 0 && (id == idPad || id == idInfoTS):
			body = msg[start:start]
			p = start
		case n == 0:
			body = msg[start:]
			p = len(msg)
		case n > len(msg)-start:
			return fmt.Errorf("%w: submessage %#02x of %d bytes at offset %d overruns the %d-byte message", ErrMalformed, id, n, p, len(msg))
		default:
			body = msg[start : start+n]
			// Align to 4 as Fast DDS does when it seeks.
			p = min(start+(n+3)&^3, len(msg))
		}
		if err := r.submessage(id, flags, le, body, &foreign, h); err != nil {
			return fmt.Errorf("%w (submessage %#02x at offset %d)", err, id, start-4)
		}
	}
	return nil
}

// submessage decodes one submessage body.
func (r *Receiver) submessage(id, flags byte, le bool, b []byte, foreign *bool, h Handler) error {
	c := &r.ctx
	switch id {
	case idInfoTS:
		if flags&flagInvalidate != 0 {
			c.HaveTimestamp = false
			return nil
		}
		if len(b) < 8 {
			return errShort("INFO_TS", len(b))
		}
		c.HaveTimestamp, c.Timestamp = true, timeAt(b, le)
	case idInfoDst:
		if len(b) < 12 {
			return errShort("INFO_DST", len(b))
		}
		c.DestPrefix = GuidPrefix(b[:12])
		*foreign = c.DestPrefix != (GuidPrefix{}) && r.Self != (GuidPrefix{}) && c.DestPrefix != r.Self
	case idInfoSrc:
		if len(b) < 20 {
			return errShort("INFO_SRC", len(b))
		}
		c.SourceVersion = ProtocolVersion{b[4], b[5]}
		c.SourceVendor = VendorID{b[6], b[7]}
		c.SourcePrefix = GuidPrefix(b[8:20])
		c.HaveTimestamp = false
		c.UnicastReply, c.MulticastReply = nil, nil
	case idInfoReply:
		return r.infoReply(flags, le, b)
	case idInfoReplyIP4:
		return r.infoReplyIP4(flags, le, b)
	case idData, idDataFrag, idHeartbeat, idAckNack, idNackFrag, idHeartbeatFrag, idGap:
		if *foreign {
			return nil
		}
		return r.entity(id, flags, le, b, h)
	}
	// PAD, vendor-specific and unknown submessages are skipped.
	return nil
}

func errShort(what string, n int) error {
	return fmt.Errorf("%w: %s body of %d bytes", ErrMalformed, what, n)
}

func (r *Receiver) infoReply(flags byte, le bool, b []byte) error {
	c := &r.ctx
	c.UnicastReply, c.MulticastReply = nil, nil
	uc, rest, err := r.locatorList(b, le, r.ctx.replyBuf[:0:MaxReplyLocators])
	if err != nil {
		return err
	}
	c.UnicastReply = uc
	if flags&flagReplyMulti != 0 {
		mc, _, err := r.locatorList(rest, le, r.ctx.replyBuf[MaxReplyLocators:MaxReplyLocators:2*MaxReplyLocators])
		if err != nil {
			return err
		}
		c.MulticastReply = mc
	}
	return nil
}

// locatorList decodes a LocatorList, keeping at most cap(dst) locators.
func (r *Receiver) locatorList(b []byte, le bool, dst []Locator) ([]Locator, []byte, error) {
	if len(b) < 4 {
		return nil, nil, errShort("INFO_REPLY", len(b))
	}
	n := uint64(u32(b, le))
	b = b[4:]
	if n*24 > uint64(len(b)) {
		return nil, nil, fmt.Errorf("%w: INFO_REPLY with %d locators in %d bytes", ErrMalformed, n, len(b))
	}
	for i := range int(n) {
		if len(dst) < cap(dst) {
			dst = append(dst, locatorAt(b[i*24:], le))
		}
	}
	return dst, b[n*24:], nil
}

func (r *Receiver) infoReplyIP4(flags byte, le bool, b []byte) error {
	c := &r.ctx
	need := 8
	if flags&flagReplyMulti != 0 {
		need = 16
	}
	if len(b) < need {
		return errShort("INFO_REPLY_IP4", len(b))
	}
	ip4 := func(b []byte) Locator {
		a := u32(b, le)
		l := Locator{Kind: LocatorKindUDPv4, Port: u32(b[4:], le)}
		l.Addr[12], l.Addr[13], l.Addr[14], l.Addr[15] = byte(a>>24), byte(a>>16), byte(a>>8), byte(a)
		return l
	}
	c.replyBuf[0] = ip4(b)
	c.UnicastReply, c.MulticastReply = c.replyBuf[:1:1], nil
	if need == 16 {
		c.replyBuf[MaxReplyLocators] = ip4(b[8:])
		c.MulticastReply = c.replyBuf[MaxReplyLocators : MaxReplyLocators+1 : MaxReplyLocators+1]
	}
	return nil
}

// entity decodes an entity submessage and hands it to h.
func (r *Receiver) entity(id, flags byte, le bool, b []byte, h Handler) error {
	c := &r.ctx
	switch id {
	case idData:
		d := &r.data
		if err := parseData(d, flags, le, b); err != nil {
			return err
		}
		h.Data(c, d)
	case idDataFrag:
		d := &r.frag
		if err := parseDataFrag(d, flags, le, b); err != nil {
			return err
		}
		h.DataFrag(c, d)
	case idHeartbeat:
		if len(b) < 28 {
			return errShort("HEARTBEAT", len(b))
		}
		hb := &r.hb
		*hb = Heartbeat{
			ReaderID: EntityID(b[0:4]), WriterID: EntityID(b[4:8]),
			First: seqNum(b[8:], le), Last: seqNum(b[16:], le), Count: u32(b[24:], le),
			Final: flags&flagFinal != 0, Liveliness: flags&flagLiveliness != 0,
		}
		if hb.First < 1 || hb.Last < hb.First-1 {
			return fmt.Errorf("%w: HEARTBEAT first %d last %d", ErrMalformed, hb.First, hb.Last)
		}
		h.Heartbeat(c, hb)
	case idAckNack:
		a := &r.an
		if len(b) < 8 {
			return errShort("ACKNACK", len(b))
		}
		a.ReaderID, a.WriterID = EntityID(b[0:4]), EntityID(b[4:8])
		rest, err := parseSNSet(&a.State, b[8:], le)
		if err != nil {
			return err
		}
		if len(rest) < 4 {
			return errShort("ACKNACK", len(b))
		}
		a.Count, a.Final = u32(rest, le), flags&flagFinal != 0
		h.AckNack(c, a)
	case idNackFrag:
		nf := &r.nf
		if len(b) < 16 {
			return errShort("NACK_FRAG", len(b))
		}
		nf.ReaderID, nf.WriterID, nf.SN = EntityID(b[0:4]), EntityID(b[4:8]), seqNum(b[8:], le)
		if nf.SN < 1 {
			return fmt.Errorf("%w: NACK_FRAG sn %d", ErrMalformed, nf.SN)
		}
		rest, err := parseFNSet(&nf.State, b[16:], le)
		if err != nil {
			return err
		}
		if len(rest) < 4 {
			return errShort("NACK_FRAG", len(b))
		}
		nf.Count = u32(rest, le)
		h.NackFrag(c, nf)
	case idHeartbeatFrag:
		if len(b) < 24 {
			return errShort("HEARTBEAT_FRAG", len(b))
		}
		hf := &r.hf
		*hf = HeartbeatFrag{
			ReaderID: EntityID(b[0:4]), WriterID: EntityID(b[4:8]), SN: seqNum(b[8:], le),
			LastFrag: u32(b[16:], le), Count: u32(b[20:], le),
		}
		if hf.SN < 1 {
			return fmt.Errorf("%w: HEARTBEAT_FRAG sn %d", ErrMalformed, hf.SN)
		}
		h.HeartbeatFrag(c, hf)
	case idGap:
		g := &r.gap
		if len(b) < 16 {
			return errShort("GAP", len(b))
		}
		g.ReaderID, g.WriterID, g.Start = EntityID(b[0:4]), EntityID(b[4:8]), seqNum(b[8:], le)
		if _, err := parseSNSet(&g.List, b[16:], le); err != nil {
			return err
		}
		if g.Start < 1 || g.List.Base < g.Start {
			return fmt.Errorf("%w: GAP start %d base %d", ErrMalformed, g.Start, g.List.Base)
		}
		h.Gap(c, g)
	}
	return nil
}

// parseSNSet decodes a SequenceNumberSet and returns the bytes after it.
func parseSNSet(s *SNSet, b []byte, le bool) ([]byte, error) {
	if len(b) < 12 {
		return nil, errShort("SequenceNumberSet", len(b))
	}
	s.Base, s.NumBits = seqNum(b, le), u32(b[8:], le)
	if s.Base < 0 || s.NumBits > 256 {
		return nil, fmt.Errorf("%w: SequenceNumberSet base %d numBits %d", ErrMalformed, s.Base, s.NumBits)
	}
	w := s.words()
	b = b[12:]
	if len(b) < 4*w {
		return nil, errShort("SequenceNumberSet", len(b))
	}
	s.Bits = [8]uint32{}
	for i := range w {
		s.Bits[i] = u32(b[4*i:], le)
	}
	s.clearTail()
	return b[4*w:], nil
}

// parseFNSet decodes a FragmentNumberSet and returns the bytes after it.
func parseFNSet(s *FNSet, b []byte, le bool) ([]byte, error) {
	if len(b) < 8 {
		return nil, errShort("FragmentNumberSet", len(b))
	}
	s.Base, s.NumBits = u32(b, le), u32(b[4:], le)
	if s.Base < 1 || s.NumBits > 256 {
		return nil, fmt.Errorf("%w: FragmentNumberSet base %d numBits %d", ErrMalformed, s.Base, s.NumBits)
	}
	w := s.words()
	b = b[8:]
	if len(b) < 4*w {
		return nil, errShort("FragmentNumberSet", len(b))
	}
	s.Bits = [8]uint32{}
	for i := range w {
		s.Bits[i] = u32(b[4*i:], le)
	}
	s.clearTail()
	return b[4*w:], nil
}

// parseData decodes a DATA body into d.
func parseData(d *Data, flags byte, le bool, b []byte) error {
	if len(b) < dataFixedLen {
		return errShort("DATA", len(b))
	}
	q := 4 + int(u16(b[2:], le))
	if q < dataFixedLen || q > len(b) {
		return fmt.Errorf("%w: DATA octetsToInlineQos %d in %d bytes", ErrMalformed, q-4, len(b))
	}
	*d = Data{
		ReaderID: EntityID(b[4:8]), WriterID: EntityID(b[8:12]), SN: seqNum(b[12:], le),
		Key: flags&flagDataK != 0, LittleEndian: le,
	}
	if d.SN < 1 {
		return fmt.Errorf("%w: DATA sn %d", ErrMalformed, d.SN)
	}
	b = b[q:]
	if flags&flagDataQ != 0 {
		n, err := walkPL(b, le, nil)
		if err != nil {
			return fmt.Errorf("DATA inline QoS: %w", err)
		}
		d.InlineQoS, b = b[:n:n], b[n:]
	}
	if flags&(flagDataD|flagDataK) != 0 {
		d.Payload = b
	}
	return nil
}

// parseDataFrag decodes a DATA_FRAG body into d, trimming the payload to
// the fragments it announces.
func parseDataFrag(d *DataFrag, flags byte, le bool, b []byte) error {
	if len(b) < dataFragFixedLen {
		return errShort("DATA_FRAG", len(b))
	}
	q := 4 + int(u16(b[2:], le))
	if q < dataFragFixedLen || q > len(b) {
		return fmt.Errorf("%w: DATA_FRAG octetsToInlineQos %d in %d bytes", ErrMalformed, q-4, len(b))
	}
	*d = DataFrag{
		ReaderID: EntityID(b[4:8]), WriterID: EntityID(b[8:12]), SN: seqNum(b[12:], le),
		FragStart: u32(b[20:], le), FragsInSubmsg: u16(b[24:], le), FragSize: u16(b[26:], le),
		SampleSize: u32(b[28:], le), Key: flags&flagFragK != 0, LittleEndian: le,
	}
	if d.SN < 1 || d.FragStart < 1 || d.FragsInSubmsg < 1 || d.FragSize < 1 {
		return fmt.Errorf("%w: DATA_FRAG sn %d start %d count %d size %d", ErrMalformed, d.SN, d.FragStart, d.FragsInSubmsg, d.FragSize)
	}
	off := uint64(d.FragStart-1) * uint64(d.FragSize)
	if off >= uint64(d.SampleSize) {
		return fmt.Errorf("%w: DATA_FRAG fragment %d of size %d past sample size %d", ErrMalformed, d.FragStart, d.FragSize, d.SampleSize)
	}
	b = b[q:]
	if flags&flagDataQ != 0 {
		n, err := walkPL(b, le, nil)
		if err != nil {
			return fmt.Errorf("DATA_FRAG inline QoS: %w", err)
		}
		d.InlineQoS, b = b[:n:n], b[n:]
	}
	want := min(uint64(d.FragsInSubmsg)*uint64(d.FragSize), uint64(d.SampleSize)-off)
	if uint64(len(b)) < want {
		return fmt.Errorf("%w: DATA_FRAG carries %d bytes, announces %d", ErrMalformed, len(b), want)
	}
	d.Payload = b[:want:want]
	return nil
}
