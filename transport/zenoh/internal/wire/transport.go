package wire

import (
	"encoding"
	"fmt"
	"math"
	"time"
)

// TransportMessage is one of *Init, *Open, *Close, *KeepAlive, *Frame,
// *Fragment or *TransportOAM.
type TransportMessage interface {
	encoding.BinaryAppender
	transportMessage()
}

// Transport message flags (bits 5 and 6 of the header).
const (
	// FlagInitAck (A) marks an INIT ack.
	FlagInitAck = Flag1
	// FlagInitSize (S) marks an INIT carrying resolution and batch size.
	FlagInitSize = Flag2
	// FlagOpenAck (A) marks an OPEN ack.
	FlagOpenAck = Flag1
	// FlagOpenSeconds (T) marks an OPEN lease expressed in seconds.
	FlagOpenSeconds = Flag2
	// FlagCloseSession (S) marks a CLOSE of the whole session.
	FlagCloseSession = Flag1
	// FlagReliable (R) marks a FRAME or FRAGMENT on the reliable channel.
	FlagReliable = Flag1
	// FlagFragmentMore (M) marks a FRAGMENT that is not the last one.
	FlagFragmentMore = Flag2
)

// Resolution is the INIT byte giving the bit width of frame sequence
// numbers (bits 0-1) and request ids (bits 2-3): 0b00 8, 0b01 16, 0b10 32,
// 0b11 64 bits.
type Resolution uint8

// DefaultResolution is 32-bit frame sequence numbers and 32-bit request ids,
// assumed when an INIT has no S flag.
const DefaultResolution Resolution = 0x0a

// FrameSNBits returns the bit width of frame sequence numbers.
func (r Resolution) FrameSNBits() uint { return 8 << (r & 0x03) }

// RequestIDBits returns the bit width of request ids.
func (r Resolution) RequestIDBits() uint { return 8 << (r >> 2 & 0x03) }

// DefaultBatchSize is the batch size assumed when an INIT has no S flag.
const DefaultBatchSize = MaxBatchSize

// Init is an INIT message (syn or ack), the first step of the handshake.
type Init struct {
	// Ack marks an InitAck (A flag).
	Ack bool
	// Version is the protocol version, ProtoVersion for this package.
	Version uint8
	// WhatAmI is the sender's role.
	WhatAmI WhatAmI
	// ZID is the sender's Zenoh ID.
	ZID ZenohID
	// Resolution is the proposed (syn) or agreed (ack) sequence number
	// resolution. The S flag is written only when Resolution or BatchSize
	// differs from its default; a decoded INIT without S holds the defaults.
	Resolution Resolution
	// BatchSize is the largest batch the sender accepts.
	BatchSize uint16
	// Cookie is the opaque state of an InitAck, echoed in OpenSyn. It is
	// only encoded and decoded for acks.
	Cookie []byte
	// Patch is the patch extension (0x7): 0 means absent (plain 1.0.0),
	// 1 or more announces FRAGMENT first/drop markers.
	Patch uint64
	// Exts holds the other extensions (QoS, Shm, Auth, ...), unchanged.
	Exts []Extension
}

// Open is an OPEN message (syn or ack), the second step of the handshake.
type Open struct {
	// Ack marks an OpenAck (A flag).
	Ack bool
	// Lease is the sender's lease. It is written in seconds (T flag) when
	// it is a whole number of seconds, in milliseconds otherwise.
	Lease time.Duration
	// InitialSN is the first frame sequence number the sender will use.
	InitialSN uint64
	// Cookie is the InitAck cookie echoed by an OpenSyn (absent in acks).
	Cookie []byte
	// Exts holds the extensions (QoS, Shm, Auth, ...), unchanged.
	Exts []Extension
}

// Close reasons.
const (
	CloseGeneric          = 0x00
	CloseUnsupported      = 0x01
	CloseInvalid          = 0x02
	CloseMaxSessions      = 0x03
	CloseMaxLinks         = 0x04
	CloseExpired          = 0x05
	CloseUnresponsive     = 0x06
	CloseConnectionToSelf = 0x07
)

