// Package mcap reads and writes MCAP files (the container format of
// rosbag2's default storage plugin), as the MCAP specification lays them
// out: magic, header, a data section of schemas, channels and messages in
// compressed chunks followed by their message indexes, and a summary
// section of repeated schemas and channels, statistics, chunk and metadata
// indexes and summary offsets, then the footer and magic.
//
// The reader takes files from anywhere: every length it reads is checked
// against the bytes that remain and against its [Limits] before anything
// is allocated, a damaged summary falls back to a scan of the data
// section, and a damaged chunk is reported without losing the others.
package mcap

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// Magic starts and ends every MCAP file (major version 0).
var Magic = []byte{0x89, 'M', 'C', 'A', 'P', 0x30, '\r', '\n'}

// Opcodes of the records.
const (
	OpHeader          = 0x01
	OpFooter          = 0x02
	OpSchema          = 0x03
	OpChannel         = 0x04
	OpMessage         = 0x05
	OpChunk           = 0x06
	OpMessageIndex    = 0x07
	OpChunkIndex      = 0x08
	OpAttachment      = 0x09
	OpAttachmentIndex = 0x0A
	OpStatistics      = 0x0B
	OpMetadata        = 0x0C
	OpMetadataIndex   = 0x0D
	OpSummaryOffset   = 0x0E
	OpDataEnd         = 0x0F
)

// Errors, matched with errors.Is.
var (
	// ErrNotMCAP reports a file that does not start with the MCAP magic.
	ErrNotMCAP = errors.New("mcap: not an MCAP file")
	// ErrTruncated reports a file or record that ends before what it
	// announces.
	ErrTruncated = errors.New("mcap: truncated")
	// ErrCorrupt reports bytes that cannot be a valid MCAP file: a bad
	// CRC, an index pointing outside the file or at the wrong record, a
	// chunk that does not decompress to its announced size.
	ErrCorrupt = errors.New("mcap: corrupt")
	// ErrLimit reports a record, chunk or summary larger than the reader's
	// [Limits], or more chunks held at once than they allow.
	ErrLimit = errors.New("mcap: over limit")
	// ErrUnsupported reports a chunk compressed with an unknown algorithm.
	ErrUnsupported = errors.New("mcap: unsupported")
)

// magicLen is the length of [Magic].
const magicLen = 8

// recordHeaderLen is the opcode and the uint64 length before every record.
const recordHeaderLen = 9

// Header is the first record of a file.
type Header struct {
	Profile string // "ros2"
	Library string // the writer's name and version
}

// Footer is the last record of a file.
type Footer struct {
	SummaryStart       uint64
	SummaryOffsetStart uint64
	SummaryCRC         uint32
}

// Schema describes the messages of the channels that refer to it.
type Schema struct {
	ID       uint16
	Name     string // "std_msgs/msg/String"
	Encoding string // "ros2msg", "ros2idl", "" for none
	Data     []byte
}

// Channel is a stream of messages on a topic.
type Channel struct {
	ID              uint16
	SchemaID        uint16
	Topic           string
	MessageEncoding string // "cdr"
	Metadata        map[string]string
}

// Message is one timestamped message on a channel. Times are nanoseconds
// since the Unix epoch (rosbag2's receive and send times).
type Message struct {
	ChannelID   uint16
	Sequence    uint32
	LogTime     uint64
	PublishTime uint64
	Data        []byte
}

// MessageIndexEntry locates a message in a chunk's uncompressed records.
type MessageIndexEntry struct {
	LogTime uint64
	Offset  uint64
}

// MessageIndex lists the messages of one channel in a chunk.
type MessageIndex struct {
	ChannelID uint16
	Entries   []MessageIndexEntry
}

// ChunkIndex locates a chunk and its message indexes.
type ChunkIndex struct {
	StartTime           uint64
	EndTime             uint64
	ChunkStart          uint64
	ChunkLength         uint64
	MessageIndexOffsets map[uint16]uint64
	MessageIndexLength  uint64
	Compression         string
	CompressedSize      uint64
	UncompressedSize    uint64
}

// Statistics summarises a file.
type Statistics struct {
	MessageCount         uint64
	SchemaCount          uint16
	ChannelCount         uint32
	AttachmentCount      uint32
	MetadataCount        uint32
	ChunkCount           uint32
	StartTime            uint64
	EndTime              uint64
	ChannelMessageCounts map[uint16]uint64
}

