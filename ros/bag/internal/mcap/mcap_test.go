package mcap

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"
	"testing"
)

// testMsg is what the tests write and expect back.
type testMsg struct {
	ch   uint16
	t    uint64
	data string
}

// writeFile writes msgs on channels "/a" (1) and "/b" (2) with o.
func writeFile(t testing.TB, o WriterOptions, msgs []testMsg) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, o)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := w.AddSchema("std_msgs/msg/String", "ros2msg", []byte("string data\n"))
	if _, err := w.AddChannel(s, "/a", "cdr", map[string]string{"k": "v"}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddChannel(s, "/b", "cdr", nil); err != nil {
		t.Fatal(err)
	}
	for i, m := range msgs {
		if err := w.WriteMessage(Message{ChannelID: m.ch, Sequence: uint32(i), LogTime: m.t, PublishTime: m.t - 1, Data: []byte(m.data)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.WriteMetadata(Metadata{Name: "rosbag2", Metadata: map[string]string{"x": "y"}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func readAll(t testing.TB, b []byte, o ReadOptions) ([]testMsg, []error, *Reader) {
	t.Helper()
	r, err := Open(bytes.NewReader(b), int64(len(b)), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var got []testMsg
	var errs []error
	for m, err := range r.Messages(o) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		got = append(got, testMsg{m.ChannelID, m.LogTime, string(m.Data)})
	}
	return got, errs, r
}

func sample(n int) []testMsg {
	var msgs []testMsg
	for i := range n {
		msgs = append(msgs, testMsg{ch: uint16(1 + i%2), t: uint64(1000 + 10*i), data: fmt.Sprintf("message %d %s", i, bytes.Repeat([]byte("x"), i%300))})
	}
	return msgs
}

func TestRoundTrip(t *testing.T) {
	msgs := sample(500)
	for _, o := range []WriterOptions{
		{},
		{ChunkSize: 1024},
		{ChunkSize: 100}, // most messages larger than a chunk: written without a copy
		{ChunkSize: 4096, Compression: CompressionZstd},
		{ChunkSize: 4096, Compression: CompressionLZ4, NoChunkCRC: true},
		{ChunkSize: -1},
	} {
		t.Run(fmt.Sprintf("%+v", o), func(t *testing.T) {
			b := writeFile(t, o, msgs)
			got, errs, r := readAll(t, b, ReadOptions{})
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			if !slices.Equal(got, msgs) {
				t.Fatalf("read %d messages, want %d", len(got), len(msgs))
			}
			if r.Indexed != (o.ChunkSize >= 0) {
				t.Errorf("Indexed = %v", r.Indexed)
			}
			if r.Statistics.MessageCount != 500 || r.Statistics.ChannelMessageCounts[1] != 250 || r.Statistics.StartTime != 1000 || r.Statistics.EndTime != 1000+4990 {
				t.Errorf("statistics %+v", r.Statistics)
			}
			if len(r.Metadata) != 1 || r.Metadata[0].Metadata["x"] != "y" {
				t.Errorf("metadata %+v", r.Metadata)
			}
			if r.Channels[1].Topic != "/a" || r.Channels[1].Metadata["k"] != "v" || string(r.Schemas[1].Data) != "string data\n" {
				t.Errorf("channel %+v schema %+v", r.Channels[1], r.Schemas[1])
			}
			// A topic and a time range.
			got, errs, _ = readAll(t, b, ReadOptions{Channels: []uint16{2}, Start: 2000, End: 3000})
			var want []testMsg
			for _, m := range msgs {
				if m.ch == 2 && m.t >= 2000 && m.t < 3000 {
					want = append(want, m)
				}
			}
			if len(errs) > 0 || !slices.Equal(got, want) {
				t.Fatalf("filtered: %d messages (%v), want %d", len(got), errs, len(want))
			}
		})
	}
}

// TestOverlappingChunks writes messages out of log-time order, so that
// chunks overlap in time, and reads them back merged.
func TestOverlappingChunks(t *testing.T) {
	var msgs []testMsg
	for i := range 300 {
		// two interleaved clocks: chunks cover overlapping spans
		tm := uint64(1000 + 7*i)
		if i%2 == 1 {
			tm = uint64(1000 + 7*(300-i))
		}
		msgs = append(msgs, testMsg{ch: 1, t: tm, data: fmt.Sprint(i)})
	}
	b := writeFile(t, WriterOptions{ChunkSize: 512, Compression: CompressionZstd}, msgs)
	got, errs, _ := readAll(t, b, ReadOptions{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := slices.Clone(msgs)
	slices.SortStableFunc(want, func(a, b testMsg) int { return int(a.t) - int(b.t) })
	if !slices.Equal(got, want) {
		t.Fatalf("not in log-time order:\n%v\nwant\n%v", got[:20], want[:20])
	}
	// Bounded: a limit below what the overlap needs is an error, not an
	// allocation.
	r, _ := Open(bytes.NewReader(b), int64(len(b)), Limits{MaxBuffered: 600})
	var err error
	for _, e := range r.Messages(ReadOptions{}) {
		if e != nil {
			err = e
		}
	}
	if !errors.Is(err, ErrLimit) {
		t.Fatalf("err = %v, want ErrLimit", err)
	}
}

// TestTruncated cuts a file at every length: the messages of the whole
// chunks before the cut are read, in order, and the damage is reported.
func TestTruncated(t *testing.T) {
	msgs := sample(200)
	for _, o := range []WriterOptions{{ChunkSize: 2048, Compression: CompressionLZ4}, {ChunkSize: -1}} {
		b := writeFile(t, o, msgs)
		step := max(1, len(b)/300) // ~300 cuts, the first bytes one by one
		for n := 0; n < 100; n++ {
			if r, err := Open(bytes.NewReader(b[:n]), int64(n), Limits{}); err == nil {
				for range r.Messages(ReadOptions{}) {
				}
			}
		}
		for n := 0; n < len(b)-1; n += step {
			cut := b[:n]
			r, err := Open(bytes.NewReader(cut), int64(n), Limits{})
			if err != nil {
				if !errors.Is(err, ErrNotMCAP) && n > 40 {
					t.Fatalf("cut at %d: %v", n, err)
				}
				continue
			}
			var got []testMsg
			var errs []error
			for m, err := range r.Messages(ReadOptions{}) {
				if err != nil {
					errs = append(errs, err)
					continue
				}
				got = append(got, testMsg{m.ChannelID, m.LogTime, string(m.Data)})
			}
			if !slices.Equal(got, msgs[:len(got)]) {
				t.Fatalf("cut at %d: read messages that were not written first", n)
			}
			if len(errs) == 0 && len(got) < len(msgs) {
				t.Fatalf("cut at %d: %d of %d messages and no error", n, len(got), len(msgs))
			}
			if n > len(b)/2 && len(got) < len(msgs)/4 {
				t.Fatalf("cut at %d of %d: only %d messages", n, len(b), len(got))
			}
		}
	}
}

// TestCorruptChunk flips a byte in one chunk: that chunk is reported, the
// others are read.
func TestCorruptChunk(t *testing.T) {
	msgs := sample(300)
	b := writeFile(t, WriterOptions{ChunkSize: 2048}, msgs)
	r, _ := Open(bytes.NewReader(b), int64(len(b)), Limits{})
	if len(r.segments) < 5 {
		t.Fatalf("%d chunks", len(r.segments))
	}
	seg := r.segments[2]
	bad := slices.Clone(b)
	bad[seg.offset+seg.length-5] ^= 0xff
	got, errs, _ := readAll(t, bad, ReadOptions{})
	if len(errs) != 1 || !errors.Is(errs[0], ErrCorrupt) {
		t.Fatalf("errors %v, want one CRC error", errs)
	}
	if len(got) >= len(msgs) || len(got) < len(msgs)-100 {
		t.Fatalf("read %d of %d", len(got), len(msgs))
	}
	// Every message read is one written, in order.
	j := 0
	for _, m := range got {
		for j < len(msgs) && msgs[j] != m {
			j++
		}
		if j == len(msgs) {
			t.Fatalf("message %v not written, or out of order", m)
		}
	}
}

// TestHostileIndex points chunk indexes at the wrong places: each is a
// corrupt summary, and the scan of the data section reads everything.
func TestHostileIndex(t *testing.T) {
	msgs := sample(100)
	b := writeFile(t, WriterOptions{ChunkSize: 1024}, msgs)
	r, _ := Open(bytes.NewReader(b), int64(len(b)), Limits{})
	if !r.Indexed {
		t.Fatal("not indexed")
	}
	// Rewrite the summary with a chunk index of our own.
	rewrite := func(mod func(ci *ChunkIndex)) []byte {
		var ft Footer
		ft, _ = ParseFooter(b[len(b)-8-20:])
		out := slices.Clone(b[:ft.SummaryStart])
		sumStart := uint64(len(out))
		var sum []byte
		for _, s := range r.Schemas {
			sum = AppendSchema(sum, *s)
		}
		for _, id := range r.ChannelsOf() {
			sum = AppendChannel(sum, *r.Channels[id])
		}
		sum = AppendStatistics(sum, r.Statistics)
		for _, seg := range r.segments {
			ci := ChunkIndex{StartTime: seg.startTime, EndTime: seg.endTime, ChunkStart: seg.offset, ChunkLength: seg.length, UncompressedSize: seg.uncompress}
			mod(&ci)
			sum = AppendChunkIndex(sum, ci)
		}
		sum = appendFooterFields(sum, Footer{SummaryStart: sumStart})
		sum = appendU32(sum, 0)
		out = append(out, sum...)
		return append(out, Magic...)
	}
	cases := map[string]func(ci *ChunkIndex){
		"past the end":   func(ci *ChunkIndex) { ci.ChunkStart += 1 << 40 },
		"wrapping":       func(ci *ChunkIndex) { ci.ChunkLength = ^uint64(0) - 3 },
		"at itself":      func(ci *ChunkIndex) { ci.ChunkStart = 8 },
		"shifted":        func(ci *ChunkIndex) { ci.ChunkStart++ },
		"huge chunk":     func(ci *ChunkIndex) { ci.UncompressedSize = 1 << 62 },
		"lying times":    func(ci *ChunkIndex) { ci.StartTime, ci.EndTime = ci.EndTime+1e9, ci.StartTime },
		"shorter length": func(ci *ChunkIndex) { ci.ChunkLength -= 9 },
	}
	for name, mod := range cases {
		t.Run(name, func(t *testing.T) {
			got, errs, _ := readAll(t, rewrite(mod), ReadOptions{})
			if name == "lying times" {
				if len(got) != len(msgs) {
					t.Fatalf("read %d of %d (%v)", len(got), len(msgs), errs)
				}
				return
			}
			if len(got) != len(msgs) && len(errs) == 0 {
				t.Fatalf("read %d of %d and no error", len(got), len(msgs))
			}
			for _, m := range got {
				if !slices.Contains(msgs, m) {
					t.Fatalf("invented %v", m)
				}
			}
		})
	}
}

// TestHugeLengths gives records lengths far beyond the file and the
// limits: errors, not allocations.
func TestHugeLengths(t *testing.T) {
	b := writeFile(t, WriterOptions{ChunkSize: 1024}, sample(50))
	r, _ := Open(bytes.NewReader(b), int64(len(b)), Limits{})
	seg := r.segments[0]
	for name, mod := range map[string]func(b []byte){
		"record length":      func(b []byte) { binary.LittleEndian.PutUint64(b[seg.offset+1:], 1<<62) },
		"uncompressed size":  func(b []byte) { binary.LittleEndian.PutUint64(b[seg.offset+9+16:], 1<<62) },
		"compression string": func(b []byte) { binary.LittleEndian.PutUint32(b[seg.offset+9+28:], 1<<31) },
		"header length":      func(b []byte) { binary.LittleEndian.PutUint64(b[9:], 1<<62) },
		"summary start":      func(b []byte) { binary.LittleEndian.PutUint64(b[len(b)-28:], 1<<62) },
		"footer summary crc": func(b []byte) { b[len(b)-9] ^= 1 },
		"summary record size": func(b []byte) {
			f, _ := ParseFooter(b[len(b)-28:])
			binary.LittleEndian.PutUint64(b[f.SummaryStart+1:], 1<<50)
		},
	} {
		t.Run(name, func(t *testing.T) {
			bad := slices.Clone(b)
			mod(bad)
			r, err := Open(bytes.NewReader(bad), int64(len(bad)), Limits{MaxChunk: 1 << 20, MaxRecord: 1 << 20})
			if err != nil {
				return
			}
			for range r.Messages(ReadOptions{}) {
			}
		})
	}
}

func TestSummaryCRC(t *testing.T) {
	b := writeFile(t, WriterOptions{}, sample(10))
	f, err := ParseFooter(b[len(b)-8-20:])
	if err != nil {
		t.Fatal(err)
	}
	if got := crc32.ChecksumIEEE(b[f.SummaryStart : len(b)-8-4]); got != f.SummaryCRC {
		t.Fatalf("summary CRC 0x%x, footer 0x%x", got, f.SummaryCRC)
	}
}
