package wire

import (
	"encoding/binary"
	"fmt"
)

// BatchLenSize is the size of the length prefix of a batch on stream links.
const BatchLenSize = 2

// MaxBatchSize is the largest batch a stream link can carry.
const MaxBatchSize = 0xffff

// BatchLen returns the batch length stored in a 2-byte little-endian prefix.
// It reports ErrTruncated if hdr is shorter than BatchLenSize.
func BatchLen(hdr []byte) (int, error) {
	if len(hdr) < BatchLenSize {
		return 0, ErrTruncated
	}
	return int(binary.LittleEndian.Uint16(hdr)), nil
}

// AppendBatchLen appends n as a 2-byte little-endian batch length.
func AppendBatchLen(dst []byte, n int) ([]byte, error) {
	if n < 0 || n > MaxBatchSize {
		return dst, fmt.Errorf("%w: batch of %d bytes", ErrOverflow, n)
	}
	return binary.LittleEndian.AppendUint16(dst, uint16(n)), nil
}

// PutBatchLen writes n into the 2-byte prefix hdr. It is meant for a batch
// built in place: reserve BatchLenSize bytes, append messages, then call
// PutBatchLen(buf[start:], len(buf)-start-BatchLenSize).
func PutBatchLen(hdr []byte, n int) error {
	if len(hdr) < BatchLenSize {
		return ErrTruncated
	}
	if n < 0 || n > MaxBatchSize {
		return fmt.Errorf("%w: batch of %d bytes", ErrOverflow, n)
	}
	binary.LittleEndian.PutUint16(hdr, uint16(n))
	return nil
}
