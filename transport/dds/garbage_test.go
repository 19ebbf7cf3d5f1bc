package dds

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"net"
	"net/netip"
	"testing"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/transport/dds/internal/rtps"
)

// garbage returns datagrams that must be dropped: random bytes, truncated
// and oversized RTPS messages, and submessages whose lengths and counts
// are lies.
func garbage(rng *rand.Rand, victim rtps.GuidPrefix) [][]byte {
	hdr := func() []byte {
		b := []byte("RTPS\x02\x03\x01\x0f")
		var pre [12]byte
		for i := range pre {
			pre[i] = byte(rng.Uint32())
		}
		return append(b, pre[:]...)
	}
	sub := func(b []byte, id, flags byte, body []byte, length int) []byte {
		b = append(b, id, flags)
		b = binary.LittleEndian.AppendUint16(b, uint16(length))
		return append(b, body...)
	}
	var out [][]byte
	for range 20 {
		b := make([]byte, rng.IntN(200))
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		out = append(out, b, append(hdr(), b...))
	}
	big := make([]byte, 65000)
	out = append(out,
		hdr()[:10],
		sub(hdr(), 0x15, 0x05, make([]byte, 8), 0xffff),     // DATA length past the end
		sub(hdr(), 0x16, 0x05, make([]byte, 40), 40),        // DATA_FRAG with zero sizes
		sub(hdr(), 0x06, 0x01, make([]byte, 12), 12),        // truncated ACKNACK
		sub(hdr(), 0x07, 0x01, make([]byte, 28), 28),        // HEARTBEAT of nobody
		sub(hdr(), 0x0e, 0x01, victim[:], 12),               // INFO_DST then nothing
		sub(hdr(), 0x15, 0x07, big, 0),                      // DATA to the end
		sub(hdr(), 0x15, 0x03, []byte{0, 0, 16, 0}, 4),      // inline QoS flag, no list
		append(sub(hdr(), 0x0e, 0x01, victim[:], 12), 0x80), // stray byte
	)
	// A DATA_FRAG announcing a 1 GiB sample, and an ACKNACK with 1000 bits.
	frag := make([]byte, 36)
	copy(frag[4:], []byte{0, 0, 1, 0xc7, 0, 0, 1, 0xc2})
	binary.LittleEndian.PutUint32(frag[16:], 1)
	binary.LittleEndian.PutUint32(frag[20:], 1)
	binary.LittleEndian.PutUint16(frag[24:], 1)
	binary.LittleEndian.PutUint16(frag[26:], 1024)
	binary.LittleEndian.PutUint32(frag[28:], 1<<30)
	frag[2] = 28
	out = append(out, sub(hdr(), 0x16, 0x01, frag, len(frag)))
	an := make([]byte, 24)
	binary.LittleEndian.PutUint32(an[12:], 1)
	binary.LittleEndian.PutUint32(an[16:], 1000)
	out = append(out, sub(hdr(), 0x06, 0x01, an, len(an)))
	return out
}

func TestGarbageInput(t *testing.T) {
	a, b := localhostPair(t)
	ctx := waitCtx(t)
	r, err := NewReader(b, chatter, QoS{}, afor.WithDefaultQueueSize(0))
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWriter(a, chatter, QoS{History: KeepAll})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	l := r.Sub().Listener(ctx, afor.QueueSize(0))
	defer l.Stop()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	ports := []int{metaUnicastPort(b.DomainID(), b.Index()), userUnicastPort(b.DomainID(), b.Index()), b.socks.acks.LocalAddr().(*net.UDPAddr).Port}
	before := b.Stats().Malformed
	for i := range 100 {
		for _, g := range garbage(rng, b.prefix) {
			for _, port := range ports {
				_, _ = c.WriteToUDPAddrPort(g, netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), uint16(port)))
			}
		}
		if err := w.Write(ctx, cdrString(string(rune('a'+i%26)))); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 100 {
		s, err := l.Next(ctx)
		if err != nil {
			t.Fatalf("sample %d lost among the garbage: %v", i, err)
		}
		if got, _ := cdrStringDecode(s.Payload); got != string(rune('a'+i%26)) {
			t.Fatalf("sample %d: %q", i, got)
		}
	}
	if b.Stats().Malformed == before {
		t.Errorf("no malformed datagram counted")
	}
	if n := b.reasmBytes.Load(); n != 0 {
		t.Errorf("%d bytes held in reassemblies", n)
	}
}

// FuzzInput feeds datagrams to a live participant's receive path.
func FuzzInput(f *testing.F) {
	p, err := NewParticipant(context.Background(), Config{DomainID: 231, Range: RangeOff, Getenv: noEnv, Logger: testLogger()})
	if err != nil {
		f.Fatal(err)
	}
	defer p.Close()
	if _, err := NewReader(p, chatter, QoS{}); err != nil {
		f.Fatal(err)
	}
	if _, err := NewWriter(p, chatter, QoS{}); err != nil {
		f.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, g := range garbage(rng, p.prefix) {
		f.Add(g)
	}
	var b rtps.Builder
	b.Reset(rtps.Header{Version: rtps.ProtocolVersion24, Vendor: rtps.VendorCyclone, Prefix: rtps.GuidPrefix{1, 16}})
	b.InfoTS(rtps.TimeFrom(testTime))
	b.Data(&rtps.Data{ReaderID: rtps.EntitySPDPReader, WriterID: rtps.EntitySPDPWriter, SN: 1, Payload: (&rtps.ParticipantData{
		GUID:               rtps.GUID{Prefix: rtps.GuidPrefix{1, 16}, Entity: rtps.EntityParticipant},
		MetatrafficUnicast: []rtps.Locator{rtps.LocatorUDPv4(netip.MustParseAddr("127.0.0.1"), 9)},
		BuiltinEndpoints:   rtps.BuiltinEndpointsAfor, DomainID: 231, DomainIDPresent: true,
	}).Append(nil)})
	f.Add(append([]byte(nil), b.Bytes()...))
	b.Reset(rtps.Header{Version: rtps.ProtocolVersion24, Vendor: rtps.VendorCyclone, Prefix: rtps.GuidPrefix{1, 16}})
	b.Heartbeat(&rtps.Heartbeat{WriterID: rtps.EntitySEDPPubWriter, First: 1, Last: 3, Count: 1})
	b.DataFrag(&rtps.DataFrag{WriterID: rtps.EntitySEDPPubWriter, SN: 1, FragStart: 1, FragsInSubmsg: 1, FragSize: 8, SampleSize: 16, Payload: make([]byte, 8)})
	b.AckNack(&rtps.AckNack{WriterID: rtps.EntitySEDPPubWriter, State: rtps.SNSet{Base: 1, NumBits: 3, Bits: [8]uint32{0xe0000000}}, Count: 2})
	b.Gap(&rtps.Gap{WriterID: rtps.EntitySEDPPubWriter, Start: 1, List: rtps.SNSet{Base: 2}})
	f.Add(append([]byte(nil), b.Bytes()...))
	h := &rx{p: p}
	h.rcv.Self = p.prefix
	f.Fuzz(func(t *testing.T, data []byte) {
		h.input(data)
	})
}
