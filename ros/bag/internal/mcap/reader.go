package mcap

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
)

// Limits bound what a reader allocates for a file, whatever lengths the
// file announces. A zero field takes its default.
type Limits struct {
	// MaxRecord bounds a record read whole outside a chunk (a schema, a
	// metadata record, an unchunked message). Default 512 MiB.
	MaxRecord int64
	// MaxChunk bounds a chunk's compressed and uncompressed records.
	// Default 512 MiB.
	MaxChunk int64
	// MaxSummary bounds the summary section. Default 256 MiB.
	MaxSummary int64
	// MaxBuffered bounds the uncompressed chunks held at once to merge
	// chunks whose times overlap into log-time order. Default 1 GiB.
	MaxBuffered int64
}

func (l Limits) withDefaults() Limits {
	def := func(v *int64, d int64) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.MaxRecord, 512<<20)
	def(&l.MaxChunk, 512<<20)
	def(&l.MaxSummary, 256<<20)
	def(&l.MaxBuffered, 1<<30)
	return l
}

// segment is a stretch of the data section that holds messages: a chunk,
// or a run of records written outside chunks.
type segment struct {
	chunk      bool
	offset     uint64 // of the chunk record, or of the run's first record
	length     uint64 // of the chunk record, or of the run
	startTime  uint64
	endTime    uint64
	channels   map[uint16]bool // channels with messages in it; nil when unknown
	uncompress uint64          // the chunk's uncompressed size
	bad        error           // damage found while scanning
}

// Reader reads an MCAP file from an io.ReaderAt. Open one with [Open].
// Its fields are read-only.
type Reader struct {
	r    io.ReaderAt
	size int64
	lim  Limits

	Header   Header
	Schemas  map[uint16]*Schema
	Channels map[uint16]*Channel
	// Statistics are the file's, from its summary, or counted by a scan
	// of the data section when the summary is missing or damaged.
	Statistics Statistics
	// Metadata holds the file's metadata records in file order.
	Metadata []Metadata
	// Indexed reports whether the summary's chunk indexes were used;
	// false means the data section was scanned.
	Indexed bool
	// Problems lists the damage found while opening: a summary that could
	// not be used (then the data section was scanned), a truncated data
	// section. Messages reports the damage again at its end.
	Problems []error

	segments []segment
	dataEnd  uint64 // end of the data section (the summary's start, or the file's end)
}

// Open reads the header of the MCAP file in r (size bytes) and its index:
// the summary section when it is intact and indexes every chunk, else a
// scan of the data section, which stops at the first damage and keeps
// what came before. It fails only when r is not an MCAP file.
func Open(r io.ReaderAt, size int64, lim Limits) (*Reader, error) {
	rd := &Reader{r: r, size: size, lim: lim.withDefaults(), Schemas: map[uint16]*Schema{}, Channels: map[uint16]*Channel{}}
	var start [magicLen + recordHeaderLen]byte
	if _, err := r.ReadAt(start[:], 0); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: %d bytes, too short", ErrNotMCAP, size)
		}
		return nil, err
	}
	if !bytes.Equal(start[:len(Magic)], Magic) {
		return nil, fmt.Errorf("%w: bad magic %q", ErrNotMCAP, start[:len(Magic)])
	}
	if start[len(Magic)] != OpHeader {
		return nil, fmt.Errorf("%w: first record has opcode 0x%02x, not a header", ErrNotMCAP, start[len(Magic)])
	}
	hlen := binary.LittleEndian.Uint64(start[len(Magic)+1:])
	if hlen > 1<<20 || int64(hlen) > size-int64(len(start)) {
		return nil, fmt.Errorf("%w: header of %d bytes in a file of %d", ErrNotMCAP, hlen, size)
	}
	hb := make([]byte, hlen)
	if _, err := r.ReadAt(hb, int64(len(start))); err != nil {
		return nil, fmt.Errorf("mcap: header: %w", err)
	}
	h, err := ParseHeader(hb)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotMCAP, err)
	}
	rd.Header = h
	dataStart := uint64(len(start)) + hlen
	rd.dataEnd = uint64(size)
	if err := rd.readSummary(dataStart); err != nil {
		if !errors.Is(err, errNoIndex) {
			rd.Problems = append(rd.Problems, fmt.Errorf("summary not used, data section scanned: %w", err))
		}
		rd.Schemas, rd.Channels, rd.Metadata, rd.segments = map[uint16]*Schema{}, map[uint16]*Channel{}, nil, nil
		rd.Statistics = Statistics{}
		rd.dataEnd = uint64(size)
	}
	if !rd.Indexed {
		rd.scan(dataStart)
	}
	return rd, nil
}

