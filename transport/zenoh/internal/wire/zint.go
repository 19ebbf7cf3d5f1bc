package wire

import (
	"fmt"
	"math"
)

// MaxZintLen is the longest encoding of a zint: 8 bytes of 7 bits and a
// ninth byte carrying the last 8 bits.
const MaxZintLen = 9

// ZintLen returns the number of bytes AppendZint writes for v.
func ZintLen(v uint64) int {
	n := 1
	for v >= 0x80 && n < MaxZintLen {
		v >>= 7
		n++
	}
	return n
}

// AppendZint appends v as a zint (Zenoh's variable-length integer: groups of
// 7 bits, least significant first, bit 7 set when another byte follows; the
// ninth byte, if any, carries 8 bits).
func AppendZint(dst []byte, v uint64) []byte {
	for i := 0; i < MaxZintLen-1; i++ {
		if v < 0x80 {
			return append(dst, byte(v))
		}
		dst = append(dst, byte(v)|0x80)
		v >>= 7
	}
	return append(dst, byte(v))
}

// ReadZint decodes a zint from the front of b and returns its value and
// length. It rejects truncated input (ErrTruncated) and encodings that are
// longer than necessary (ErrOverlong).
func ReadZint(b []byte) (v uint64, n int, err error) {
	var shift uint
	for i := 0; i < MaxZintLen; i++ {
		if i >= len(b) {
			return 0, 0, ErrTruncated
		}
		c := b[i]
		if i == MaxZintLen-1 {
			// The ninth byte carries a full 8 bits; a zero there means
			// the eighth continuation bit was useless.
			if c == 0 {
				return 0, 0, ErrOverlong
			}
			return v | uint64(c)<<shift, i + 1, nil
		}
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			if c == 0 && i > 0 {
				return 0, 0, ErrOverlong
			}
			return v, i + 1, nil
		}
		shift += 7
	}
	panic("unreachable")
}

// reader is a cursor over an input buffer. Every method checks bounds and
// returns an error instead of panicking.
type reader struct {
	b   []byte
	off int
	lim Limits
}

func (r *reader) remaining() int { return len(r.b) - r.off }

func (r *reader) u8() (byte, error) {
	if r.off >= len(r.b) {
		return 0, ErrTruncated
	}
	c := r.b[r.off]
	r.off++
	return c, nil
}

func (r *reader) peek() (byte, error) {
	if r.off >= len(r.b) {
		return 0, ErrTruncated
	}
	return r.b[r.off], nil
}

func (r *reader) zint() (uint64, error) {
	// Fast path: most zints (ids, lengths, scopes) fit one byte, which is
	// never overlong.
	if i := r.off; uint(i) < uint(len(r.b)) {
		if c := r.b[i]; c < 0x80 {
			r.off = i + 1
			return uint64(c), nil
		}
	}
	return r.zintSlow()
}

// zintSlow reads a zint of any length.
func (r *reader) zintSlow() (uint64, error) {
	v, n, err := ReadZint(r.b[r.off:])
	if err != nil {
		return 0, err
	}
	r.off += n
	return v, nil
}

// zintMax reads a zint bounded to max (the z8/z16/z32 variants).
func (r *reader) zintMax(max uint64) (uint64, error) {
	v, err := r.zint()
	if err != nil {
		return 0, err
	}
	if v > max {
		return 0, fmt.Errorf("%w: %d > %d", ErrOverflow, v, max)
	}
	return v, nil
}

func (r *reader) z16() (uint16, error) {
	v, err := r.zintMax(math.MaxUint16)
	return uint16(v), err
}

func (r *reader) z32() (uint32, error) {
	v, err := r.zintMax(math.MaxUint32)
	return uint32(v), err
}

// bytes reads n raw bytes, aliasing the input.
func (r *reader) bytes(n int) ([]byte, error) {
	if n < 0 || n > r.remaining() {
		return nil, ErrTruncated
	}
	s := r.b[r.off : r.off+n : r.off+n]
	r.off += n
	return s, nil
}

// lenBytes reads a zint length bounded to max (and to limit), then that many
// bytes, aliasing the input. The result is never nil, even when empty.
func (r *reader) lenBytes(max uint64, limit int) ([]byte, error) {
	// Fast path: a one-byte length whose bytes are all there and within
	// the bounds; anything else (including every error) takes the general
	// path below.
	if i := r.off; i < len(r.b) {
		if n := int(r.b[i]); n < 0x80 && n <= limit && uint64(n) <= max && n < len(r.b)-i {
			s := r.b[i+1 : i+1+n : i+1+n]
			r.off = i + 1 + n
			return s, nil
		}
	}
	n, err := r.zintMax(max)
	if err != nil {
		return nil, err
	}
	if n > uint64(limit) {
		return nil, fmt.Errorf("%w: field of %d bytes > %d", ErrLimit, n, limit)
	}
	return r.bytes(int(n))
}

// appendLenBytes appends a zint length then b, failing if len(b) > max.
func appendLenBytes(dst, b []byte, max uint64) ([]byte, error) {
	if uint64(len(b)) > max {
		return dst, fmt.Errorf("%w: field of %d bytes > %d", ErrInvalid, len(b), max)
	}
	dst = AppendZint(dst, uint64(len(b)))
	return append(dst, b...), nil
}

// AppendZBytes appends b as a byte string: its length as a zint, then its
// bytes (the encoding of payloads, suffixes, parameters and strings).
func AppendZBytes(dst, b []byte) []byte {
	return append(AppendZint(dst, uint64(len(b))), b...)
}

// ReadZBytes decodes a byte string from the front of b, refusing one longer
// than max bytes (ErrLimit), and returns it (aliasing b) with the number of
// bytes consumed.
func ReadZBytes(b []byte, max int) ([]byte, int, error) {
	r := reader{b: b}
	s, err := r.lenBytes(math.MaxUint64, max)
	if err != nil {
		return nil, 0, err
	}
	return s, r.off, nil
}
