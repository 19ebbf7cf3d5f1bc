package rtps

import (
	"bytes"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// seedMessages returns whole datagrams for the FuzzParse corpus: every
// golden message plus one of each submessage from the Builder.
func seedMessages(tb testing.TB) [][]byte {
	seeds := [][]byte{
		fastSPDP(tb),
		hx(tb, fastHeader, "06011c00 000003c7 000003c2 00000000 01000000 02000000 000000c0 01000000"),
		hx(tb, fastHeader, "0e010c00 010f7f01 c54f9185 00000000 09010800 e00f0f6b 9b57ad6f",
			"15052400 00001000 00001304 00001303 00000000 01000000 00010000 08000000 68656c6c 6f203000", fastStats),
		hx(tb, fastHeader, "15075800 00001000 00001404 00001203 00000000 01000000",
			"83001800 010f7f01 f523a307 00000000 00001304 ffffffff 00000000",
			"0f801800 010f7f01 f523a307 00000000 00001304 ffffffff 00000000 01000000 00010000 01000000"),
		hx(tb, "52545053 02050110 01104d95 11223344 55667788",
			"150b3c00 00001000 00000000 000100c2 00000000 03000000 71000400 00000003 01000000",
			"00030000 50001000 01104d95 11223344 55667788 000001c1 01000000"),
		hx(tb, fastHeader, "0f030000 01000000 01000000 f6450000 00000000 00000000 00000000 7f000001 00000000"),
		hx(tb, fastHeader, "0d000800 7f000001 00001cf3 0c000014 00000000 0205 0110 01104d95 11223344 55667788"),
	}
	var b Builder
	b.Reset(Header{Version: ProtocolVersion24, Vendor: VendorAfor, Prefix: ourPrefix})
	b.InfoDst(cycPrefix)
	b.InfoTS(TimeFrom(time.Unix(1_800_000_000, 5)))
	wr, rd := NewUserEntityID(1, KindWriterNoKey), NewUserEntityID(2, KindReaderNoKey)
	b.DataFrag(&DataFrag{ReaderID: rd, WriterID: wr, SN: 2, FragStart: 1, FragsInSubmsg: 2, FragSize: 4, SampleSize: 9, Payload: []byte("abcdefgh")})
	b.Heartbeat(&Heartbeat{ReaderID: rd, WriterID: wr, First: 1, Last: 2, Count: 1})
	s := SNSet{Base: 1}
	s.Set(2)
	b.AckNack(&AckNack{ReaderID: rd, WriterID: wr, State: s, Count: 1})
	f := FNSet{Base: 1}
	f.Set(2)
	b.NackFrag(&NackFrag{ReaderID: rd, WriterID: wr, SN: 2, State: f, Count: 1})
	b.HeartbeatFrag(&HeartbeatFrag{ReaderID: rd, WriterID: wr, SN: 2, LastFrag: 3, Count: 1})
	b.Gap(&Gap{ReaderID: rd, WriterID: wr, Start: 1, List: s})
	seeds = append(seeds, bytes.Clone(b.Bytes()))
	return seeds
}

// reencode writes a parsed event back with a Builder.
func reencode(b *Builder, e *event) {
	switch e.kind {
	case "DATA":
		d := e.data
		if !d.LittleEndian {
			d.InlineQoS = nil
		}
		b.Data(&d)
	case "DATA_FRAG":
		d := e.frag
		if !d.LittleEndian {
			d.InlineQoS = nil
		}
		b.DataFrag(&d)
	case "HEARTBEAT":
		b.Heartbeat(&e.hb)
	case "ACKNACK":
		b.AckNack(&e.an)
	case "NACK_FRAG":
		b.NackFrag(&e.nf)
	case "HEARTBEAT_FRAG":
		b.HeartbeatFrag(&e.hf)
	case "GAP":
		b.Gap(&e.gap)
	}
}

// sameEvent compares an event with its re-encoded parse: byte order and
// inline QoS from a big-endian source aside, they must agree, and a DATA
// payload may only have gained up to 3 zero bytes of padding.
func sameEvent(t *testing.T, a, z event) {
	t.Helper()
	// The Builder writes a canonical SENTINEL (length 0).
	canon := func(q []byte) []byte {
		if len(q) >= 4 {
			q = bytes.Clone(q)
			q[len(q)-2], q[len(q)-1] = 0, 0
		}
		return q
	}
	a.data.InlineQoS, a.frag.InlineQoS = canon(a.data.InlineQoS), canon(a.frag.InlineQoS)
	if a.kind == "DATA" {
		if !a.data.LittleEndian {
			a.data.InlineQoS = nil
		}
		if p, q := a.data.Payload, z.data.Payload; p != nil {
			if len(q) < len(p) || len(q)-len(p) > 3 || !bytes.Equal(q[:len(p)], p) || bytes.Count(q[len(p):], []byte{0}) != len(q)-len(p) {
				t.Fatalf("payload %x re-encoded as %x", p, q)
			}
			z.data.Payload = p
		}
	}
	if !a.frag.LittleEndian {
		a.frag.InlineQoS = nil
	}
	a.data.LittleEndian, z.data.LittleEndian = false, false
	a.frag.LittleEndian, z.frag.LittleEndian = false, false
	a.ctx, z.ctx = Context{}, Context{}
	if !reflect.DeepEqual(a, z) {
		t.Fatalf("re-encoded event differs:\n was %+v\n now %+v", a, z)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range seedMessages(f) {
		f.Add(s)
	}
	for _, s := range capturedDatagrams(f, 4096) {
		f.Add(s)
	}
	self := Receiver{Self: GuidPrefix{0x01, 0x0f, 0x7f, 0x01, 0xc5, 0x4f, 0x91, 0x85}}
	f.Fuzz(func(t *testing.T, msg []byte) {
		var r recorder
		err := Parse(msg, &r)
		if err != nil {
			checkSentinel(t, err)
		}
		// A Receiver with a Self sees a subset, and never more.
		var r2 recorder
		err2 := self.Parse(msg, &r2)
		// It skips foreign submessages, so it fails only where the zero
		// Receiver fails too.
		if len(r2.events) > len(r.events) || (err2 != nil && err == nil) {
			t.Fatalf("Receiver with Self: %d events, %v; zero Receiver %d, %v", len(r2.events), err2, len(r.events), err)
		}
		// Every delivered submessage re-encodes to itself.
		for _, e := range r.events {
			var b Builder
			b.Reset(Header{Version: ProtocolVersion24, Vendor: VendorAfor, Prefix: ourPrefix})
			reencode(&b, &e)
			if b.Err() != nil {
				t.Fatalf("re-encoding %+v: %v", e, b.Err())
			}
			var rr recorder
			if err := Parse(b.Bytes(), &rr); err != nil || len(rr.events) != 1 {
				t.Fatalf("re-encoded %s: %v, %d events\n%x", e.kind, err, len(rr.events), b.Bytes())
			}
			sameEvent(t, e, rr.events[0])
			// Inline QoS and disposals decode without panicking.
			if e.kind == "DATA" {
				d := e.data
				_, _ = ParseInlineQoS(d.InlineQoS, d.LittleEndian, e.ctx.SourceVendor)
				if _, _, err := ParseDisposal(&d, e.ctx.SourceVendor); err != nil {
					checkSentinel(t, err)
				}
			}
		}
	})
}

func FuzzParsePL(f *testing.F) {
	f.Add(hx(f, "15000400 02020000 0f000400 2a000000 00000400 ffffffff 01000000"), true)
	f.Add(hx(f, "000f0004 0000002a 00010000"), false)
	f.Add(hx(f, "83001800 010f7f01 f523a307 00000000 00001304 ffffffff 00000000 0f801800 010f7f01 f523a307 00000000 00001304 ffffffff 00000000 01000000"), true)
	f.Add(hx(f, "70001000 010f7f01 c64fed38 00000000 000001c1 71000400 00000003 01000000"), true)
	f.Add(fastSEDPWriter(f)[4:], true)
	f.Fuzz(func(t *testing.T, b []byte, le bool) {
		total := 0
		err := ParsePL(b, le, func(pid uint16, v []byte) error {
			if pid == PIDSentinel || pid == PIDPad {
				t.Fatalf("PID %#x delivered", pid)
			}
			total += 4 + len(v)
			return nil
		})
		n, err2 := walkPL(b, le, nil)
		if (err == nil) != (err2 == nil) {
			t.Fatalf("ParsePL %v, walkPL %v", err, err2)
		}
		if err != nil {
			checkSentinel(t, err)
			return
		}
		if n > len(b) || total > n-4 {
			t.Fatalf("list of %d bytes in %d, values %d", n, len(b), total)
		}
		for _, v := range []VendorID{VendorEProsima, VendorCyclone, VendorAfor} {
			if _, err := ParseInlineQoS(b, le, v); err != nil {
				checkSentinel(t, err)
			}
		}
	})
}

func FuzzParticipantData(f *testing.F) {
	f.Add(fastSPDP(f)[HeaderSize+12+24:][:428], VendorEProsima[1])
	p := ParticipantData{
		GUID: GUID{ourPrefix, EntityParticipant}, DomainID: 3, DomainIDPresent: true, DomainTag: "tag",
		MetatrafficMulticast: []Locator{LocatorUDPv4(netip.MustParseAddr("239.255.0.1"), 7400)},
		DefaultMulticast:     []Locator{LocatorUDPv4(netip.MustParseAddr("239.255.0.1"), 7401)},
		LeaseDuration:        Infinite, Properties: [][2]string{{"a", ""}, {"", "b"}},
	}
	f.Add(p.Append(nil), VendorAfor[1])
	f.Add(hx(f, "00020000 00500010 01104d95 11223344 55667788 000001c1 00010000"), VendorCyclone[1])
	spdp, _ := capturedDiscovery(f)
	for _, b := range spdp {
		f.Add(b, VendorCyclone[1])
	}
	f.Fuzz(func(t *testing.T, body []byte, vendor byte) {
		p, err := ParseParticipantData(body, VendorID{1, vendor})
		if err != nil {
			checkSentinel(t, err)
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("parsed data does not validate: %v", err)
		}
		if p.Version == (ProtocolVersion{}) {
			p.Version = ProtocolVersion24
		}
		if p.Vendor == (VendorID{}) {
			p.Vendor = VendorAfor
		}
		q, err := ParseParticipantData(p.Append(nil), VendorAfor)
		if err != nil {
			t.Fatalf("re-encoded: %v", err)
		}
		if !reflect.DeepEqual(p, q) {
			t.Fatalf("round trip\n was %+v\n now %+v", p, q)
		}
	})
}

func FuzzEndpointData(f *testing.F) {
	f.Add(fastSEDPWriter(f), VendorEProsima[1])
	e := EndpointData{
		EndpointGUID: GUID{ourPrefix, NewUserEntityID(4, KindReaderNoKey)}, QoS: DefaultReaderQoS(),
		TopicName: "t", ExpectsInlineQoS: true, DataRepresentation: []int16{2, 0},
	}
	e.QoS.Partition = []string{"", "a*"}
	e.QoS.Liveliness = LivelinessManualByParticipant
	f.Add(e.Append(nil), VendorAfor[1])
	f.Add(hx(f, "00030000 05001000 0b000000", `"rt/chatter"`, "0000 1a000c00 02000000 01000000 00000000",
		"40000800 00000000 0a000000 73000800 02000000 00000200 5a001000 01104d95 11223344 55667788 00000207 0c800400 00000000 01000000"),
		VendorCyclone[1])
	_, sedp := capturedDiscovery(f)
	for _, b := range sedp {
		f.Add(b, VendorCyclone[1])
	}
	f.Fuzz(func(t *testing.T, body []byte, vendor byte) {
		e, err := ParseEndpointData(body, VendorID{1, vendor})
		if err != nil {
			checkSentinel(t, err)
			return
		}
		if err := e.Validate(); err != nil {
			t.Fatalf("parsed data does not validate: %v", err)
		}
		// What Append leaves out or always adds.
		e.QoS.HistoryPresent = true
		if e.EndpointGUID.Entity.IsReader() {
			e.QoS.Lifespan, e.QoS.OwnershipStrength = Infinite, 0
		} else {
			e.ExpectsInlineQoS = false
		}
		q, err := ParseEndpointData(e.Append(nil), VendorAfor)
		if err != nil {
			t.Fatalf("re-encoded: %v", err)
		}
		if !reflect.DeepEqual(e, q) {
			t.Fatalf("round trip\n was %+v\n now %+v", e, q)
		}
		w, r := e, q
		_, _ = EndpointsCompatible(&w, &r)
	})
}

// TestWriteSeedCorpus writes the golden seeds as corpus files under
// testdata/fuzz when RTPS_WRITE_CORPUS is set, so that they are checked in
// next to whatever the fuzzers find.
func TestWriteSeedCorpus(t *testing.T) {
	if os.Getenv("RTPS_WRITE_CORPUS") == "" {
		t.Skip("set RTPS_WRITE_CORPUS=1 to regenerate testdata/fuzz seeds")
	}
	write := func(target, name string, args ...any) {
		var b strings.Builder
		b.WriteString("go test fuzz v1\n")
		for _, a := range args {
			switch v := a.(type) {
			case []byte:
				fmt.Fprintf(&b, "[]byte(%q)\n", v)
			case bool:
				fmt.Fprintf(&b, "bool(%v)\n", v)
			case byte:
				fmt.Fprintf(&b, "byte('\\x%02x')\n", v)
			}
		}
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "seed-"+name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i, m := range append(seedMessages(t), tsharkMessages()...) {
		write("FuzzParse", fmt.Sprint(i), m)
	}
	spdp := fastSPDP(t)[HeaderSize+12+24:][:428]
	write("FuzzParticipantData", "fastdds", spdp, VendorEProsima[1])
	write("FuzzEndpointData", "fastdds", fastSEDPWriter(t), VendorEProsima[1])
	write("FuzzParsePL", "fastdds-spdp", spdp[4:], true)
	write("FuzzParsePL", "service-inline", hx(t, "83001800 010f7f01 f523a307 00000000 00001304 ffffffff 00000000 0f801800 010f7f01 f523a307 00000000 00001304 ffffffff 00000000 01000000"), true)
}
