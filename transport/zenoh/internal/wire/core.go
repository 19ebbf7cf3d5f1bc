package wire

import (
	"encoding/hex"
	"fmt"
	"math"
)

// ProtoVersion is the Zenoh protocol version this package speaks.
const ProtoVersion = 0x09

// MaxZenohIDLen is the longest Zenoh ID in bytes.
const MaxZenohIDLen = 16

// ZenohID identifies a Zenoh node: 1 to 16 bytes, the little-endian bytes of
// a 128-bit number. The zero value is invalid (length 0).
type ZenohID struct {
	// Bytes holds the ID; only the first Len bytes are meaningful.
	Bytes [MaxZenohIDLen]byte
	// Len is the number of bytes in use, 1 to 16.
	Len uint8
}

// NewZenohID returns the ID made of b, which must hold 1 to 16 bytes.
func NewZenohID(b []byte) (ZenohID, error) {
	var z ZenohID
	if len(b) == 0 || len(b) > MaxZenohIDLen {
		return z, fmt.Errorf("%w: zenoh id of %d bytes", ErrInvalid, len(b))
	}
	copy(z.Bytes[:], b)
	z.Len = uint8(len(b))
	return z, nil
}

// Slice returns the meaningful bytes of z.
func (z *ZenohID) Slice() []byte { return z.Bytes[:z.valid()] }

// valid returns Len clamped to the array size.
func (z *ZenohID) valid() int { return min(int(z.Len), MaxZenohIDLen) }

// String returns the ID as Zenoh prints it: the 128-bit number in lowercase
// hexadecimal without leading zeros.
func (z ZenohID) String() string {
	var be [MaxZenohIDLen]byte
	n := z.valid()
	for i := 0; i < n; i++ {
		be[MaxZenohIDLen-1-i] = z.Bytes[i]
	}
	s := hex.EncodeToString(be[:])
	for len(s) > 1 && s[0] == '0' {
		s = s[1:]
	}
	return s
}

func (z *ZenohID) check() error {
	if z.Len == 0 || z.Len > MaxZenohIDLen {
		return fmt.Errorf("%w: zenoh id of %d bytes", ErrInvalid, z.Len)
	}
	return nil
}

// appendLenPrefixed appends z as a zint length then the bytes (the form
// used in timestamps, source info and responder ids).
func (z *ZenohID) appendLenPrefixed(dst []byte) ([]byte, error) {
	if err := z.check(); err != nil {
		return dst, err
	}
	dst = append(dst, z.Len)
	return append(dst, z.Bytes[:z.Len]...), nil
}

func (r *reader) zenohIDLenPrefixed() (ZenohID, error) {
	var z ZenohID
	n, err := r.zint()
	if err != nil {
		return z, err
	}
	if n == 0 || n > MaxZenohIDLen {
		return z, fmt.Errorf("%w: zenoh id of %d bytes", ErrInvalid, n)
	}
	b, err := r.bytes(int(n))
	if err != nil {
		return z, err
	}
	copy(z.Bytes[:], b)
	z.Len = uint8(n)
	return z, nil
}

// appendNibbleID appends the control byte (len-1)<<4 | low then the ID (the
// form used in INIT, JOIN, HELLO, and entity global ids).
func (z *ZenohID) appendNibbleID(dst []byte, low byte) ([]byte, error) {
	if err := z.check(); err != nil {
		return dst, err
	}
	dst = append(dst, (z.Len-1)<<4|low&0x0f)
	return append(dst, z.Bytes[:z.Len]...), nil
}

// nibbleID reads a control byte and the ID it sizes, returning the low
// nibble of the control byte.
func (r *reader) nibbleID() (ZenohID, byte, error) {
	var z ZenohID
	c, err := r.u8()
	if err != nil {
		return z, 0, err
	}
	n := int(c>>4) + 1
	b, err := r.bytes(n)
	if err != nil {
		return z, 0, err
	}
	copy(z.Bytes[:], b)
	z.Len = uint8(n)
	return z, c & 0x0f, nil
}

// WhatAmI is the role of a Zenoh node, as carried in INIT (2 bits).
type WhatAmI uint8

// Roles of a Zenoh node.
const (
	Router WhatAmI = 0b00
	Peer   WhatAmI = 0b01
	Client WhatAmI = 0b10
)

// String returns "router", "peer", "client" or "whatami(n)".
func (w WhatAmI) String() string {
	switch w {
	case Router:
		return "router"
	case Peer:
		return "peer"
	case Client:
		return "client"
	}
	return fmt.Sprintf("whatami(%d)", uint8(w))
}

// Timestamp is a hybrid logical clock timestamp: an NTP64 time and the ID of
// the node that made it.
type Timestamp struct {
	// Time is the NTP64 time (seconds since the Unix epoch, 1970, in the upper 32 bits,
	// the fraction in the lower 32).
	Time uint64
	// ID is the node that issued the timestamp.
	ID ZenohID
}

func (t *Timestamp) appendTo(dst []byte) ([]byte, error) {
	dst = AppendZint(dst, t.Time)
	return t.ID.appendLenPrefixed(dst)
}

func (r *reader) timestamp() (Timestamp, error) {
	var t Timestamp
	var err error
	if t.Time, err = r.zint(); err != nil {
		return t, err
	}
	t.ID, err = r.zenohIDLenPrefixed()
	return t, err
}

// MaxEncodingSchema is the longest encoding schema (a z8-bounded string).
const MaxEncodingSchema = math.MaxUint8

