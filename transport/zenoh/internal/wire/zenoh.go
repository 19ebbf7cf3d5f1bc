package wire

import (
	"encoding"
	"fmt"
	"math"
)

// ZenohMessage is one of *Put, *Del, *Query, *Reply or *Err: the body of a
// PUSH, REQUEST or RESPONSE.
type ZenohMessage interface {
	encoding.BinaryAppender
	zenohMessage()
}

// Zenoh message flags.
const (
	// FlagTimestamp (T) tells that a PUT or DEL carries a timestamp.
	FlagTimestamp = Flag1
	// FlagEncoding (E) tells that a PUT or ERR carries an encoding.
	FlagEncoding = Flag2
	// FlagConsolidation (C) tells that a QUERY or REPLY carries a
	// consolidation mode.
	FlagConsolidation = Flag1
	// FlagParameters (P) tells that a QUERY carries parameters.
	FlagParameters = Flag2
)

// MaxPayloadLen is the largest payload the protocol can describe (z32).
const MaxPayloadLen = math.MaxUint32

// Consolidation is the reply consolidation mode of a QUERY or REPLY.
type Consolidation uint8

// Consolidation modes. ConsolidationAuto is the default and is not written.
const (
	ConsolidationAuto      Consolidation = 0
	ConsolidationNone      Consolidation = 1
	ConsolidationMonotonic Consolidation = 2
	ConsolidationLatest    Consolidation = 3
)

// Put is a PUT message: a sample with a payload.
type Put struct {
	// HasTimestamp tells whether a timestamp is present (T flag).
	HasTimestamp bool
	// Timestamp is the sample's timestamp.
	Timestamp Timestamp
	// Encoding is the payload encoding; the default is not written.
	Encoding Encoding
	// HasSourceInfo tells whether the source info extension (0x1) is
	// present.
	HasSourceInfo bool
	// SourceInfo identifies the producer.
	SourceInfo SourceInfo
	// Attachment is the attachment extension (0x3); nil means absent.
	// Decoded attachments alias the input.
	Attachment []byte
	// Exts holds other, non-mandatory extensions, unchanged.
	Exts []Extension
	// Payload is the sample's value; decoded payloads alias the input.
	Payload []byte
}

// Del is a DEL message: the deletion of a key.
type Del struct {
	// HasTimestamp tells whether a timestamp is present (T flag).
	HasTimestamp bool
	// Timestamp is the deletion's timestamp.
	Timestamp Timestamp
	// HasSourceInfo tells whether the source info extension (0x1) is
	// present.
	HasSourceInfo bool
	// SourceInfo identifies the producer.
	SourceInfo SourceInfo
	// Attachment is the attachment extension (0x2); nil means absent.
	Attachment []byte
	// Exts holds other, non-mandatory extensions, unchanged.
	Exts []Extension
}

// QueryBody is the value a QUERY may carry (extension 0x3).
type QueryBody struct {
	// Encoding is the payload encoding.
	Encoding Encoding
	// Payload is the value; decoded payloads alias the input.
	Payload []byte
}

// Query is a QUERY message, the body of a REQUEST.
type Query struct {
	// Consolidation is the requested consolidation (C flag when not
	// auto).
	Consolidation Consolidation
	// Parameters is the selector's parameters ("a=b;c=d"), written with
	// the P flag when not empty. Decoded parameters alias the input.
	Parameters []byte
	// HasSourceInfo tells whether the source info extension (0x1) is
	// present.
	HasSourceInfo bool
	// SourceInfo identifies the querier.
	SourceInfo SourceInfo
	// HasBody tells whether the query body extension (0x3) is present.
	HasBody bool
	// Body is the value sent with the query.
	Body QueryBody
	// Attachment is the attachment extension (0x5); nil means absent.
	Attachment []byte
	// Exts holds other, non-mandatory extensions, unchanged.
	Exts []Extension
}

// Reply is a REPLY message, the body of a RESPONSE: a PUT or DEL answering a
// query.
type Reply struct {
	// Consolidation is the consolidation mode (C flag when not auto).
	Consolidation Consolidation
	// Exts holds the extensions, unchanged.
	Exts []Extension
	// Body is *Put or *Del.
	Body ZenohMessage
}