// Metadata is a named map of strings (rosbag2 writes one named "rosbag2").
type Metadata struct {
	Name     string
	Metadata map[string]string
}

// MetadataIndex locates a metadata record.
type MetadataIndex struct {
	Offset uint64
	Length uint64
	Name   string
}

// SummaryOffset locates the group of summary records of one opcode.
type SummaryOffset struct {
	Opcode uint8
	Start  uint64
	Length uint64
}

// chunkHeader is a chunk record without its records.
type chunkHeader struct {
	StartTime        uint64
	EndTime          uint64
	UncompressedSize uint64
	UncompressedCRC  uint32
	Compression      string
	CompressedSize   uint64
	// dataOffset is where the records start, from the start of the
	// record's content.
	dataOffset int
}

// parser reads fields off a record's content. The first failure sticks:
// later reads return zero values and err reports it.
type parser struct {
	b   []byte
	off int
	err error
	rec string // the record's name, for errors
}

func (p *parser) fail(what string) {
	if p.err == nil {
		p.err = fmt.Errorf("%w: %s record: %s at byte %d of %d", ErrTruncated, p.rec, what, p.off, len(p.b))
	}
}

func (p *parser) take(n int, what string) []byte {
	if p.err != nil {
		return nil
	}
	if n < 0 || n > len(p.b)-p.off {
		p.fail(what)
		return nil
	}
	s := p.b[p.off : p.off+n]
	p.off += n
	return s
}

func (p *parser) u8(what string) uint8 {
	if s := p.take(1, what); s != nil {
		return s[0]
	}
	return 0
}

func (p *parser) u16(what string) uint16 {
	if s := p.take(2, what); s != nil {
		return binary.LittleEndian.Uint16(s)
	}
	return 0
}

func (p *parser) u32(what string) uint32 {
	if s := p.take(4, what); s != nil {
		return binary.LittleEndian.Uint32(s)
	}
	return 0
}

func (p *parser) u64(what string) uint64 {
	if s := p.take(8, what); s != nil {
		return binary.LittleEndian.Uint64(s)
	}
	return 0
}

// length reads a uint32 or uint64 length and checks it against the bytes
// that remain.
func (p *parser) length(wide bool, what string) int {
	var n uint64
	if wide {
		n = p.u64(what + " length")
	} else {
		n = uint64(p.u32(what + " length"))
	}
	if p.err == nil && n > uint64(len(p.b)-p.off) {
		p.fail(fmt.Sprintf("%s of %d bytes", what, n))
		return 0
	}
	return int(n)
}

func (p *parser) str(what string) string {
	return string(p.take(p.length(false, what), what))
}

// bytes32 returns a view of a uint32-prefixed byte field.
func (p *parser) bytes32(what string) []byte { return p.take(p.length(false, what), what) }

func (p *parser) stringMap(what string) map[string]string {
	n := p.length(false, what)
	sub := parser{b: p.take(n, what), rec: p.rec}
	m := map[string]string{}
	for p.err == nil && sub.err == nil && sub.off < len(sub.b) {
		k := sub.str(what + " key")
		v := sub.str(what + " value")
		if sub.err == nil {
			m[k] = v
		}
	}
	if p.err == nil {
		p.err = sub.err
	}
	return m
}

func (p *parser) u16u64Map(what string) map[uint16]uint64 {
	n := p.length(false, what)
	sub := parser{b: p.take(n, what), rec: p.rec}
	m := map[uint16]uint64{}
	for p.err == nil && sub.err == nil && sub.off < len(sub.b) {
		k := sub.u16(what + " key")
		v := sub.u64(what + " value")
		if sub.err == nil {
			m[k] = v
		}
	}
	if p.err == nil {
		p.err = sub.err
	}
	return m
}

// ParseHeader parses a Header record's content.
func ParseHeader(b []byte) (Header, error) {
	p := parser{b: b, rec: "header"}
	h := Header{Profile: p.str("profile"), Library: p.str("library")}
	return h, p.err
}