// errNoIndex says the summary is fine but does not index the messages.
var errNoIndex = errors.New("no chunk index")

// readSummary reads the footer and the summary section. It returns an
// error when they are missing, damaged or do not index every chunk; the
// caller then scans the data section.
func (rd *Reader) readSummary(dataStart uint64) error {
	const tail = recordHeaderLen + 20 + 8 // footer record and magic
	if rd.size < int64(dataStart)+tail {
		return fmt.Errorf("%w: no footer", ErrTruncated)
	}
	var ft [tail]byte
	footerAt := rd.size - tail
	if _, err := rd.r.ReadAt(ft[:], footerAt); err != nil {
		return err
	}
	if !bytes.Equal(ft[tail-8:], Magic) {
		return fmt.Errorf("%w: no magic at the end (the recording did not finish?)", ErrTruncated)
	}
	if ft[0] != OpFooter || binary.LittleEndian.Uint64(ft[1:9]) != 20 {
		return fmt.Errorf("%w: no footer before the final magic", ErrCorrupt)
	}
	f, _ := ParseFooter(ft[9 : 9+20])
	if f.SummaryStart == 0 {
		return errNoIndex
	}
	if f.SummaryStart < dataStart || f.SummaryStart > uint64(footerAt) {
		return fmt.Errorf("%w: summary start %d outside the file", ErrCorrupt, f.SummaryStart)
	}
	n := uint64(footerAt) - f.SummaryStart
	if n > uint64(rd.lim.MaxSummary) {
		return fmt.Errorf("%w: summary of %d bytes, the limit is %d", ErrLimit, n, rd.lim.MaxSummary)
	}
	sum := make([]byte, n+recordHeaderLen+16)
	if _, err := rd.r.ReadAt(sum, int64(f.SummaryStart)); err != nil {
		return err
	}
	if f.SummaryCRC != 0 {
		if got := crc32.ChecksumIEEE(sum); got != f.SummaryCRC {
			return fmt.Errorf("%w: summary CRC 0x%08x, the footer says 0x%08x", ErrCorrupt, got, f.SummaryCRC)
		}
	}
	sum = sum[:n]
	var chunks []ChunkIndex
	var metas []MetadataIndex
	haveStats := false
	for off := 0; off < len(sum); {
		op, content, next, err := nextRecord(sum, off)
		if err != nil {
			return fmt.Errorf("summary record at %d: %w", f.SummaryStart+uint64(off), err)
		}
		off = next
		switch op {
		case OpSchema:
			s, err := ParseSchema(content)
			if err != nil {
				return err
			}
			if s.ID != 0 {
				s.Data = slices.Clone(s.Data)
				rd.Schemas[s.ID] = &s
			}
		case OpChannel:
			c, err := ParseChannel(content)
			if err != nil {
				return err
			}
			rd.Channels[c.ID] = &c
		case OpChunkIndex:
			ci, err := ParseChunkIndex(content)
			if err != nil {
				return err
			}
			chunks = append(chunks, ci)
		case OpMetadataIndex:
			mi, err := ParseMetadataIndex(content)
			if err != nil {
				return err
			}
			metas = append(metas, mi)
		case OpStatistics:
			st, err := ParseStatistics(content)
			if err != nil {
				return err
			}
			rd.Statistics, haveStats = st, true
		}
	}
	rd.dataEnd = f.SummaryStart
	// Metadata records, through their index.
	for _, mi := range metas {
		if mi.Offset < dataStart || mi.Length < recordHeaderLen || mi.Offset+mi.Length > rd.dataEnd || mi.Offset+mi.Length < mi.Offset {
			return fmt.Errorf("%w: metadata index %q points at %d+%d, outside the data section", ErrCorrupt, mi.Name, mi.Offset, mi.Length)
		}
		if mi.Length > uint64(rd.lim.MaxRecord) {
			return fmt.Errorf("%w: metadata record of %d bytes, the limit is %d", ErrLimit, mi.Length, rd.lim.MaxRecord)
		}
		b := make([]byte, mi.Length)
		if _, err := rd.r.ReadAt(b, int64(mi.Offset)); err != nil {
			return err
		}
		if b[0] != OpMetadata || binary.LittleEndian.Uint64(b[1:9]) != mi.Length-recordHeaderLen {
			return fmt.Errorf("%w: metadata index %q does not point at a metadata record", ErrCorrupt, mi.Name)
		}
		m, err := ParseMetadata(b[recordHeaderLen:])
		if err != nil {
			return err
		}
		rd.Metadata = append(rd.Metadata, m)
	}
	if !haveStats || (rd.Statistics.MessageCount > 0 && len(chunks) == 0) || int(rd.Statistics.ChunkCount) != len(chunks) {
		if haveStats && rd.Statistics.MessageCount == 0 && len(chunks) == 0 {
			rd.Indexed = true // an empty file
			return nil
		}
		// Messages outside chunks, or chunks the summary does not list:
		// keep the schemas, channels and metadata, scan for the messages.
		rd.Schemas, rd.Channels = map[uint16]*Schema{}, map[uint16]*Channel{}
		rd.Metadata = nil
		rd.Statistics = Statistics{}
		return errNoIndex
	}
	// The chunk indexes: in the data section, each at its own place.
	slices.SortFunc(chunks, func(a, b ChunkIndex) int { return cmp.Compare(a.ChunkStart, b.ChunkStart) })
	end := dataStart
	for _, ci := range chunks {
		if ci.ChunkStart < end || ci.ChunkLength < recordHeaderLen || ci.ChunkStart+ci.ChunkLength > rd.dataEnd || ci.ChunkStart+ci.ChunkLength < ci.ChunkStart {
			return fmt.Errorf("%w: chunk index at %d+%d overlaps another chunk or leaves the data section [%d, %d)", ErrCorrupt, ci.ChunkStart, ci.ChunkLength, dataStart, rd.dataEnd)
		}
		end = ci.ChunkStart + ci.ChunkLength
		seg := segment{chunk: true, offset: ci.ChunkStart, length: ci.ChunkLength, startTime: ci.StartTime, endTime: ci.EndTime, uncompress: ci.UncompressedSize}
		if len(ci.MessageIndexOffsets) > 0 {
			seg.channels = map[uint16]bool{}
			for id := range ci.MessageIndexOffsets {
				seg.channels[id] = true
			}
		}
		rd.segments = append(rd.segments, seg)
	}
	for id, c := range rd.Channels {
		if c.SchemaID != 0 && rd.Schemas[c.SchemaID] == nil {
			return fmt.Errorf("%w: channel %d (%s) refers to schema %d, not in the summary", ErrCorrupt, id, c.Topic, c.SchemaID)
		}
	}
	rd.Indexed = true
	return nil
}