// Close is a CLOSE message.
type Close struct {
	// Session closes the whole session (S flag), not just the link.
	Session bool
	// Reason is one of the Close* reasons.
	Reason uint8
	// Exts holds the extensions, unchanged.
	Exts []Extension
}

// KeepAlive is a KEEP_ALIVE message.
type KeepAlive struct {
	// Exts holds the extensions, unchanged.
	Exts []Extension
}

// Frame is a FRAME message: a sequence number and the network messages that
// follow it up to the next transport message or the end of the batch.
type Frame struct {
	// Reliable marks the reliable channel (R flag).
	Reliable bool
	// SN is the frame sequence number.
	SN uint64
	// HasQoS tells whether the QoS extension (mandatory, 0x1) is present;
	// it is only sent when QoS was negotiated.
	HasQoS bool
	// Priority is the priority of the QoS extension.
	Priority Priority
	// Exts holds other, non-mandatory extensions, unchanged.
	Exts []Extension
	// Messages are the network messages of the frame. AppendBinary writes
	// them after the header; DecodeTransport fills them. A Decoder leaves
	// this empty and returns the messages one by one from NextNetwork.
	Messages []NetworkMessage
}

// Fragment is a FRAGMENT message: part of a network message too large for a
// batch.
type Fragment struct {
	// Reliable marks the reliable channel (R flag).
	Reliable bool
	// More tells that more fragments follow (M flag).
	More bool
	// SN is the frame sequence number.
	SN uint64
	// HasQoS tells whether the QoS extension (mandatory, 0x1) is present.
	HasQoS bool
	// Priority is the priority of the QoS extension.
	Priority Priority
	// First marks the first fragment of a message (extension 0x2, patch
	// 1 and later).
	First bool
	// Drop tells the receiver to drop the message being reassembled
	// (extension 0x3, patch 1 and later).
	Drop bool
	// Exts holds other, non-mandatory extensions, unchanged.
	Exts []Extension
	// Payload is the fragment's bytes, up to the end of the batch. Decoded
	// payloads alias the input.
	Payload []byte
}

// TransportOAM is a transport-level OAM (operations and management)
// message, kept as an opaque body.
type TransportOAM struct {
	// ID identifies the OAM message.
	ID uint16
	// Encoding tells which of Value or Body is meaningful.
	Encoding ExtEncoding
	// Value is the body of an ExtZ64 OAM.
	Value uint64
	// Body is the body of an ExtZBuf OAM; decoded bodies alias the input.
	Body []byte
	// Exts holds the extensions, unchanged, including the mandatory QoS
	// extension (0x31) when present.
	Exts []Extension
}

func (*Init) transportMessage()         {}
func (*Open) transportMessage()         {}
func (*Close) transportMessage()        {}
func (*KeepAlive) transportMessage()    {}
func (*Frame) transportMessage()        {}
func (*Fragment) transportMessage()     {}
func (*TransportOAM) transportMessage() {}

// appendHeaderExts appends header h (with Z set when exts is not empty).
func headerZ(h byte, n int) byte {
	if n > 0 {
		h |= FlagZ
	}
	return h
}

// AppendBinary appends the INIT message to dst.
func (m *Init) AppendBinary(dst []byte) ([]byte, error) {
	h := byte(IDInit)
	if m.Ack {
		h |= FlagInitAck
	}
	size := m.Resolution != DefaultResolution || m.BatchSize != DefaultBatchSize
	if size {
		h |= FlagInitSize
	}
	n := len(m.Exts)
	if m.Patch != 0 {
		n++
	}
	if m.WhatAmI > Client {
		return dst, fmt.Errorf("%w: whatami %d", ErrInvalid, m.WhatAmI)
	}
	dst = append(dst, headerZ(h, n), m.Version)
	dst, err := m.ZID.appendNibbleID(dst, byte(m.WhatAmI))
	if err != nil {
		return dst, err
	}
	if size {
		dst = append(dst, byte(m.Resolution), byte(m.BatchSize), byte(m.BatchSize>>8))
	}
	if m.Ack {
		if dst, err = appendLenBytes(dst, m.Cookie, math.MaxUint16); err != nil {
			return dst, err
		}
	}
	w := extWriter{n: n}
	for i := range m.Exts {
		if dst, err = appendExt(dst, &m.Exts[i], w.more()); err != nil {
			return dst, err
		}
	}
	if m.Patch != 0 {
		dst = AppendZint(append(dst, w.next(extZ64Patch)), m.Patch)
	}
	return dst, nil
}

