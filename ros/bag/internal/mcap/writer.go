package mcap

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"slices"
)

// DefaultChunkSize is the uncompressed size at which a chunk is closed,
// as in the reference writers (768 KiB).
const DefaultChunkSize = 768 << 10

// WriterOptions configure a [Writer]. The zero value writes chunks of
// DefaultChunkSize, uncompressed, with CRCs, as rosbag2's default does
// (except its chunk CRCs, which it leaves out).
type WriterOptions struct {
	Profile string // "ros2"
	Library string
	// ChunkSize closes a chunk once its records reach this many bytes; 0
	// means DefaultChunkSize, a negative size writes no chunks (messages
	// go to the data section as they are, unindexed).
	ChunkSize   int64
	Compression Compression
	Level       Level
	// NoChunkCRC leaves the chunks' CRCs out (rosbag2's default).
	NoChunkCRC bool
}

// Writer writes an MCAP file. It is not safe for concurrent use.
type Writer struct {
	w    io.Writer
	opts WriterOptions
	comp compressor
	off  uint64 // bytes written to w
	err  error  // the first write error: every later call returns it

	schemas  []Schema // by ID-1
	channels []Channel
	written  map[uint16]bool // schemas and channels written to the data section
	chWrote  map[uint16]bool

	chunk      []byte // uncompressed records of the open chunk
	compressed []byte
	chunkStart uint64
	chunkEnd   uint64
	msgIndex   map[uint16]*MessageIndex
	hdr        []byte

	stats         Statistics
	chunkIndexes  []ChunkIndex
	metaIndexes   []MetadataIndex
	closed        bool
	statsStarted  bool
	schemaChannel []byte
	large         *largeChunk // a chunk written by writeLargeChunk, to index
}

// largeChunk is a chunk written straight to the file.
type largeChunk struct {
	header chunkHeader
	start  uint64
}

// ErrClosed is returned by a closed writer.
var ErrClosed = errors.New("mcap: writer closed")

// NewWriter writes the magic and the header to w and returns a writer of
// the rest. Close must be called to write the summary and the footer.
func NewWriter(w io.Writer, o WriterOptions) (*Writer, error) {
	comp, err := newCompressor(o.Compression, o.Level)
	if err != nil {
		return nil, err
	}
	if o.ChunkSize == 0 {
		o.ChunkSize = DefaultChunkSize
	}
	mw := &Writer{w: w, opts: o, comp: comp, written: map[uint16]bool{}, chWrote: map[uint16]bool{},
		msgIndex: map[uint16]*MessageIndex{}, chunkStart: ^uint64(0)}
	mw.stats.ChannelMessageCounts = map[uint16]uint64{}
	b := append([]byte(nil), Magic...)
	b = AppendHeader(b, Header{Profile: o.Profile, Library: o.Library})
	mw.write(b)
	return mw, mw.err
}

func (w *Writer) write(b []byte) {
	if w.err != nil {
		return
	}
	n, err := w.w.Write(b)
	w.off += uint64(n)
	if err != nil {
		w.err = fmt.Errorf("mcap: write: %w", err)
	}
}

// Size returns the bytes written so far, without the open chunk.
func (w *Writer) Size() uint64 { return w.off }

// AddSchema registers a schema and returns its ID (from 1). It is written
// before the first message of a channel that uses it.
func (w *Writer) AddSchema(name, encoding string, data []byte) (uint16, error) {
	if len(w.schemas) >= 0xFFFF {
		return 0, fmt.Errorf("%w: more than 65535 schemas", ErrLimit)
	}
	id := uint16(len(w.schemas) + 1)
	w.schemas = append(w.schemas, Schema{ID: id, Name: name, Encoding: encoding, Data: slices.Clone(data)})
	w.stats.SchemaCount++
	return id, nil
}

// AddChannel registers a channel and returns its ID (from 1). It is
// written before its first message.
func (w *Writer) AddChannel(schemaID uint16, topic, encoding string, metadata map[string]string) (uint16, error) {
	if int(schemaID) > len(w.schemas) {
		return 0, fmt.Errorf("mcap: channel %s: unknown schema %d", topic, schemaID)
	}
	if len(w.channels) >= 0xFFFF {
		return 0, fmt.Errorf("%w: more than 65535 channels", ErrLimit)
	}
	id := uint16(len(w.channels) + 1)
	w.channels = append(w.channels, Channel{ID: id, SchemaID: schemaID, Topic: topic, MessageEncoding: encoding, Metadata: maps.Clone(metadata)})
	w.stats.ChannelCount++
	return id, nil
}

// out returns where records go: the open chunk, or the file.
func (w *Writer) chunked() bool { return w.opts.ChunkSize > 0 }

// emit appends a record (in b) to the open chunk, or writes it.
func (w *Writer) emit(b []byte) {
	if w.chunked() {
		w.chunk = append(w.chunk, b...)
		return
	}
	w.write(b)
}