// nextRecord splits the record at b[off:].
func nextRecord(b []byte, off int) (op byte, content []byte, next int, err error) {
	if len(b)-off < recordHeaderLen {
		return 0, nil, 0, fmt.Errorf("%w: record header", ErrTruncated)
	}
	op = b[off]
	n := binary.LittleEndian.Uint64(b[off+1:])
	if n > uint64(len(b)-off-recordHeaderLen) {
		return 0, nil, 0, fmt.Errorf("%w: record 0x%02x of %d bytes, %d left", ErrTruncated, op, n, len(b)-off-recordHeaderLen)
	}
	start := off + recordHeaderLen
	return op, b[start : start+int(n)], start + int(n), nil
}

// runMax closes a run of unchunked records at this many bytes.
const runMax = 4 << 20

// scan reads the data section record by record from dataStart: the
// schemas and channels (also those inside chunks), the metadata, and the
// segments that hold messages, with their times and channels, counting the
// statistics. It stops at the data end record, at the end of the file or at
// the first damage, recorded in Problems.
func (rd *Reader) scan(off uint64) {
	counted := map[uint16]uint64{}
	st := Statistics{ChannelMessageCounts: counted}
	first := true
	note := func(t uint64, ch uint16) {
		if first {
			st.StartTime, st.EndTime, first = t, t, false
		}
		st.StartTime, st.EndTime = min(st.StartTime, t), max(st.EndTime, t)
		st.MessageCount++
		counted[ch]++
	}
	var run *segment
	closeRun := func() {
		if run != nil {
			rd.segments = append(rd.segments, *run)
			run = nil
		}
	}
	defer func() {
		closeRun()
		st.SchemaCount = uint16(len(rd.Schemas))
		st.ChannelCount = uint32(len(rd.Channels))
		st.MetadataCount = uint32(len(rd.Metadata))
		rd.Statistics = st
	}()
	end := uint64(rd.size)
	var hdr [recordHeaderLen + 64]byte
	for {
		if off == end {
			rd.Problems = append(rd.Problems, fmt.Errorf("%w: the data section ends at byte %d without its data end record (the recording did not finish?)", ErrTruncated, off))
			return
		}
		if end-off < recordHeaderLen {
			rd.Problems = append(rd.Problems, fmt.Errorf("%w: %d bytes at %d, not a whole record header", ErrTruncated, end-off, off))
			return
		}
		h := hdr[:min(uint64(len(hdr)), end-off)]
		if _, err := rd.r.ReadAt(h, int64(off)); err != nil && !errors.Is(err, io.EOF) {
			rd.Problems = append(rd.Problems, fmt.Errorf("mcap: read at %d: %w", off, err))
			return
		}
		op := h[0]
		n := binary.LittleEndian.Uint64(h[1:9])
		if n > end-off-recordHeaderLen {
			rd.Problems = append(rd.Problems, fmt.Errorf("%w: record 0x%02x at %d announces %d bytes, %d left", ErrTruncated, op, off, n, end-off-recordHeaderLen))
			return
		}
		recEnd := off + recordHeaderLen + n
		switch op {
		case OpDataEnd, OpFooter:
			closeRun()
			return
		case OpMessage:
			if n < messageHeaderLen {
				rd.Problems = append(rd.Problems, fmt.Errorf("%w: message record at %d of %d bytes", ErrCorrupt, off, n))
				return
			}
			m, _ := ParseMessage(h[recordHeaderLen : recordHeaderLen+messageHeaderLen])
			if run != nil && recEnd-run.offset > runMax {
				closeRun()
			}
			if run == nil {
				run = &segment{offset: off, startTime: m.LogTime, endTime: m.LogTime, channels: map[uint16]bool{}}
			}
			run.length = recEnd - run.offset
			run.startTime, run.endTime = min(run.startTime, m.LogTime), max(run.endTime, m.LogTime)
			run.channels[m.ChannelID] = true
			note(m.LogTime, m.ChannelID)
		case OpSchema, OpChannel, OpMetadata:
			if n > uint64(rd.lim.MaxRecord) {
				rd.Problems = append(rd.Problems, fmt.Errorf("%w: record 0x%02x at %d of %d bytes, the limit is %d", ErrLimit, op, off, n, rd.lim.MaxRecord))
				return
			}
			b := make([]byte, n)
			if _, err := rd.r.ReadAt(b, int64(off+recordHeaderLen)); err != nil {
				rd.Problems = append(rd.Problems, fmt.Errorf("mcap: read at %d: %w", off, err))
				return
			}
			if err := rd.define(op, b); err != nil {
				rd.Problems = append(rd.Problems, fmt.Errorf("record at %d: %w", off, err))
				return
			}
			if run != nil {
				run.length = recEnd - run.offset
			}
		case OpChunk:
			closeRun()
			seg, err := rd.scanChunk(off, n, note)
			if err != nil {
				seg.bad = err
				rd.Problems = append(rd.Problems, err)
			}
			rd.segments = append(rd.segments, seg)
			st.ChunkCount++
		default:
			// Message indexes, attachments, private records: skipped.
			if run != nil {
				closeRun()
			}
		}
		off = recEnd
	}
}

