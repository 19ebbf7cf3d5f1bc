package mcap

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Compression names a chunk compression as the specification spells it.
type Compression string

// The chunk compressions MCAP defines.
const (
	CompressionNone Compression = ""
	CompressionZstd Compression = "zstd"
	CompressionLZ4  Compression = "lz4"
)

// Level is a compression effort, as rosbag2's storage options name them.
type Level int

// Compression levels, from rosbag2's compressionLevel values.
const (
	LevelDefault Level = iota
	LevelFastest
	LevelFast
	LevelSlow
	LevelSlowest
)

// compressor compresses chunks into a buffer it reuses.
type compressor interface {
	compress(dst, src []byte) ([]byte, error)
}

type zstdCompressor struct{ enc *zstd.Encoder }

func newZstd(l Level) (*zstdCompressor, error) {
	lvl := zstd.SpeedDefault
	switch l {
	case LevelFastest, LevelFast:
		lvl = zstd.SpeedFastest
	case LevelSlow:
		lvl = zstd.SpeedBetterCompression
	case LevelSlowest:
		lvl = zstd.SpeedBestCompression
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(lvl), zstd.WithEncoderConcurrency(1), zstd.WithLowerEncoderMem(true))
	if err != nil {
		return nil, err
	}
	return &zstdCompressor{enc: enc}, nil
}

func (z *zstdCompressor) compress(dst, src []byte) ([]byte, error) {
	return z.enc.EncodeAll(src, dst[:0]), nil
}

type lz4Compressor struct {
	w   *lz4.Writer
	buf bytes.Buffer
	lvl lz4.CompressionLevel
}

func newLZ4(l Level) *lz4Compressor {
	lvl := lz4.Fast
	switch l {
	case LevelSlow:
		lvl = lz4.Level5
	case LevelSlowest:
		lvl = lz4.Level9
	}
	return &lz4Compressor{w: lz4.NewWriter(nil), lvl: lvl}
}

func (c *lz4Compressor) compress(dst, src []byte) ([]byte, error) {
	c.buf = *bytes.NewBuffer(dst[:0])
	c.w.Reset(&c.buf)
	if err := c.w.Apply(lz4.CompressionLevelOption(c.lvl), lz4.ConcurrencyOption(1)); err != nil {
		return nil, err
	}
	if _, err := c.w.Write(src); err != nil {
		return nil, err
	}
	if err := c.w.Close(); err != nil {
		return nil, err
	}
	return c.buf.Bytes(), nil
}

func newCompressor(c Compression, l Level) (compressor, error) {
	switch c {
	case CompressionNone:
		return nil, nil
	case CompressionZstd:
		return newZstd(l)
	case CompressionLZ4:
		return newLZ4(l), nil
	}
	return nil, fmt.Errorf("%w: compression %q (want zstd, lz4 or none)", ErrUnsupported, c)
}

// maxZstdWindow bounds the window a zstd frame may ask its decoder to
// hold (rosbag2's chunks use a few MiB at most).
const maxZstdWindow = 256 << 20

// zstdDecoders are shared by readers: a decoder holds large tables.
var zstdDecoders = sync.Pool{New: func() any {
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(maxZstdWindow))
	if err != nil {
		return err
	}
	return d
}}

// decompress decompresses a chunk's records into a buffer of exactly size
// bytes (size was checked against the reader's limits by the caller): a
// stream that ends early or goes on is corrupt.
func decompress(c string, src []byte, size uint64) ([]byte, error) {
	switch Compression(c) {
	case CompressionNone:
		if uint64(len(src)) != size {
			return nil, fmt.Errorf("%w: uncompressed chunk of %d bytes announces %d", ErrCorrupt, len(src), size)
		}
		return src, nil
	case CompressionZstd:
		v := zstdDecoders.Get()
		d, ok := v.(*zstd.Decoder)
		if !ok {
			return nil, fmt.Errorf("mcap: zstd decoder: %v", v)
		}
		defer zstdDecoders.Put(d)
		if err := d.Reset(bytes.NewReader(src)); err != nil {
			return nil, fmt.Errorf("%w: zstd chunk: %w", ErrCorrupt, err)
		}
		defer d.Reset(nil) //nolint:errcheck // drops the reference to src
		return readExactly(d, size, "zstd")
	case CompressionLZ4:
		return decodeLZ4Frames(src, size)
	}
	return nil, fmt.Errorf("%w: chunk compression %q", ErrUnsupported, c)
}