// ParseFooter parses a Footer record's content.
func ParseFooter(b []byte) (Footer, error) {
	p := parser{b: b, rec: "footer"}
	f := Footer{SummaryStart: p.u64("summary_start"), SummaryOffsetStart: p.u64("summary_offset_start"), SummaryCRC: p.u32("summary_crc")}
	return f, p.err
}

// ParseSchema parses a Schema record's content. Data is a view of b.
func ParseSchema(b []byte) (Schema, error) {
	p := parser{b: b, rec: "schema"}
	s := Schema{ID: p.u16("id"), Name: p.str("name"), Encoding: p.str("encoding"), Data: p.bytes32("data")}
	return s, p.err
}

// ParseChannel parses a Channel record's content.
func ParseChannel(b []byte) (Channel, error) {
	p := parser{b: b, rec: "channel"}
	c := Channel{ID: p.u16("id"), SchemaID: p.u16("schema_id"), Topic: p.str("topic"),
		MessageEncoding: p.str("message_encoding"), Metadata: p.stringMap("metadata")}
	return c, p.err
}

// messageHeaderLen is the fixed part of a Message record.
const messageHeaderLen = 2 + 4 + 8 + 8

// ParseMessage parses a Message record's content. Data is a view of b.
func ParseMessage(b []byte) (Message, error) {
	p := parser{b: b, rec: "message"}
	m := Message{ChannelID: p.u16("channel_id"), Sequence: p.u32("sequence"), LogTime: p.u64("log_time"), PublishTime: p.u64("publish_time")}
	if p.err != nil {
		return Message{}, p.err
	}
	m.Data = b[p.off:]
	return m, nil
}

// parseChunkHeader parses the fields of a Chunk record before its records.
// b may hold only the start of the record's content; the records' length
// is checked against contentLen, the length of the whole content.
func parseChunkHeader(b []byte, contentLen uint64) (chunkHeader, error) {
	p := parser{b: b, rec: "chunk"}
	h := chunkHeader{StartTime: p.u64("message_start_time"), EndTime: p.u64("message_end_time"),
		UncompressedSize: p.u64("uncompressed_size"), UncompressedCRC: p.u32("uncompressed_crc")}
	h.Compression = p.str("compression")
	h.CompressedSize = p.u64("records length")
	if p.err != nil {
		return h, p.err
	}
	h.dataOffset = p.off
	if h.CompressedSize != contentLen-uint64(p.off) {
		return h, fmt.Errorf("%w: chunk records of %d bytes in a chunk record of %d", ErrCorrupt, h.CompressedSize, contentLen)
	}
	return h, nil
}

// ParseMessageIndex parses a Message Index record's content.
func ParseMessageIndex(b []byte) (MessageIndex, error) {
	p := parser{b: b, rec: "message index"}
	mi := MessageIndex{ChannelID: p.u16("channel_id")}
	n := p.length(false, "records")
	sub := parser{b: p.take(n, "records"), rec: p.rec}
	if p.err != nil {
		return mi, p.err
	}
	if len(sub.b)%16 != 0 {
		return mi, fmt.Errorf("%w: message index of %d bytes is not whole entries", ErrCorrupt, len(sub.b))
	}
	mi.Entries = make([]MessageIndexEntry, 0, len(sub.b)/16)
	for sub.off < len(sub.b) {
		mi.Entries = append(mi.Entries, MessageIndexEntry{LogTime: sub.u64("log_time"), Offset: sub.u64("offset")})
	}
	return mi, nil
}

// ParseChunkIndex parses a Chunk Index record's content.
func ParseChunkIndex(b []byte) (ChunkIndex, error) {
	p := parser{b: b, rec: "chunk index"}
	ci := ChunkIndex{StartTime: p.u64("message_start_time"), EndTime: p.u64("message_end_time"),
		ChunkStart: p.u64("chunk_start_offset"), ChunkLength: p.u64("chunk_length")}
	ci.MessageIndexOffsets = p.u16u64Map("message_index_offsets")
	ci.MessageIndexLength = p.u64("message_index_length")
	ci.Compression = p.str("compression")
	ci.CompressedSize = p.u64("compressed_size")
	ci.UncompressedSize = p.u64("uncompressed_size")
	return ci, p.err
}