// Encoding describes a payload: a numeric id from Zenoh's predefined table
// and an optional schema string. The zero value is the default encoding
// (id 0, zenoh/bytes, no schema) and is not written on the wire.
type Encoding struct {
	// ID is the predefined encoding id (0 zenoh/bytes, 1 zenoh/string,
	// ..., 0xFFFF custom).
	ID uint16
	// Schema is the optional schema (at most 255 bytes); nil means none.
	// A decoded empty schema is a non-nil empty slice.
	Schema []byte
}

// IsDefault reports whether e is the default encoding, which is omitted on
// the wire.
func (e *Encoding) IsDefault() bool { return e.ID == 0 && e.Schema == nil }

func (e *Encoding) appendTo(dst []byte) ([]byte, error) {
	v := uint64(e.ID) << 1
	if e.Schema == nil {
		return AppendZint(dst, v), nil
	}
	dst = AppendZint(dst, v|1)
	return appendLenBytes(dst, e.Schema, MaxEncodingSchema)
}

func (r *reader) encoding() (Encoding, error) {
	var e Encoding
	v, err := r.z32()
	if err != nil {
		return e, err
	}
	if v>>1 > math.MaxUint16 {
		return e, fmt.Errorf("%w: encoding id %d", ErrOverflow, v>>1)
	}
	e.ID = uint16(v >> 1)
	if v&1 != 0 {
		e.Schema, err = r.lenBytes(MaxEncodingSchema, MaxEncodingSchema)
	}
	return e, err
}

// Mapping tells whose declarations a WireExpr scope refers to.
type Mapping uint8

// Mappings of a WireExpr scope.
const (
	// MappingReceiver (M flag clear) refers to the receiver's declarations.
	MappingReceiver Mapping = 0
	// MappingSender (M flag set) refers to the sender's declarations.
	MappingSender Mapping = 1
)

// MaxSuffix is the longest key-expression suffix (z16-bounded).
const MaxSuffix = math.MaxUint16

// WireExpr is a key expression as carried on the wire: a scope (an
// expression id declared by D_KEYEXPR, 0 for none) followed by an optional
// suffix. The full key is the declared prefix of Scope followed by Suffix.
type WireExpr struct {
	// Scope is the declared expression id, 0 when the suffix is the whole
	// key expression.
	Scope uint16
	// Suffix is the rest of the key (the N flag is set when it is not
	// empty). Decoded suffixes alias the input.
	Suffix []byte
	// Mapping tells whose declaration table Scope refers to (the M flag).
	Mapping Mapping
}

// HasSuffix reports whether the N (named) flag is set for w.
func (w *WireExpr) HasSuffix() bool { return len(w.Suffix) > 0 }

func (w *WireExpr) appendTo(dst []byte) ([]byte, error) {
	dst = AppendZint(dst, uint64(w.Scope))
	if len(w.Suffix) == 0 {
		return dst, nil
	}
	return appendLenBytes(dst, w.Suffix, MaxSuffix)
}

// wireExpr reads a scope and, if named, a suffix into w (in place, which
// is cheaper than returning the struct on the decoding hot path). mapping
// comes from the caller's header flags.
func (r *reader) wireExpr(w *WireExpr, named bool, mapping Mapping) error {
	w.Mapping, w.Suffix = mapping, nil
	var err error
	if w.Scope, err = r.z16(); err != nil {
		return err
	}
	if named {
		w.Suffix, err = r.lenBytes(MaxSuffix, r.lim.MaxPayload)
	}
	return err
}

// QoS is the network-message quality of service byte (extension 0x1):
// priority in bits 0-2, D (block on congestion) 0x08, E (express) 0x10,
// F (block first) 0x20.
type QoS uint8

// QoS values and flags.
const (
	// QoSDefault is priority Data, congestion Drop, not express: the value
	// assumed when the extension is absent.
	QoSDefault QoS = 0x05
	// QoSPriorityMask selects the priority bits.
	QoSPriorityMask QoS = 0x07
	// QoSBlock is the D flag: block instead of dropping on congestion.
	QoSBlock QoS = 0x08
	// QoSExpress is the E flag: do not batch.
	QoSExpress QoS = 0x10
	// QoSBlockFirst is the F flag: block for the first message only.
	QoSBlockFirst QoS = 0x20
)

// Priority is a Zenoh message priority, 0 (Control) to 7 (Background).
type Priority uint8

// Priorities.
const (
	PriorityControl         Priority = 0
	PriorityRealTime        Priority = 1
	PriorityInteractiveHigh Priority = 2
	PriorityInteractiveLow  Priority = 3
	PriorityDataHigh        Priority = 4
	PriorityData            Priority = 5
	PriorityDataLow         Priority = 6
	PriorityBackground      Priority = 7
)

// NewQoS builds a QoS byte.
func NewQoS(p Priority, block, express bool) QoS {
	q := QoS(p) & QoSPriorityMask
	if block {
		q |= QoSBlock
	}
	if express {
		q |= QoSExpress
	}
	return q
}

// Priority returns the priority bits of q.
func (q QoS) Priority() Priority { return Priority(q & QoSPriorityMask) }

// Block reports whether the D flag (block on congestion) is set.
func (q QoS) Block() bool { return q&QoSBlock != 0 }

// Express reports whether the E flag is set.
func (q QoS) Express() bool { return q&QoSExpress != 0 }

// SourceInfo identifies the entity that produced a sample (zenoh-message
// extension 0x1).
type SourceInfo struct {
	// ID is the producing node.
	ID ZenohID
	// EntityID is the producing entity in that node.
	EntityID uint32
	// SN is the producer's sequence number.
	SN uint32
}

// EntityGlobalID names an entity: a node and an entity id in it (used as
// the responder id of a RESPONSE).
type EntityGlobalID struct {
	// ID is the node.
	ID ZenohID
	// EntityID is the entity in that node.
	EntityID uint32
}