// readExactly reads exactly size bytes from a decompressor: fewer, or
// more, is a corrupt chunk.
func readExactly(r io.Reader, size uint64, name string) ([]byte, error) {
	dst := make([]byte, size)
	if _, err := io.ReadFull(r, dst); err != nil {
		return nil, fmt.Errorf("%w: %s chunk shorter than the %d bytes it announces: %w", ErrCorrupt, name, size, err)
	}
	var one [1]byte
	if n, err := r.Read(one[:]); n != 0 || (err != nil && err != io.EOF) {
		if err == nil {
			err = fmt.Errorf("%d more bytes", n)
		}
		return nil, fmt.Errorf("%w: %s chunk longer than the %d bytes it announces: %w", ErrCorrupt, name, size, err)
	}
	return dst, nil
}

// decodeLZ4Frames decodes LZ4 frames (the format of MCAP's lz4 chunks, as
// LZ4F writes them) into a buffer of exactly size bytes, block by block:
// no decoder state to allocate, and any length in the frames is checked
// against what remains.
func decodeLZ4Frames(src []byte, size uint64) ([]byte, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: lz4 chunk: %s", ErrCorrupt, fmt.Sprintf(format, args...))
	}
	dst := make([]byte, size)
	out := 0
	for len(src) > 0 {
		if len(src) < 7 {
			return nil, bad("%d bytes, not a frame header", len(src))
		}
		magic := binary.LittleEndian.Uint32(src)
		if magic&0xFFFFFFF0 == 0x184D2A50 { // a skippable frame
			n := uint64(binary.LittleEndian.Uint32(src[4:]))
			if n > uint64(len(src)-8) {
				return nil, bad("skippable frame of %d bytes", n)
			}
			src = src[8+n:]
			continue
		}
		if magic != 0x184D2204 {
			return nil, bad("magic 0x%08x", magic)
		}
		flg := src[4]
		if flg>>6 != 1 {
			return nil, bad("frame version %d", flg>>6)
		}
		independent := flg&0x20 != 0
		blockSum, contentSize, contentSum, dictID := flg&0x10 != 0, flg&0x08 != 0, flg&0x04 != 0, flg&0x01 != 0
		hdr := 7
		if contentSize {
			hdr += 8
		}
		if dictID {
			hdr += 4
		}
		if len(src) < hdr {
			return nil, bad("short frame header")
		}
		src = src[hdr:]
		frameStart := out
		for {
			if len(src) < 4 {
				return nil, bad("frame ends without its end mark")
			}
			bs := binary.LittleEndian.Uint32(src)
			src = src[4:]
			if bs == 0 {
				break
			}
			raw := bs&0x80000000 != 0
			n := int(bs & 0x7FFFFFFF)
			if n > len(src) {
				return nil, bad("block of %d bytes, %d left", n, len(src))
			}
			block := src[:n]
			src = src[n:]
			if blockSum {
				if len(src) < 4 {
					return nil, bad("block checksum missing")
				}
				src = src[4:]
			}
			if raw {
				if n > len(dst)-out {
					return nil, bad("more than the %d bytes announced", size)
				}
				out += copy(dst[out:], block)
				continue
			}
			var dict []byte
			if !independent {
				dict = dst[max(frameStart, out-64<<10):out]
			}
			k, err := lz4.UncompressBlockWithDict(block, dst[out:], dict)
			if err != nil {
				return nil, bad("block at %d: %v (or more than the %d bytes announced)", out, err, size)
			}
			out += k
		}
		if contentSum {
			if len(src) < 4 {
				return nil, bad("content checksum missing")
			}
			src = src[4:]
		}
	}
	if out != len(dst) {
		return nil, bad("%d bytes, the chunk announces %d", out, size)
	}
	return dst, nil
}