// define records a schema, channel or metadata record met in the data
// section.
func (rd *Reader) define(op byte, b []byte) error {
	switch op {
	case OpSchema:
		s, err := ParseSchema(b)
		if err != nil {
			return err
		}
		if s.ID != 0 && rd.Schemas[s.ID] == nil {
			s.Data = slices.Clone(s.Data)
			rd.Schemas[s.ID] = &s
		}
	case OpChannel:
		c, err := ParseChannel(b)
		if err != nil {
			return err
		}
		if rd.Channels[c.ID] == nil {
			rd.Channels[c.ID] = &c
		}
	case OpMetadata:
		m, err := ParseMetadata(b)
		if err != nil {
			return err
		}
		rd.Metadata = append(rd.Metadata, m)
	}
	return nil
}

// scanChunk reads the chunk record at off (content of n bytes) for a scan:
// it decompresses it to learn its schemas, channels and message times. A
// damaged chunk is returned with the error, to be reported in its place;
// the messages before the damage in its records are counted and kept.
func (rd *Reader) scanChunk(off, n uint64, note func(uint64, uint16)) (segment, error) {
	h, records, err := rd.readChunk(off, n)
	seg := segment{chunk: true, offset: off, length: recordHeaderLen + n, startTime: h.StartTime, endTime: h.EndTime, uncompress: h.UncompressedSize}
	if err != nil {
		return seg, err
	}
	seg.channels = map[uint16]bool{}
	first := true
	err = forRecords(records, func(op byte, content []byte, at int) error {
		switch op {
		case OpSchema, OpChannel:
			return rd.define(op, content)
		case OpMessage:
			m, err := ParseMessage(content)
			if err != nil {
				return err
			}
			if first {
				seg.startTime, seg.endTime, first = m.LogTime, m.LogTime, false
			}
			seg.startTime, seg.endTime = min(seg.startTime, m.LogTime), max(seg.endTime, m.LogTime)
			seg.channels[m.ChannelID] = true
			note(m.LogTime, m.ChannelID)
		}
		return nil
	})
	if err != nil {
		return seg, fmt.Errorf("chunk at %d: %w", off, err)
	}
	return seg, nil
}