// WriteMessage writes a message on a channel added before. Its data is
// copied.
func (w *Writer) WriteMessage(m Message) error {
	if w.closed {
		return ErrClosed
	}
	if w.err != nil {
		return w.err
	}
	if m.ChannelID == 0 || int(m.ChannelID) > len(w.channels) {
		return fmt.Errorf("mcap: message on unknown channel %d", m.ChannelID)
	}
	if !w.chWrote[m.ChannelID] {
		ch := w.channels[m.ChannelID-1]
		w.schemaChannel = w.schemaChannel[:0]
		if ch.SchemaID != 0 && !w.written[ch.SchemaID] {
			w.schemaChannel = AppendSchema(w.schemaChannel, w.schemas[ch.SchemaID-1])
			w.written[ch.SchemaID] = true
		}
		w.schemaChannel = AppendChannel(w.schemaChannel, ch)
		w.chWrote[m.ChannelID] = true
		w.emit(w.schemaChannel)
	}
	size := recordHeaderLen + messageHeaderLen + len(m.Data)
	if w.chunked() && len(w.chunk) > 0 && int64(len(w.chunk)+size) >= w.opts.ChunkSize && w.chunkStart != ^uint64(0) {
		w.flushChunk()
	}
	offset := uint64(len(w.chunk))
	if w.chunked() && w.comp == nil && int64(size) >= w.opts.ChunkSize && w.chunkStart == ^uint64(0) {
		// A message as large as a chunk, uncompressed (a camera image):
		// its chunk goes out without copying it.
		w.writeLargeChunk(m)
	} else if w.chunked() {
		w.chunk = AppendMessage(w.chunk, m)
	} else {
		w.hdr = AppendMessage(w.hdr[:0], Message{ChannelID: m.ChannelID, Sequence: m.Sequence, LogTime: m.LogTime, PublishTime: m.PublishTime})
		// Write the header and the data apart: a large message is not copied.
		w.hdr = w.hdr[:recordHeaderLen+messageHeaderLen]
		putLen(w.hdr, uint64(messageHeaderLen+len(m.Data)))
		w.write(w.hdr)
		w.write(m.Data)
	}
	if !w.statsStarted {
		w.stats.StartTime, w.stats.EndTime, w.statsStarted = m.LogTime, m.LogTime, true
	}
	w.stats.StartTime = min(w.stats.StartTime, m.LogTime)
	w.stats.EndTime = max(w.stats.EndTime, m.LogTime)
	w.stats.MessageCount++
	w.stats.ChannelMessageCounts[m.ChannelID]++
	if w.chunked() {
		mi := w.msgIndex[m.ChannelID]
		if mi == nil {
			mi = &MessageIndex{ChannelID: m.ChannelID}
			w.msgIndex[m.ChannelID] = mi
		}
		mi.Entries = append(mi.Entries, MessageIndexEntry{LogTime: m.LogTime, Offset: offset})
		w.chunkStart = min(w.chunkStart, m.LogTime)
		w.chunkEnd = max(w.chunkEnd, m.LogTime)
		if w.large != nil {
			w.finishChunk(w.large.header, w.large.start)
			w.large = nil
		} else if int64(len(w.chunk)) >= w.opts.ChunkSize {
			w.flushChunk()
		}
	}
	return w.err
}

func putLen(rec []byte, n uint64) {
	for i := range 8 {
		rec[1+i] = byte(n >> (8 * i))
	}
}

// writeLargeChunk writes the open chunk's records (schemas, channels) and
// m as one uncompressed chunk, m's data straight from the caller.
func (w *Writer) writeLargeChunk(m Message) {
	pre := w.chunk
	w.hdr = AppendMessage(w.hdr[:0], Message{ChannelID: m.ChannelID, Sequence: m.Sequence, LogTime: m.LogTime, PublishTime: m.PublishTime})
	putLen(w.hdr, uint64(messageHeaderLen+len(m.Data)))
	msgHdr := w.hdr
	records := uint64(len(pre) + len(msgHdr) + len(m.Data))
	var crc uint32
	if !w.opts.NoChunkCRC {
		crc = crc32.Update(crc32.Update(crc32.ChecksumIEEE(pre), crc32.IEEETable, msgHdr), crc32.IEEETable, m.Data)
	}
	h := chunkHeader{StartTime: m.LogTime, EndTime: m.LogTime, UncompressedSize: records, UncompressedCRC: crc, CompressedSize: records}
	start := w.off
	w.write(appendChunkHeader(nil, h))
	w.write(pre)
	w.write(msgHdr)
	w.write(m.Data)
	w.large = &largeChunk{header: h, start: start}
}

// Compression below 1 KiB, or saving less than 2%, is not worth it: the
// chunk is written uncompressed, as the reference writer does.
const (
	minCompressSize = 1024
	minRatio        = 1.02
)