// node reads the version byte, then the Zenoh ID and role that INIT and
// HELLO carry after it.
func (r *reader) node() (version byte, zid ZenohID, w WhatAmI, err error) {
	if version, err = r.u8(); err != nil {
		return 0, zid, 0, err
	}
	var low byte
	if zid, low, err = r.nibbleID(); err != nil {
		return 0, zid, 0, err
	}
	// Bits 2-3 are reserved and ignored, as the reference implementation
	// does; 0b11 is no role.
	if low&0x03 == 0x03 {
		return 0, zid, 0, fmt.Errorf("%w: whatami bits %#x", ErrInvalid, low)
	}
	return version, zid, WhatAmI(low & 0x03), nil
}

func (r *reader) init(h byte, m *Init) error {
	*m = Init{Ack: h&FlagInitAck != 0, Exts: m.Exts[:0]}
	var err error
	if m.Version, m.ZID, m.WhatAmI, err = r.node(); err != nil {
		return err
	}
	m.Resolution, m.BatchSize = DefaultResolution, DefaultBatchSize
	if h&FlagInitSize != 0 {
		b, err := r.bytes(3)
		if err != nil {
			return err
		}
		m.Resolution = Resolution(b[0])
		m.BatchSize = uint16(b[1]) | uint16(b[2])<<8
	}
	if m.Ack {
		if m.Cookie, err = r.lenBytes(math.MaxUint16, r.lim.MaxPayload); err != nil {
			return err
		}
	}
	if h&FlagZ == 0 {
		return nil
	}
	return r.extChain(&m.Exts, true, func(key byte, e Extension) (bool, error) {
		if key == extZ64Patch {
			m.Patch = e.Value
			return true, nil
		}
		return false, nil
	})
}

// AppendBinary appends the OPEN message to dst.
func (m *Open) AppendBinary(dst []byte) ([]byte, error) {
	if m.Lease < 0 {
		return dst, fmt.Errorf("%w: negative lease", ErrInvalid)
	}
	h := byte(IDOpen)
	if m.Ack {
		h |= FlagOpenAck
	}
	lease := uint64(m.Lease / time.Millisecond)
	if m.Lease%time.Second == 0 {
		h |= FlagOpenSeconds
		lease = uint64(m.Lease / time.Second)
	}
	dst = append(dst, headerZ(h, len(m.Exts)))
	dst = AppendZint(dst, lease)
	dst = AppendZint(dst, m.InitialSN)
	var err error
	if !m.Ack {
		if dst, err = appendLenBytes(dst, m.Cookie, math.MaxUint16); err != nil {
			return dst, err
		}
	}
	return AppendExtensions(dst, m.Exts)
}

func (r *reader) open(h byte, m *Open) error {
	*m = Open{Ack: h&FlagOpenAck != 0, Exts: m.Exts[:0]}
	lease, err := r.zint()
	if err != nil {
		return err
	}
	unit := time.Millisecond
	if h&FlagOpenSeconds != 0 {
		unit = time.Second
	}
	if lease > uint64(math.MaxInt64/int64(unit)) {
		return fmt.Errorf("%w: lease %d", ErrOverflow, lease)
	}
	m.Lease = time.Duration(lease) * unit
	if m.InitialSN, err = r.zint(); err != nil {
		return err
	}
	if !m.Ack {
		if m.Cookie, err = r.lenBytes(math.MaxUint16, r.lim.MaxPayload); err != nil {
			return err
		}
	}
	if h&FlagZ == 0 {
		return nil
	}
	return r.extChain(&m.Exts, true, noKnownExt)
}

// noKnownExt handles no extension: every one is kept or rejected.
func noKnownExt(byte, Extension) (bool, error) { return false, nil }

