package cdr

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"unicode/utf16"
)

// Decoder reads CDR values from a byte slice. Start one with NewDecoder. It
// is a small value type meant to live on the stack of one UnmarshalCDR call.
//
// Errors are sticky: after the first failure every read returns a zero value
// and Err reports the first error.
type Decoder struct {
	data   []byte // the body: alignment offsets count from data[0]
	off    int
	be     bool
	wide16 bool
	alias  bool // Options.Alias: numeric sequences may alias data
	err    error
}

// NewDecoder checks the encapsulation header of data and returns a Decoder
// positioned on the first member. Only plain CDR (CDR_BE, CDR_LE) is
// accepted; other kinds (XCDR2, parameter lists) are ErrInvalid.
func NewDecoder(data []byte) (Decoder, error) { return NewDecoderOptions(data, Options{}) }

// NewDecoderOptions is NewDecoder with the wstring variant and the aliasing
// mode chosen by o; the byte order always comes from the header.
func NewDecoderOptions(data []byte, o Options) (Decoder, error) {
	if len(data) < HeaderSize {
		return Decoder{}, fmt.Errorf("%w: %d bytes, need a %d-byte header", ErrTruncated, len(data), HeaderSize)
	}
	d := Decoder{data: data[HeaderSize:], wide16: o.WString16, alias: o.Alias}
	switch kind := binary.BigEndian.Uint16(data); kind {
	case KindLE:
	case KindBE:
		d.be = true
	default:
		return Decoder{}, fmt.Errorf("%w: encapsulation kind %#04x is not plain CDR", ErrInvalid, kind)
	}
	return d, nil
}

// Err returns the first error met, or nil.
func (d *Decoder) Err() error { return d.err }

// Fail records err as the Decoder's error unless one is already recorded.
// Hand-written encoders and decoders use it for violations they detect
// themselves.
func (d *Decoder) Fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

// Remaining returns the number of unread body bytes.
func (d *Decoder) Remaining() int { return len(d.data) - d.off }

// Offset returns the read position counted from the end of the header.
func (d *Decoder) Offset() int { return d.off }

// BigEndian reports whether the payload is CDR_BE.
func (d *Decoder) BigEndian() bool { return d.be }

// Aliasing reports whether the Decoder was made with Options.Alias, so that
// the sequences it decodes may share memory with its input.
func (d *Decoder) Aliasing() bool { return d.alias }

// take aligns to align and returns the next n bytes, or nil after recording
// ErrTruncated.
func (d *Decoder) take(align, n int) []byte {
	if d.err != nil {
		return nil
	}
	off := (d.off + align - 1) &^ (align - 1)
	if off > len(d.data) || n > len(d.data)-off {
		d.err = fmt.Errorf("%w: need %d bytes at offset %d, have %d", ErrTruncated, n, off, len(d.data)-min(off, len(d.data)))
		return nil
	}
	d.off = off + n
	return d.data[off:d.off:d.off]
}

// Align skips padding up to a multiple of n (1, 2, 4 or 8).
func (d *Decoder) Align(n int) { d.take(n, 0) }

// Uint8 reads one byte.
func (d *Decoder) Uint8() uint8 {
	if d.err == nil && d.off < len(d.data) {
		v := d.data[d.off]
		d.off++
		return v
	}
	if b := d.take(1, 1); b != nil {
		return b[0]
	}
	return 0
}

// Int8 reads one signed byte.
func (d *Decoder) Int8() int8 { return int8(d.Uint8()) }

// Bool reads one byte, which must be 0 or 1 (ErrInvalid otherwise).
func (d *Decoder) Bool() bool {
	v := d.Uint8()
	if v > 1 {
		d.Fail(fmt.Errorf("%w: bool byte %#02x", ErrInvalid, v))
		return false
	}
	return v == 1
}

// Uint16 reads a 2-aligned uint16.
func (d *Decoder) Uint16() uint16 {
	b := d.take(2, 2)
	if b == nil {
		return 0
	}
	if d.be {
		return binary.BigEndian.Uint16(b)
	}
	return binary.LittleEndian.Uint16(b)
}

// Int16 reads a 2-aligned int16.
func (d *Decoder) Int16() int16 { return int16(d.Uint16()) }

// Uint32 reads a 4-aligned uint32.
func (d *Decoder) Uint32() uint32 {
	b := d.take(4, 4)
	if b == nil {
		return 0
	}
	if d.be {
		return binary.BigEndian.Uint32(b)
	}
	return binary.LittleEndian.Uint32(b)
}

// Int32 reads a 4-aligned int32.
func (d *Decoder) Int32() int32 { return int32(d.Uint32()) }

