package cdr

import (
	"encoding/binary"
	"fmt"
	"math"
	"unicode/utf16"
	"unicode/utf8"
)

// Encapsulation header kinds (bytes 0..1 of a payload, big-endian).
const (
	KindBE = 0x0000 // CDR_BE: plain CDR, big-endian
	KindLE = 0x0001 // CDR_LE: plain CDR, little-endian (what ROS 2 emits)
)

// HeaderSize is the length of the encapsulation header in front of every
// payload.
const HeaderSize = 4

// Encoder appends the CDR encoding of values to a byte slice. The zero
// Encoder is not usable; start one with NewEncoder. It is a small value type
// meant to live on the stack of one AppendCDR call.
//
// Errors are sticky: after the first failure (a bound or size violation) the
// following calls do nothing and Err reports it.
type Encoder struct {
	buf    []byte
	origin int // index in buf of the first byte after the header
	be     bool
	wide16 bool
	err    error
}

// Options selects the less common wire variants. The zero Options is what
// ROS 2 emits with its default middlewares: little-endian, 4-byte wstring
// units.
type Options struct {
	// BigEndian makes an Encoder write CDR_BE instead of CDR_LE. ROS 2
	// peers accept both; they emit little-endian. (A Decoder takes the byte
	// order from the header and ignores this field.)
	BigEndian bool
	// WString16 selects 2-byte wstring code units, as written by peers
	// built where wchar_t has 2 bytes (Windows), instead of the default
	// 4-byte units that rmw_fastrtps_cpp, rmw_zenoh_cpp and
	// rmw_cyclonedds_cpp write on Linux.
	WString16 bool
	// Alias makes a Decoder return numeric sequences that share memory
	// with its input instead of copying them, where the bytes can be used
	// in place: always for byte sequences (uint8[], int8[], byte[], char[]),
	// and for wider numbers when the payload's byte order is the host's and
	// the first element is aligned for its type in memory. Everything else
	// is copied as without it. See "Aliasing and ownership" in the package
	// documentation for who may keep or write what. (An Encoder ignores
	// this field.)
	Alias bool
}

// NewEncoder returns an Encoder that appends a CDR_LE encapsulation header
// and then the encoded members to dst. Reusing dst (passing buf[:0] of an
// earlier result) avoids allocation.
func NewEncoder(dst []byte) Encoder { return NewEncoderOptions(dst, Options{}) }

// NewEncoderOptions is NewEncoder with the wire variants chosen by o.
func NewEncoderOptions(dst []byte, o Options) Encoder {
	if o.BigEndian {
		dst = append(dst, 0, KindBE, 0, 0)
	} else {
		dst = append(dst, 0, KindLE, 0, 0)
	}
	return Encoder{buf: dst, origin: len(dst), be: o.BigEndian, wide16: o.WString16}
}

// Err returns the first error met, or nil.
func (e *Encoder) Err() error { return e.err }

// Fail records err as the Encoder's error unless one is already recorded.
// Hand-written encoders and decoders use it for violations they detect
// themselves.
func (e *Encoder) Fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

// Len returns the number of body bytes written (header excluded).
func (e *Encoder) Len() int { return len(e.buf) - e.origin }

// Grow makes room for n more bytes without changing the length, so that a
// large message is written with at most one reallocation.
func (e *Encoder) Grow(n int) {
	if n > 0 && cap(e.buf)-len(e.buf) < n {
		nb := make([]byte, len(e.buf), len(e.buf)+n)
		copy(nb, e.buf)
		e.buf = nb
	}
}

// Align pads with zero bytes up to a multiple of n (1, 2, 4 or 8) counted
// from the end of the header.
func (e *Encoder) Align(n int) {
	if pad := -(len(e.buf) - e.origin) & (n - 1); pad != 0 {
		e.buf = append(e.buf, make([]byte, pad)...)
	}
}

// Bool writes b as one byte, 0 or 1.
func (e *Encoder) Bool(b bool) {
	if b {
		e.buf = append(e.buf, 1)
	} else {
		e.buf = append(e.buf, 0)
	}
}

// Uint8 writes v.
func (e *Encoder) Uint8(v uint8) { e.buf = append(e.buf, v) }

// Int8 writes v.
func (e *Encoder) Int8(v int8) { e.buf = append(e.buf, uint8(v)) }