// ParseStatistics parses a Statistics record's content.
func ParseStatistics(b []byte) (Statistics, error) {
	p := parser{b: b, rec: "statistics"}
	s := Statistics{MessageCount: p.u64("message_count"), SchemaCount: p.u16("schema_count"),
		ChannelCount: p.u32("channel_count"), AttachmentCount: p.u32("attachment_count"),
		MetadataCount: p.u32("metadata_count"), ChunkCount: p.u32("chunk_count"),
		StartTime: p.u64("message_start_time"), EndTime: p.u64("message_end_time")}
	s.ChannelMessageCounts = p.u16u64Map("channel_message_counts")
	return s, p.err
}

// ParseMetadata parses a Metadata record's content.
func ParseMetadata(b []byte) (Metadata, error) {
	p := parser{b: b, rec: "metadata"}
	m := Metadata{Name: p.str("name"), Metadata: p.stringMap("metadata")}
	return m, p.err
}

// ParseMetadataIndex parses a Metadata Index record's content.
func ParseMetadataIndex(b []byte) (MetadataIndex, error) {
	p := parser{b: b, rec: "metadata index"}
	mi := MetadataIndex{Offset: p.u64("offset"), Length: p.u64("length"), Name: p.str("name")}
	return mi, p.err
}

// ParseSummaryOffset parses a Summary Offset record's content.
func ParseSummaryOffset(b []byte) (SummaryOffset, error) {
	p := parser{b: b, rec: "summary offset"}
	so := SummaryOffset{Opcode: p.u8("group_opcode"), Start: p.u64("group_start"), Length: p.u64("group_length")}
	return so, p.err
}

// Appending records. Each append function writes the opcode, the length
// and the content.

func appendU16(b []byte, v uint16) []byte { return binary.LittleEndian.AppendUint16(b, v) }
func appendU32(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }
func appendU64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }

func appendStr(b []byte, s string) []byte {
	b = appendU32(b, uint32(len(s)))
	return append(b, s...)
}

// appendStringMap writes m with its keys sorted, so that a file is the
// same for the same content.
func appendStringMap(b []byte, m map[string]string) []byte {
	n := 0
	for k, v := range m {
		n += 8 + len(k) + len(v)
	}
	b = appendU32(b, uint32(n))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		b = appendStr(b, k)
		b = appendStr(b, m[k])
	}
	return b
}

func appendU16U64Map(b []byte, m map[uint16]uint64) []byte {
	b = appendU32(b, uint32(10*len(m)))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		b = appendU16(b, k)
		b = appendU64(b, m[k])
	}
	return b
}

// beginRecord appends the opcode and a length to fill in with
// endRecord.
func beginRecord(b []byte, op byte) ([]byte, int) {
	b = append(b, op, 0, 0, 0, 0, 0, 0, 0, 0)
	return b, len(b)
}

func endRecord(b []byte, start int) []byte {
	binary.LittleEndian.PutUint64(b[start-8:start], uint64(len(b)-start))
	return b
}

// AppendHeader appends a Header record.
func AppendHeader(b []byte, h Header) []byte {
	b, s := beginRecord(b, OpHeader)
	b = appendStr(b, h.Profile)
	b = appendStr(b, h.Library)
	return endRecord(b, s)
}

// AppendSchema appends a Schema record.
func AppendSchema(b []byte, sc Schema) []byte {
	b, s := beginRecord(b, OpSchema)
	b = appendU16(b, sc.ID)
	b = appendStr(b, sc.Name)
	b = appendStr(b, sc.Encoding)
	b = appendU32(b, uint32(len(sc.Data)))
	b = append(b, sc.Data...)
	return endRecord(b, s)
}

// AppendChannel appends a Channel record.
func AppendChannel(b []byte, c Channel) []byte {
	b, s := beginRecord(b, OpChannel)
	b = appendU16(b, c.ID)
	b = appendU16(b, c.SchemaID)
	b = appendStr(b, c.Topic)
	b = appendStr(b, c.MessageEncoding)
	b = appendStringMap(b, c.Metadata)
	return endRecord(b, s)
}

// AppendMessage appends a Message record.
func AppendMessage(b []byte, m Message) []byte {
	b, s := beginRecord(b, OpMessage)
	b = appendU16(b, m.ChannelID)
	b = appendU32(b, m.Sequence)
	b = appendU64(b, m.LogTime)
	b = appendU64(b, m.PublishTime)
	b = append(b, m.Data...)
	return endRecord(b, s)
}