// Uint64 reads an 8-aligned uint64.
func (d *Decoder) Uint64() uint64 {
	b := d.take(8, 8)
	if b == nil {
		return 0
	}
	if d.be {
		return binary.BigEndian.Uint64(b)
	}
	return binary.LittleEndian.Uint64(b)
}

// Int64 reads an 8-aligned int64.
func (d *Decoder) Int64() int64 { return int64(d.Uint64()) }

// Float32 reads a 4-aligned IEEE 754 float32.
func (d *Decoder) Float32() float32 { return math.Float32frombits(d.Uint32()) }

// Float64 reads an 8-aligned IEEE 754 float64.
func (d *Decoder) Float64() float64 { return math.Float64frombits(d.Uint64()) }

// Length reads a sequence element count and checks it before anything is
// allocated: against bound (0 means unbounded; ErrBoundExceeded) and against
// the bytes that remain, given that one element takes at least minSize bytes
// on the wire (ErrTruncated). It returns 0 on error, so a caller may always
// loop over the result.
func (d *Decoder) Length(minSize, bound int) int {
	v := d.Uint32()
	if d.err != nil {
		return 0
	}
	// Compare as uint64: on 32-bit hosts a uint32 does not fit an int.
	if bound > 0 && uint64(v) > uint64(bound) {
		d.err = fmt.Errorf("%w: %d elements, bound %d", ErrBoundExceeded, v, bound)
		return 0
	}
	if minSize < 1 {
		minSize = 1
	}
	if uint64(v) > uint64(d.Remaining()/minSize) {
		d.err = fmt.Errorf("%w: %d elements of at least %d bytes, %d bytes left", ErrTruncated, v, minSize, d.Remaining())
		return 0
	}
	return int(v)
}

// ReadString reads a CDR string. (It is not named String so that a Decoder
// is not a fmt.Stringer.)
func (d *Decoder) ReadString() string { return d.BoundedString(0) }

// BoundedString reads a CDR string of at most bound bytes (0 means
// unbounded; ErrBoundExceeded).
func (d *Decoder) BoundedString(bound int) string {
	b := d.stringBytes(bound)
	if len(b) == 0 {
		return ""
	}
	return string(b)
}

// StringBytes reads a CDR string and returns its bytes (without the NUL)
// aliasing the input, without allocating.
func (d *Decoder) StringBytes() []byte { return d.stringBytes(0) }

func (d *Decoder) stringBytes(bound int) []byte {
	v := d.Uint32()
	if d.err != nil || v == 0 {
		return nil
	}
	if uint64(v) > uint64(d.Remaining()) {
		d.err = fmt.Errorf("%w: string of %d bytes, %d bytes left", ErrTruncated, v, d.Remaining())
		return nil
	}
	n := int(v)
	if bound > 0 && n-1 > bound {
		d.err = fmt.Errorf("%w: string of %d bytes, bound %d", ErrBoundExceeded, n-1, bound)
		return nil
	}
	b := d.data[d.off : d.off+n]
	d.off += n
	if b[n-1] != 0 {
		d.err = fmt.Errorf("%w: string without NUL terminator", ErrInvalid)
		return nil
	}
	return b[: n-1 : n-1]
}

// WString reads a CDR wstring (UTF-16 code units in 4 bytes each, or 2 with
// Options.WString16) and returns it as UTF-8.
func (d *Decoder) WString() string { return d.BoundedWString(0) }

// BoundedWString reads a CDR wstring of at most bound code units (0 means
// unbounded). Unpaired surrogates and units above 0xFFFF are ErrInvalid.
func (d *Decoder) BoundedWString(bound int) string {
	unit := 4
	if d.wide16 {
		unit = 2
	}
	n := d.Length(unit, bound)
	if n == 0 {
		return ""
	}
	next := func() rune {
		var v uint32
		if d.wide16 {
			v = uint32(d.Uint16())
		} else {
			v = d.Uint32()
		}
		if v > 0xffff {
			d.Fail(fmt.Errorf("%w: wstring unit %#x is not UTF-16", ErrInvalid, v))
		}
		return rune(v)
	}
	var sb strings.Builder
	sb.Grow(n)
	for i := 0; i < n && d.err == nil; i++ {
		r := next()
		if utf16.IsSurrogate(r) {
			if r >= 0xdc00 || i+1 == n {
				d.Fail(fmt.Errorf("%w: unpaired surrogate in wstring", ErrInvalid))
				break
			}
			i++
			lo := next()
			if lo < 0xdc00 || lo >= 0xe000 {
				d.Fail(fmt.Errorf("%w: unpaired surrogate in wstring", ErrInvalid))
				break
			}
			r = utf16.DecodeRune(r, lo)
		}
		sb.WriteRune(r)
	}
	if d.err != nil {
		return ""
	}
	return sb.String()
}