// Uint16 writes v aligned to 2.
func (e *Encoder) Uint16(v uint16) {
	e.Align(2)
	if e.be {
		e.buf = binary.BigEndian.AppendUint16(e.buf, v)
	} else {
		e.buf = binary.LittleEndian.AppendUint16(e.buf, v)
	}
}

// Int16 writes v aligned to 2.
func (e *Encoder) Int16(v int16) { e.Uint16(uint16(v)) }

// Uint32 writes v aligned to 4.
func (e *Encoder) Uint32(v uint32) {
	e.Align(4)
	if e.be {
		e.buf = binary.BigEndian.AppendUint32(e.buf, v)
	} else {
		e.buf = binary.LittleEndian.AppendUint32(e.buf, v)
	}
}

// Int32 writes v aligned to 4.
func (e *Encoder) Int32(v int32) { e.Uint32(uint32(v)) }

// Uint64 writes v aligned to 8.
func (e *Encoder) Uint64(v uint64) {
	e.Align(8)
	if e.be {
		e.buf = binary.BigEndian.AppendUint64(e.buf, v)
	} else {
		e.buf = binary.LittleEndian.AppendUint64(e.buf, v)
	}
}

// Int64 writes v aligned to 8.
func (e *Encoder) Int64(v int64) { e.Uint64(uint64(v)) }

// Float32 writes v (IEEE 754) aligned to 4.
func (e *Encoder) Float32(v float32) { e.Uint32(math.Float32bits(v)) }

// Float64 writes v (IEEE 754) aligned to 8.
func (e *Encoder) Float64(v float64) { e.Uint64(math.Float64bits(v)) }

// Length writes a sequence element count n after checking it against bound
// (0 means unbounded) and the uint32 range. It returns false, recording the
// error, when the check fails; the caller then writes no elements.
func (e *Encoder) Length(n, bound int) bool {
	if e.err != nil {
		return false
	}
	if bound > 0 && n > bound {
		e.err = fmt.Errorf("%w: %d elements, bound %d", ErrBoundExceeded, n, bound)
		return false
	}
	if uint64(n) > math.MaxUint32 {
		e.err = fmt.Errorf("%w: %d elements", ErrTooLarge, n)
		return false
	}
	e.Uint32(uint32(n))
	return true
}

// String writes s as a CDR string: uint32 length including the NUL, the
// bytes, the NUL.
func (e *Encoder) String(s string) { e.BoundedString(s, 0) }

// BoundedString writes s after checking that it has at most bound bytes
// (0 means unbounded), as for a .msg field string<=N.
func (e *Encoder) BoundedString(s string, bound int) {
	if e.err != nil {
		return
	}
	if bound > 0 && len(s) > bound {
		e.err = fmt.Errorf("%w: string of %d bytes, bound %d", ErrBoundExceeded, len(s), bound)
		return
	}
	if uint64(len(s)) >= math.MaxUint32 {
		e.err = fmt.Errorf("%w: string of %d bytes", ErrTooLarge, len(s))
		return
	}
	e.Uint32(uint32(len(s) + 1))
	e.buf = append(e.buf, s...)
	e.buf = append(e.buf, 0)
}

// WString writes s (UTF-8) as a CDR wstring: a uint32 count of UTF-16 code
// units, then each unit in 4 bytes (2 bytes with Options.WString16). Invalid
// UTF-8 is an ErrInvalid error.
func (e *Encoder) WString(s string) { e.BoundedWString(s, 0) }

// BoundedWString writes s after checking that it has at most bound UTF-16
// code units (0 means unbounded), as for a .msg field wstring<=N.
func (e *Encoder) BoundedWString(s string, bound int) {
	if e.err != nil {
		return
	}
	if !utf8.ValidString(s) {
		e.err = fmt.Errorf("%w: wstring is not valid UTF-8", ErrInvalid)
		return
	}
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	if !e.Length(n, bound) {
		return
	}
	unit := e.Uint32
	if e.wide16 {
		unit = func(v uint32) { e.Uint16(uint16(v)) }
	}
	for _, r := range s {
		if r >= 0x10000 {
			hi, lo := utf16.EncodeRune(r)
			unit(uint32(hi))
			unit(uint32(lo))
		} else {
			unit(uint32(r))
		}
	}
}