// appendChunkHeader appends a Chunk record's opcode, length and fields
// up to its records, which the caller writes next (compressedSize bytes).
func appendChunkHeader(b []byte, h chunkHeader) []byte {
	content := uint64(8+8+8+4+4+len(h.Compression)+8) + h.CompressedSize
	b = append(b, OpChunk)
	b = appendU64(b, content)
	b = appendU64(b, h.StartTime)
	b = appendU64(b, h.EndTime)
	b = appendU64(b, h.UncompressedSize)
	b = appendU32(b, h.UncompressedCRC)
	b = appendStr(b, h.Compression)
	return appendU64(b, h.CompressedSize)
}

// AppendMessageIndex appends a Message Index record.
func AppendMessageIndex(b []byte, mi MessageIndex) []byte {
	b, s := beginRecord(b, OpMessageIndex)
	b = appendU16(b, mi.ChannelID)
	b = appendU32(b, uint32(16*len(mi.Entries)))
	for _, e := range mi.Entries {
		b = appendU64(b, e.LogTime)
		b = appendU64(b, e.Offset)
	}
	return endRecord(b, s)
}

// AppendChunkIndex appends a Chunk Index record.
func AppendChunkIndex(b []byte, ci ChunkIndex) []byte {
	b, s := beginRecord(b, OpChunkIndex)
	b = appendU64(b, ci.StartTime)
	b = appendU64(b, ci.EndTime)
	b = appendU64(b, ci.ChunkStart)
	b = appendU64(b, ci.ChunkLength)
	b = appendU16U64Map(b, ci.MessageIndexOffsets)
	b = appendU64(b, ci.MessageIndexLength)
	b = appendStr(b, ci.Compression)
	b = appendU64(b, ci.CompressedSize)
	b = appendU64(b, ci.UncompressedSize)
	return endRecord(b, s)
}

// AppendStatistics appends a Statistics record.
func AppendStatistics(b []byte, st Statistics) []byte {
	b, s := beginRecord(b, OpStatistics)
	b = appendU64(b, st.MessageCount)
	b = appendU16(b, st.SchemaCount)
	b = appendU32(b, st.ChannelCount)
	b = appendU32(b, st.AttachmentCount)
	b = appendU32(b, st.MetadataCount)
	b = appendU32(b, st.ChunkCount)
	b = appendU64(b, st.StartTime)
	b = appendU64(b, st.EndTime)
	b = appendU16U64Map(b, st.ChannelMessageCounts)
	return endRecord(b, s)
}

// AppendMetadata appends a Metadata record.
func AppendMetadata(b []byte, m Metadata) []byte {
	b, s := beginRecord(b, OpMetadata)
	b = appendStr(b, m.Name)
	b = appendStringMap(b, m.Metadata)
	return endRecord(b, s)
}

// AppendMetadataIndex appends a Metadata Index record.
func AppendMetadataIndex(b []byte, mi MetadataIndex) []byte {
	b, s := beginRecord(b, OpMetadataIndex)
	b = appendU64(b, mi.Offset)
	b = appendU64(b, mi.Length)
	b = appendStr(b, mi.Name)
	return endRecord(b, s)
}

// AppendSummaryOffset appends a Summary Offset record.
func AppendSummaryOffset(b []byte, so SummaryOffset) []byte {
	b, s := beginRecord(b, OpSummaryOffset)
	b = append(b, so.Opcode)
	b = appendU64(b, so.Start)
	b = appendU64(b, so.Length)
	return endRecord(b, s)
}

// AppendDataEnd appends a Data End record.
func AppendDataEnd(b []byte, crc uint32) []byte {
	b, s := beginRecord(b, OpDataEnd)
	b = appendU32(b, crc)
	return endRecord(b, s)
}

// appendFooterFields appends a Footer record up to (without) its CRC,
// which covers these bytes too.
func appendFooterFields(b []byte, f Footer) []byte {
	b = append(b, OpFooter)
	b = appendU64(b, 20)
	b = appendU64(b, f.SummaryStart)
	return appendU64(b, f.SummaryOffsetStart)
}