// AppendBinary appends the CLOSE message to dst.
func (m *Close) AppendBinary(dst []byte) ([]byte, error) {
	h := byte(IDClose)
	if m.Session {
		h |= FlagCloseSession
	}
	dst = append(dst, headerZ(h, len(m.Exts)), m.Reason)
	return AppendExtensions(dst, m.Exts)
}

func (r *reader) close(h byte, m *Close) error {
	*m = Close{Session: h&FlagCloseSession != 0, Exts: m.Exts[:0]}
	var err error
	if m.Reason, err = r.u8(); err != nil {
		return err
	}
	if h&FlagZ == 0 {
		return nil
	}
	return r.extChain(&m.Exts, false, noKnownExt)
}

// AppendBinary appends the KEEP_ALIVE message to dst.
func (m *KeepAlive) AppendBinary(dst []byte) ([]byte, error) {
	dst = append(dst, headerZ(IDKeepAlive, len(m.Exts)))
	return AppendExtensions(dst, m.Exts)
}

func (r *reader) keepAlive(h byte, m *KeepAlive) error {
	*m = KeepAlive{Exts: m.Exts[:0]}
	if h&FlagZ == 0 {
		return nil
	}
	return r.extChain(&m.Exts, false, noKnownExt)
}

// appendFrameExts writes the QoS extension and the other extensions of a
// FRAME or FRAGMENT, then the First and Drop markers.
func appendFrameExts(dst []byte, hasQoS bool, p Priority, exts []Extension, first, drop bool) ([]byte, error) {
	n := len(exts)
	for _, b := range [...]bool{hasQoS, first, drop} {
		if b {
			n++
		}
	}
	w := extWriter{n: n}
	if hasQoS {
		dst = AppendZint(append(dst, w.next(extFrameQoS)), uint64(p&0x07))
	}
	var err error
	for i := range exts {
		if dst, err = appendExt(dst, &exts[i], w.more()); err != nil {
			return dst, err
		}
	}
	if first {
		dst = append(dst, w.next(extFragFirst))
	}
	if drop {
		dst = append(dst, w.next(extFragDrop))
	}
	return dst, nil
}

// AppendFrameHeader appends the header of a FRAME (without messages): the
// session then appends network messages until the batch is full.
func AppendFrameHeader(dst []byte, reliable bool, sn uint64) []byte {
	h := byte(IDFrame)
	if reliable {
		h |= FlagReliable
	}
	return AppendZint(append(dst, h), sn)
}