// readChunk reads and decompresses the chunk record at off whose content
// is n bytes long, checking its CRC.
func (rd *Reader) readChunk(off, n uint64) (chunkHeader, []byte, error) {
	var hb [8 + 8 + 8 + 4 + 4 + 64 + 8]byte
	h := hb[:min(uint64(len(hb)), n)]
	if _, err := rd.r.ReadAt(h, int64(off+recordHeaderLen)); err != nil {
		return chunkHeader{}, nil, fmt.Errorf("mcap: chunk at %d: %w", off, err)
	}
	ch, err := parseChunkHeader(h, n)
	if err != nil {
		return ch, nil, fmt.Errorf("chunk at %d: %w", off, err)
	}
	if ch.CompressedSize > uint64(rd.lim.MaxChunk) || ch.UncompressedSize > uint64(rd.lim.MaxChunk) {
		return ch, nil, fmt.Errorf("%w: chunk at %d of %d bytes (%d uncompressed), the limit is %d", ErrLimit, off, ch.CompressedSize, ch.UncompressedSize, rd.lim.MaxChunk)
	}
	comp := make([]byte, ch.CompressedSize)
	if _, err := rd.r.ReadAt(comp, int64(off+recordHeaderLen+uint64(ch.dataOffset))); err != nil {
		return ch, nil, fmt.Errorf("mcap: chunk at %d: %w", off, err)
	}
	records, err := decompress(ch.Compression, comp, ch.UncompressedSize)
	if err != nil {
		return ch, nil, fmt.Errorf("chunk at %d: %w", off, err)
	}
	if ch.UncompressedCRC != 0 {
		if got := crc32.ChecksumIEEE(records); got != ch.UncompressedCRC {
			return ch, nil, fmt.Errorf("%w: chunk at %d: CRC 0x%08x, the chunk says 0x%08x", ErrCorrupt, off, got, ch.UncompressedCRC)
		}
	}
	return ch, records, nil
}

// forRecords calls f for each record of b, with its offset; a malformed
// record stops it with an error after the records before it.
func forRecords(b []byte, f func(op byte, content []byte, at int) error) error {
	for off := 0; off < len(b); {
		op, content, next, err := nextRecord(b, off)
		if err != nil {
			return fmt.Errorf("record at %d: %w", off, err)
		}
		if err := f(op, content, off); err != nil {
			return fmt.Errorf("record at %d: %w", off, err)
		}
		off = next
	}
	return nil
}

// ChannelsOf returns the IDs of the channels of the given topics (all
// channels when topics is empty), sorted.
func (rd *Reader) ChannelsOf(topics ...string) []uint16 {
	var ids []uint16
	for id, c := range rd.Channels {
		if len(topics) == 0 || slices.Contains(topics, c.Topic) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}