// Err is an ERR message, the body of a RESPONSE: an error answering a query.
type Err struct {
	// Encoding is the payload encoding; the default is not written.
	Encoding Encoding
	// HasSourceInfo tells whether the source info extension (0x1) is
	// present.
	HasSourceInfo bool
	// SourceInfo identifies the responder.
	SourceInfo SourceInfo
	// Exts holds other, non-mandatory extensions, unchanged.
	Exts []Extension
	// Payload describes the error; decoded payloads alias the input.
	Payload []byte
}

func (*Put) zenohMessage()   {}
func (*Del) zenohMessage()   {}
func (*Query) zenohMessage() {}
func (*Reply) zenohMessage() {}
func (*Err) zenohMessage()   {}

// zscratch holds reusable zenoh message storage for a Decoder.
type zscratch struct {
	put   *Put
	del   *Del
	reply *Reply
	err   *Err
}

func (s *SourceInfo) appendTo(dst []byte) ([]byte, error) {
	dst, err := s.ID.appendNibbleID(dst, 0)
	if err != nil {
		return dst, err
	}
	dst = AppendZint(dst, uint64(s.EntityID))
	return AppendZint(dst, uint64(s.SN)), nil
}

func (r *reader) sourceInfo(body []byte) (SourceInfo, error) {
	var s SourceInfo
	sub := reader{b: body, lim: r.lim}
	var err error
	// The low nibble of the control byte is reserved and ignored.
	if s.ID, _, err = sub.nibbleID(); err != nil {
		return s, err
	}
	if s.EntityID, err = sub.z32(); err != nil {
		return s, err
	}
	if s.SN, err = sub.z32(); err != nil {
		return s, err
	}
	if sub.remaining() != 0 {
		return s, fmt.Errorf("%w: trailing bytes in source info", ErrInvalid)
	}
	return s, nil
}

