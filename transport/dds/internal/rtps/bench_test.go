package rtps

import (
	"testing"
)

// countHandler counts DATA payload bytes, so the work is not optimised out.
type countHandler struct {
	NopHandler
	n int
}

func (h *countHandler) Data(_ *Context, d *Data) { h.n += len(d.Payload) }

func benchMessage(size int) []byte {
	var b Builder
	b.Reset(Header{Version: ProtocolVersion{2, 2}, Vendor: VendorEProsima, Prefix: fastPrefix})
	b.InfoDst(ourPrefix)
	b.InfoTS(Time{0x6b0f0fe0, 0x6fad579b})
	payload := make([]byte, size)
	payload[1] = 1
	b.Data(&Data{ReaderID: NewUserEntityID(0x13, KindReaderNoKey), WriterID: NewUserEntityID(0x13, KindWriterNoKey), SN: 1, Payload: payload})
	msg := append([]byte(nil), b.Bytes()...)
	return append(msg, hx(nil, fastStats)...)
}

// BenchmarkParseData parses a Fast DDS-shaped user DATA message (INFO_DST,
// INFO_TS, DATA with a 64-byte payload, statistics submessage).
func BenchmarkParseData(b *testing.B) {
	msg := benchMessage(64)
	r := Receiver{Self: ourPrefix}
	var h countHandler
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		if err := r.Parse(msg, &h); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCopyMessage is the floor for BenchmarkParseData: copying the
// same datagram once.
func BenchmarkCopyMessage(b *testing.B) {
	msg := benchMessage(64)
	dst := make([]byte, len(msg))
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		copy(dst, msg)
	}
}

// BenchmarkBuildData builds INFO_DST, INFO_TS and a DATA of 64 bytes into a
// reused Builder.
func BenchmarkBuildData(b *testing.B) {
	benchBuild(b, 64)
}

// BenchmarkBuildData64K builds a 60000-byte DATA: the cost is the one copy.
func BenchmarkBuildData64K(b *testing.B) {
	benchBuild(b, 60000)
}

func benchBuild(b *testing.B, size int) {
	payload := make([]byte, size)
	d := Data{ReaderID: NewUserEntityID(0x13, KindReaderNoKey), WriterID: NewUserEntityID(0x13, KindWriterNoKey), Payload: payload}
	hdr := Header{Version: ProtocolVersion24, Vendor: VendorAfor, Prefix: ourPrefix}
	var bld Builder
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		bld.Reset(hdr)
		bld.InfoDst(fastPrefix)
		bld.InfoTS(Time{0x6b0f0fe0, 0x6fad579b})
		d.SN++
		bld.Data(&d)
	}
}

// BenchmarkAppendPayload is the floor for the Build benchmarks: appending
// the payload to a reused buffer.
func BenchmarkAppendPayload(b *testing.B) {
	payload := make([]byte, 64)
	buf := make([]byte, 0, 256)
	b.SetBytes(64)
	b.ReportAllocs()
	for b.Loop() {
		buf = append(buf[:0], payload...)
	}
}

func BenchmarkParseParticipantData(b *testing.B) {
	msg := fastSPDP(b)
	body := msg[HeaderSize+12+24:][:428]
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseParticipantData(body, VendorEProsima); err != nil {
			b.Fatal(err)
		}
	}
}

func TestParseAllocations(t *testing.T) {
	msg := benchMessage(64)
	r := Receiver{Self: ourPrefix}
	var h countHandler
	if n := testing.AllocsPerRun(100, func() { _ = r.Parse(msg, &h) }); n != 0 {
		t.Errorf("Receiver.Parse allocates %v times per message", n)
	}
	var bld Builder
	d := Data{WriterID: NewUserEntityID(1, KindWriterNoKey), SN: 1, Payload: make([]byte, 64)}
	bld.Reset(Header{})
	bld.Data(&d)
	if n := testing.AllocsPerRun(100, func() {
		bld.Reset(Header{})
		bld.InfoTS(TimeZero)
		bld.Data(&d)
	}); n != 0 {
		t.Errorf("Builder.Data allocates %v times per message", n)
	}
	q := hx(t, "83001800 010f7f01 f523a307 00000000 00001304 ffffffff 00000000 01000000")
	if n := testing.AllocsPerRun(100, func() { _, _ = ParseInlineQoS(q, true, VendorEProsima) }); n != 0 {
		t.Errorf("ParseInlineQoS allocates %v times", n)
	}
}
