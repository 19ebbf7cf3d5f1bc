package mcap

import (
	"bytes"
	"testing"
)

// FuzzReader opens any bytes as an MCAP file and reads every message:
// never a panic, never an allocation beyond the limits.
func FuzzReader(f *testing.F) {
	msgs := sample(20)
	for _, o := range []WriterOptions{{}, {ChunkSize: 256}, {ChunkSize: 512, Compression: CompressionZstd},
		{ChunkSize: 512, Compression: CompressionLZ4}, {ChunkSize: -1}} {
		b := writeFile(f, o, msgs)
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add(append(append([]byte(nil), Magic...), 1, 0, 0, 0, 0, 0, 0, 0, 0))
	lim := Limits{MaxRecord: 1 << 20, MaxChunk: 1 << 20, MaxSummary: 1 << 20, MaxBuffered: 4 << 20}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Open(bytes.NewReader(b), int64(len(b)), lim)
		if err != nil {
			return
		}
		n := 0
		for m, err := range r.Messages(ReadOptions{}) {
			if err == nil && r.Channels[m.ChannelID] == nil {
				t.Fatalf("message on unknown channel %d", m.ChannelID)
			}
			n++
		}
		for range r.Messages(ReadOptions{Channels: []uint16{1}, Start: 1100, End: 1500}) {
		}
	})
}

// FuzzRecords parses any bytes as each kind of record.
func FuzzRecords(f *testing.F) {
	f.Add(AppendChannel(nil, Channel{ID: 1, Topic: "/a", Metadata: map[string]string{"a": "b"}})[9:])
	f.Add(AppendChunkIndex(nil, ChunkIndex{MessageIndexOffsets: map[uint16]uint64{1: 2}})[9:])
	f.Add(AppendStatistics(nil, Statistics{ChannelMessageCounts: map[uint16]uint64{1: 2}})[9:])
	f.Add(AppendMessageIndex(nil, MessageIndex{Entries: []MessageIndexEntry{{1, 2}}})[9:])
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = ParseHeader(b)
		_, _ = ParseSchema(b)
		_, _ = ParseChannel(b)
		_, _ = ParseMessage(b)
		_, _ = ParseMessageIndex(b)
		_, _ = ParseChunkIndex(b)
		_, _ = ParseStatistics(b)
		_, _ = ParseMetadata(b)
		_, _ = ParseMetadataIndex(b)
		_, _ = ParseSummaryOffset(b)
		_, _ = parseChunkHeader(b, uint64(len(b)))
		_, _ = decompress("lz4", b, 1000)
		_, _ = decompress("zstd", b, 1000)
	})
}