func countTrue(n int, bs ...bool) int {
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// appendZExts writes source info, the attachment (with its id) and the
// other extensions, in that order.
func appendZExts(dst []byte, w *extWriter, hasSI bool, si *SourceInfo, attachKey byte, attach []byte, exts []Extension) ([]byte, error) {
	var err error
	if hasSI {
		if dst, err = appendZBufExt(dst, w.next(extSourceInfo), si.appendTo); err != nil {
			return dst, err
		}
	}
	if attach != nil {
		if dst, err = appendLenBytes(append(dst, w.next(attachKey)), attach, math.MaxUint32); err != nil {
			return dst, err
		}
	}
	for i := range exts {
		if dst, err = appendExt(dst, &exts[i], w.more()); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// AppendBinary appends the PUT message to dst.
func (m *Put) AppendBinary(dst []byte) ([]byte, error) {
	h := byte(IDPut)
	if m.HasTimestamp {
		h |= FlagTimestamp
	}
	if !m.Encoding.IsDefault() {
		h |= FlagEncoding
	}
	n := countTrue(len(m.Exts), m.HasSourceInfo, m.Attachment != nil)
	dst = append(dst, headerZ(h, n))
	var err error
	if m.HasTimestamp {
		if dst, err = m.Timestamp.appendTo(dst); err != nil {
			return dst, err
		}
	}
	if h&FlagEncoding != 0 {
		if dst, err = m.Encoding.appendTo(dst); err != nil {
			return dst, err
		}
	}
	w := extWriter{n: n}
	if dst, err = appendZExts(dst, &w, m.HasSourceInfo, &m.SourceInfo, extPutAttach, m.Attachment, m.Exts); err != nil {
		return dst, err
	}
	return appendLenBytes(dst, m.Payload, MaxPayloadLen)
}

// zExt decodes the source info and attachment extensions.
func (r *reader) zExt(key byte, e Extension, attachKey byte, hasSI *bool, si *SourceInfo, attach *[]byte) (bool, error) {
	switch key {
	case extSourceInfo:
		s, err := r.sourceInfo(e.Body)
		if err != nil {
			return false, err
		}
		*hasSI, *si = true, s
	case attachKey:
		*attach = e.Body
	default:
		return false, nil
	}
	return true, nil
}

func (r *reader) put(h byte, m *Put) error {
	exts := m.Exts[:0]
	*m = Put{}
	m.Exts = exts
	var err error
	if h&FlagTimestamp != 0 {
		m.HasTimestamp = true
		if m.Timestamp, err = r.timestamp(); err != nil {
			return err
		}
	}
	if h&FlagEncoding != 0 {
		if m.Encoding, err = r.encoding(); err != nil {
			return err
		}
	}
	if h&FlagZ != 0 {
		err = r.extChain(&m.Exts, false, func(key byte, e Extension) (bool, error) {
			return r.zExt(key, e, extPutAttach, &m.HasSourceInfo, &m.SourceInfo, &m.Attachment)
		})
		if err != nil {
			return err
		}
	}
	m.Payload, err = r.lenBytes(MaxPayloadLen, r.lim.MaxPayload)
	return err
}

// AppendBinary appends the DEL message to dst.
func (m *Del) AppendBinary(dst []byte) ([]byte, error) {
	h := byte(IDDel)
	if m.HasTimestamp {
		h |= FlagTimestamp
	}
	n := countTrue(len(m.Exts), m.HasSourceInfo, m.Attachment != nil)
	dst = append(dst, headerZ(h, n))
	var err error
	if m.HasTimestamp {
		if dst, err = m.Timestamp.appendTo(dst); err != nil {
			return dst, err
		}
	}
	w := extWriter{n: n}
	return appendZExts(dst, &w, m.HasSourceInfo, &m.SourceInfo, extDelAttach, m.Attachment, m.Exts)
}

func (r *reader) del(h byte, m *Del) error {
	*m = Del{Exts: m.Exts[:0]}
	var err error
	if h&FlagTimestamp != 0 {
		m.HasTimestamp = true
		if m.Timestamp, err = r.timestamp(); err != nil {
			return err
		}
	}
	if h&FlagZ == 0 {
		return nil
	}
	return r.extChain(&m.Exts, false, func(key byte, e Extension) (bool, error) {
		return r.zExt(key, e, extDelAttach, &m.HasSourceInfo, &m.SourceInfo, &m.Attachment)
	})
}

func (b *QueryBody) appendTo(dst []byte) ([]byte, error) {
	dst, err := b.Encoding.appendTo(dst)
	if err != nil {
		return dst, err
	}
	return append(dst, b.Payload...), nil
}

// AppendBinary appends the QUERY message to dst.
func (m *Query) AppendBinary(dst []byte) ([]byte, error) {
	if m.Consolidation > ConsolidationLatest {
		return dst, fmt.Errorf("%w: consolidation %d", ErrInvalid, m.Consolidation)
	}
	h := byte(IDQuery)
	if m.Consolidation != ConsolidationAuto {
		h |= FlagConsolidation
	}
	if len(m.Parameters) > 0 {
		h |= FlagParameters
	}
	n := countTrue(len(m.Exts), m.HasSourceInfo, m.HasBody, m.Attachment != nil)
	dst = append(dst, headerZ(h, n))
	if m.Consolidation != ConsolidationAuto {
		dst = AppendZint(dst, uint64(m.Consolidation))
	}
	var err error
	if len(m.Parameters) > 0 {
		if dst, err = appendLenBytes(dst, m.Parameters, math.MaxUint16); err != nil {
			return dst, err
		}
	}
	w := extWriter{n: n}
	if m.HasSourceInfo {
		if dst, err = appendZBufExt(dst, w.next(extSourceInfo), m.SourceInfo.appendTo); err != nil {
			return dst, err
		}
	}
	if m.HasBody {
		if dst, err = appendZBufExt(dst, w.next(extQueryBody), m.Body.appendTo); err != nil {
			return dst, err
		}
	}
	return appendZExts(dst, &w, false, nil, extQueryAttach, m.Attachment, m.Exts)
}

func (r *reader) consolidation() (Consolidation, error) {
	v, err := r.zint()
	if err != nil {
		return 0, err
	}
	if v > uint64(ConsolidationLatest) {
		return 0, fmt.Errorf("%w: consolidation %d", ErrInvalid, v)
	}
	return Consolidation(v), nil
}

func (r *reader) query(h byte, m *Query) error {
	*m = Query{Exts: m.Exts[:0]}
	var err error
	if h&FlagConsolidation != 0 {
		if m.Consolidation, err = r.consolidation(); err != nil {
			return err
		}
	}
	if h&FlagParameters != 0 {
		if m.Parameters, err = r.lenBytes(math.MaxUint16, r.lim.MaxPayload); err != nil {
			return err
		}
	}
	if h&FlagZ == 0 {
		return nil
	}
	return r.extChain(&m.Exts, false, func(key byte, e Extension) (bool, error) {
		if key == extQueryBody {
			sub := reader{b: e.Body, lim: r.lim}
			enc, err := sub.encoding()
			if err != nil {
				return false, err
			}
			m.HasBody = true
			m.Body = QueryBody{Encoding: enc, Payload: e.Body[sub.off:]}
			return true, nil
		}
		return r.zExt(key, e, extQueryAttach, &m.HasSourceInfo, &m.SourceInfo, &m.Attachment)
	})
}

// AppendBinary appends the REPLY message to dst.
func (m *Reply) AppendBinary(dst []byte) ([]byte, error) {
	switch m.Body.(type) {
	case *Put, *Del:
	default:
		return dst, fmt.Errorf("%w: REPLY body %T", ErrInvalid, m.Body)
	}
	if m.Consolidation > ConsolidationLatest {
		return dst, fmt.Errorf("%w: consolidation %d", ErrInvalid, m.Consolidation)
	}
	h := byte(IDReply)
	if m.Consolidation != ConsolidationAuto {
		h |= FlagConsolidation
	}
	dst = append(dst, headerZ(h, len(m.Exts)))
	if m.Consolidation != ConsolidationAuto {
		dst = AppendZint(dst, uint64(m.Consolidation))
	}
	dst, err := AppendExtensions(dst, m.Exts)
	if err != nil {
		return dst, err
	}
	return m.Body.AppendBinary(dst)
}

func (r *reader) reply(h byte, m *Reply, s *zscratch) error {
	*m = Reply{Exts: m.Exts[:0]}
	var err error
	if h&FlagConsolidation != 0 {
		if m.Consolidation, err = r.consolidation(); err != nil {
			return err
		}
	}
	if h&FlagZ != 0 {
		if err = r.extChain(&m.Exts, false, noKnownExt); err != nil {
			return err
		}
	}
	m.Body, err = r.pushBody(s)
	return err
}

// pushBody decodes a PUT or DEL into the scratch storage.
func (r *reader) pushBody(s *zscratch) (ZenohMessage, error) {
	h, err := r.u8()
	if err != nil {
		return nil, err
	}
	switch HeaderID(h) {
	case IDPut:
		return get(&s.put), r.put(h, get(&s.put))
	case IDDel:
		return get(&s.del), r.del(h, get(&s.del))
	}
	return nil, fmt.Errorf("%w: PUT or DEL expected, got %#02x", ErrUnknownMessage, h)
}

// AppendBinary appends the ERR message to dst.
func (m *Err) AppendBinary(dst []byte) ([]byte, error) {
	h := byte(IDErr)
	if !m.Encoding.IsDefault() {
		h |= FlagEncoding
	}
	n := countTrue(len(m.Exts), m.HasSourceInfo)
	dst = append(dst, headerZ(h, n))
	var err error
	if h&FlagEncoding != 0 {
		if dst, err = m.Encoding.appendTo(dst); err != nil {
			return dst, err
		}
	}
	w := extWriter{n: n}
	if dst, err = appendZExts(dst, &w, m.HasSourceInfo, &m.SourceInfo, 0, nil, m.Exts); err != nil {
		return dst, err
	}
	return appendLenBytes(dst, m.Payload, MaxPayloadLen)
}

func (r *reader) err(h byte, m *Err) error {
	*m = Err{Exts: m.Exts[:0]}
	var err error
	if h&FlagEncoding != 0 {
		if m.Encoding, err = r.encoding(); err != nil {
			return err
		}
	}
	if h&FlagZ != 0 {
		var none []byte
		err = r.extChain(&m.Exts, false, func(key byte, e Extension) (bool, error) {
			if key == extSourceInfo {
				return r.zExt(key, e, 0xff, &m.HasSourceInfo, &m.SourceInfo, &none)
			}
			return false, nil
		})
		if err != nil {
			return err
		}
	}
	m.Payload, err = r.lenBytes(MaxPayloadLen, r.lim.MaxPayload)
	return err
}