// AppendBinary appends the FRAME header and its Messages to dst.
func (m *Frame) AppendBinary(dst []byte) ([]byte, error) {
	h := byte(IDFrame)
	if m.Reliable {
		h |= FlagReliable
	}
	n := len(m.Exts)
	if m.HasQoS {
		n++
	}
	dst = AppendZint(append(dst, headerZ(h, n)), m.SN)
	dst, err := appendFrameExts(dst, m.HasQoS, m.Priority, m.Exts, false, false)
	if err != nil {
		return dst, err
	}
	for _, nm := range m.Messages {
		if nm == nil {
			return dst, fmt.Errorf("%w: nil network message", ErrInvalid)
		}
		if dst, err = nm.AppendBinary(dst); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// frameHeader decodes a FRAME header; the caller walks the messages.
func (r *reader) frameHeader(h byte, m *Frame) error {
	*m = Frame{Reliable: h&FlagReliable != 0, Exts: m.Exts[:0], Messages: m.Messages[:0]}
	var err error
	if m.SN, err = r.zint(); err != nil {
		return err
	}
	if h&FlagZ == 0 {
		return nil
	}
	return r.extChain(&m.Exts, false, func(key byte, e Extension) (bool, error) {
		if key == extFrameQoS {
			m.HasQoS, m.Priority = true, Priority(e.Value&0x07)
			return true, nil
		}
		return false, nil
	})
}

// AppendBinary appends the FRAGMENT message to dst.
func (m *Fragment) AppendBinary(dst []byte) ([]byte, error) {
	h := byte(IDFragment)
	if m.Reliable {
		h |= FlagReliable
	}
	if m.More {
		h |= FlagFragmentMore
	}
	n := len(m.Exts)
	for _, b := range [...]bool{m.HasQoS, m.First, m.Drop} {
		if b {
			n++
		}
	}
	dst = AppendZint(append(dst, headerZ(h, n)), m.SN)
	dst, err := appendFrameExts(dst, m.HasQoS, m.Priority, m.Exts, m.First, m.Drop)
	if err != nil {
		return dst, err
	}
	return append(dst, m.Payload...), nil
}

func (r *reader) fragment(h byte, m *Fragment) error {
	*m = Fragment{Reliable: h&FlagReliable != 0, More: h&FlagFragmentMore != 0, Exts: m.Exts[:0]}
	var err error
	if m.SN, err = r.zint(); err != nil {
		return err
	}
	if h&FlagZ != 0 {
		err = r.extChain(&m.Exts, false, func(key byte, e Extension) (bool, error) {
			switch key {
			case extFrameQoS:
				m.HasQoS, m.Priority = true, Priority(e.Value&0x07)
			case extFragFirst:
				m.First = true
			case extFragDrop:
				m.Drop = true
			default:
				return false, nil
			}
			return true, nil
		})
		if err != nil {
			return err
		}
	}
	if r.remaining() > r.lim.MaxFragment {
		return fmt.Errorf("%w: fragment of %d bytes > %d", ErrLimit, r.remaining(), r.lim.MaxFragment)
	}
	m.Payload, err = r.bytes(r.remaining())
	return err
}

// oamHeaderEnc maps an OAM header's bits 5-6 to its body encoding.
func oamEnc(h byte) ExtEncoding { return ExtEncoding(h >> 5 & 0x03) }

func appendOAMBody(dst []byte, enc ExtEncoding, v uint64, body []byte) ([]byte, error) {
	switch enc {
	case ExtUnit:
		return dst, nil
	case ExtZ64:
		return AppendZint(dst, v), nil
	case ExtZBuf:
		return appendLenBytes(dst, body, math.MaxUint32)
	}
	return dst, fmt.Errorf("%w: OAM encoding %d", ErrInvalid, enc)
}

func (r *reader) oamBody(enc ExtEncoding) (uint64, []byte, error) {
	switch enc {
	case ExtUnit:
		return 0, nil, nil
	case ExtZ64:
		v, err := r.zint()
		return v, nil, err
	case ExtZBuf:
		b, err := r.lenBytes(math.MaxUint32, r.lim.MaxPayload)
		return 0, b, err
	}
	return 0, nil, fmt.Errorf("%w: OAM encoding 0b11", ErrInvalid)
}

// AppendBinary appends the transport OAM message to dst.
func (m *TransportOAM) AppendBinary(dst []byte) ([]byte, error) {
	if m.Encoding > ExtZBuf {
		return dst, fmt.Errorf("%w: OAM encoding %d", ErrInvalid, m.Encoding)
	}
	h := byte(IDTransportOAM) | byte(m.Encoding)<<5
	dst = AppendZint(append(dst, headerZ(h, len(m.Exts))), uint64(m.ID))
	dst, err := AppendExtensions(dst, m.Exts)
	if err != nil {
		return dst, err
	}
	return appendOAMBody(dst, m.Encoding, m.Value, m.Body)
}

func (r *reader) transportOAM(h byte, m *TransportOAM) error {
	*m = TransportOAM{Encoding: oamEnc(h), Exts: m.Exts[:0]}
	var err error
	if m.ID, err = r.z16(); err != nil {
		return err
	}
	if h&FlagZ != 0 {
		// The QoS extension of a transport OAM is mandatory: keep it.
		err = r.extChain(&m.Exts, false, func(key byte, e Extension) (bool, error) {
			if key == extFrameQoS {
				m.Exts = append(m.Exts, e)
				return true, nil
			}
			return false, nil
		})
		if err != nil {
			return err
		}
	}
	m.Value, m.Body, err = r.oamBody(m.Encoding)
	return err
}