// flushChunk writes the open chunk and its message indexes.
func (w *Writer) flushChunk() {
	if len(w.chunk) == 0 || w.err != nil {
		return
	}
	data, comp := w.chunk, CompressionNone
	if w.comp != nil && len(w.chunk) >= minCompressSize {
		c, err := w.comp.compress(w.compressed, w.chunk)
		if err != nil {
			w.err = fmt.Errorf("mcap: compress chunk: %w", err)
			return
		}
		w.compressed = c
		if float64(len(w.chunk))/float64(max(len(c), 1)) >= minRatio {
			data, comp = c, w.opts.Compression
		}
	}
	var crc uint32
	if !w.opts.NoChunkCRC {
		crc = crc32.ChecksumIEEE(w.chunk)
	}
	start, end := w.chunkStart, w.chunkEnd
	if start == ^uint64(0) {
		start, end = 0, 0
	}
	h := chunkHeader{StartTime: start, EndTime: end, UncompressedSize: uint64(len(w.chunk)),
		UncompressedCRC: crc, Compression: string(comp), CompressedSize: uint64(len(data))}
	chunkOff := w.off
	w.hdr = appendChunkHeader(w.hdr[:0], h)
	w.write(w.hdr)
	w.write(data)
	w.finishChunk(h, chunkOff)
}

// finishChunk writes the message indexes of the chunk h just written at
// chunkOff, indexes it and starts the next one.
func (w *Writer) finishChunk(h chunkHeader, chunkOff uint64) {
	ci := ChunkIndex{StartTime: h.StartTime, EndTime: h.EndTime, ChunkStart: chunkOff, ChunkLength: w.off - chunkOff,
		MessageIndexOffsets: map[uint16]uint64{}, Compression: h.Compression,
		CompressedSize: h.CompressedSize, UncompressedSize: h.UncompressedSize}
	miStart := w.off
	for _, id := range slices.Sorted(maps.Keys(w.msgIndex)) {
		mi := w.msgIndex[id]
		if len(mi.Entries) == 0 {
			continue
		}
		ci.MessageIndexOffsets[id] = w.off
		w.hdr = AppendMessageIndex(w.hdr[:0], *mi)
		w.write(w.hdr)
		mi.Entries = mi.Entries[:0]
	}
	ci.MessageIndexLength = w.off - miStart
	w.chunkIndexes = append(w.chunkIndexes, ci)
	w.stats.ChunkCount++
	w.chunk = w.chunk[:0]
	if cap(w.chunk) > 64<<20 {
		w.chunk = nil // one huge message grew it: do not keep that much
		w.compressed = nil
	}
	w.chunkStart, w.chunkEnd = ^uint64(0), 0
}

// Flush closes the open chunk, so that what was written so far is in the
// file.
func (w *Writer) Flush() error {
	if w.closed {
		return ErrClosed
	}
	w.flushChunk()
	return w.err
}

// WriteMetadata writes a metadata record to the data section (closing
// the open chunk first) and indexes it in the summary.
func (w *Writer) WriteMetadata(m Metadata) error {
	if w.closed {
		return ErrClosed
	}
	w.flushChunk()
	off := w.off
	w.hdr = AppendMetadata(w.hdr[:0], m)
	w.write(w.hdr)
	w.metaIndexes = append(w.metaIndexes, MetadataIndex{Offset: off, Length: w.off - off, Name: m.Name})
	w.stats.MetadataCount++
	return w.err
}

// Close writes the open chunk, the data end, the summary, the footer and
// the magic. It does not close the underlying writer.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	w.flushChunk()
	w.closed = true
	w.write(AppendDataEnd(nil, 0))
	if w.err != nil {
		return w.err
	}
	summaryStart := w.off
	var b []byte
	var offsets []SummaryOffset
	group := func(op byte, fill func()) {
		start := uint64(len(b))
		fill()
		if uint64(len(b)) > start {
			offsets = append(offsets, SummaryOffset{Opcode: op, Start: summaryStart + start, Length: uint64(len(b)) - start})
		}
	}
	group(OpSchema, func() {
		for _, s := range w.schemas {
			b = AppendSchema(b, s)
		}
	})
	group(OpChannel, func() {
		for _, c := range w.channels {
			b = AppendChannel(b, c)
		}
	})
	group(OpStatistics, func() { b = AppendStatistics(b, w.stats) })
	group(OpChunkIndex, func() {
		for _, ci := range w.chunkIndexes {
			b = AppendChunkIndex(b, ci)
		}
	})
	group(OpMetadataIndex, func() {
		for _, mi := range w.metaIndexes {
			b = AppendMetadataIndex(b, mi)
		}
	})
	offsetStart := summaryStart + uint64(len(b))
	for _, so := range offsets {
		b = AppendSummaryOffset(b, so)
	}
	b = appendFooterFields(b, Footer{SummaryStart: summaryStart, SummaryOffsetStart: offsetStart})
	b = appendU32(b, crc32.ChecksumIEEE(b))
	b = append(b, Magic...)
	w.write(b)
	return w.err
}
