package cdr

import (
	"unsafe"
)

// Number is the set of fixed-size numeric element types that travel in bulk:
// arrays and sequences of them are copied as one block when the payload's
// byte order is the host's, and swapped in place otherwise.
type Number interface {
	~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64
}

// rawBytes views s as its underlying bytes.
func rawBytes[T Number](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}

// swap reverses the byte order of every size-byte unit of b.
func swap(b []byte, size int) {
	switch size {
	case 2:
		for i := 0; i+1 < len(b); i += 2 {
			b[i], b[i+1] = b[i+1], b[i]
		}
	case 4:
		for i := 0; i+3 < len(b); i += 4 {
			b[i], b[i+1], b[i+2], b[i+3] = b[i+3], b[i+2], b[i+1], b[i]
		}
	case 8:
		for i := 0; i+7 < len(b); i += 8 {
			b[i], b[i+1], b[i+2], b[i+3], b[i+4], b[i+5], b[i+6], b[i+7] =
				b[i+7], b[i+6], b[i+5], b[i+4], b[i+3], b[i+2], b[i+1], b[i]
		}
	}
}

// AppendArray writes the elements of s with no count, as for a fixed array
// T[N] (the caller passes arr[:]).
func AppendArray[T Number](e *Encoder, s []T) {
	if e.err != nil || len(s) == 0 {
		return
	}
	var z T
	size := int(unsafe.Sizeof(z))
	e.Align(size)
	start := len(e.buf)
	e.buf = append(e.buf, rawBytes(s)...)
	if size > 1 && e.be == nativeLittle {
		swap(e.buf[start:], size)
	}
}

// AppendSequence writes a uint32 count and the elements of s, after checking
// len(s) against bound (0 means unbounded).
func AppendSequence[T Number](e *Encoder, s []T, bound int) {
	if e.Length(len(s), bound) {
		AppendArray(e, s)
	}
}

// DecodeArray fills dst with len(dst) elements, as for a fixed array T[N]
// (the caller passes arr[:]). It always copies, in aliasing mode too.
func DecodeArray[T Number](d *Decoder, dst []T) {
	if len(dst) == 0 {
		return
	}
	var z T
	size := int(unsafe.Sizeof(z))
	b := d.take(size, len(dst)*size)
	if b == nil {
		clear(dst)
		return
	}
	fill(dst, b, d.be)
}

// fill copies the encoded elements in b (len(dst) of them, in the byte
// order be) into dst.
func fill[T Number](dst []T, b []byte, be bool) {
	var z T
	size := int(unsafe.Sizeof(z))
	raw := rawBytes(dst)
	copy(raw, b)
	if size > 1 && be == nativeLittle {
		swap(raw, size)
	}
}

// DecodeSequence reads a uint32 count and that many elements, checked against
// bound (0 means unbounded) and the remaining input before allocating. It
// reuses dst's backing array when it is large enough, as encoding/json does,
// and returns the result (nil for an empty sequence when dst is nil).
//
// A Decoder made with Options.Alias returns instead, where it can, a slice
// of the input itself (length and capacity the element count, so that an
// append reallocates rather than writing over the input): for byte-sized
// elements always, for wider ones when the payload's byte order is the
// host's and the first element's address is a multiple of its alignment.
// Otherwise it copies as above. dst is then left alone.
func DecodeSequence[T Number](d *Decoder, dst []T, bound int) []T {
	var z T
	size := int(unsafe.Sizeof(z))
	n := d.Length(size, bound)
	if d.err != nil || n == 0 {
		return dst[:0]
	}
	b := d.take(size, n*size)
	if b == nil {
		return dst[:0]
	}
	if v := aliased[T](d, b, n); v != nil {
		return v
	}
	if size == 1 && cap(dst) < n {
		// Bytes: let append allocate, which skips zeroing memory that the
		// copy overwrites at once (make would clear it first).
		return append(dst[:0], unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)...)
	}
	if cap(dst) >= n {
		dst = dst[:n]
	} else {
		dst = make([]T, n)
	}
	fill(dst, b, d.be)
	return dst
}

// aliased returns b, the encoding of n elements, viewed as a []T when d
// aliases and the bytes can be used in place; nil otherwise.
func aliased[T Number](d *Decoder, b []byte, n int) []T {
	var z T
	size := unsafe.Sizeof(z)
	if !d.alias || (size > 1 && d.be == nativeLittle) {
		return nil
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	if uintptr(p)%unsafe.Alignof(z) != 0 {
		return nil
	}
	return unsafe.Slice((*T)(p), n)
}

// AppendBools writes the elements of s (one byte each) with no count, as for
// a fixed array bool[N].
func AppendBools(e *Encoder, s []bool) {
	for _, b := range s {
		e.Bool(b)
	}
}

// AppendBoolSequence writes a uint32 count and the elements of s.
func AppendBoolSequence(e *Encoder, s []bool, bound int) {
	if e.Length(len(s), bound) {
		AppendBools(e, s)
	}
}

// DecodeBools fills dst with len(dst) bools; a byte other than 0 or 1 is
// ErrInvalid.
func DecodeBools(d *Decoder, dst []bool) {
	for i := range dst {
		dst[i] = d.Bool()
	}
}

// DecodeBoolSequence reads a uint32 count and that many bools, reusing dst's
// backing array when it is large enough.
func DecodeBoolSequence(d *Decoder, dst []bool, bound int) []bool {
	n := d.Length(1, bound)
	if d.err != nil {
		return dst[:0]
	}
	if cap(dst) >= n {
		dst = dst[:n]
	} else {
		dst = make([]bool, n)
	}
	DecodeBools(d, dst)
	return dst
}
