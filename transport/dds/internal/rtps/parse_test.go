package rtps

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"
)

const hbBody = "000003c7 000003c2 00000000 01000000 00000000 03000000 05000000"

func TestParseHeader(t *testing.T) {
	for _, c := range []struct {
		name string
		msg  string
	}{
		{"short", "52545053 0202010f"},
		{"magic", "52545058 0202010f 010f7f01 c64fed38 00000000"},
		{"version 1", "52545053 0102010f 010f7f01 c64fed38 00000000"},
		{"version 3", "52545053 0300010f 010f7f01 c64fed38 00000000"},
	} {
		if err := Parse(hx(t, c.msg), NopHandler{}); !errors.Is(err, ErrNotRTPS) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	// Any minor version of major 2 is accepted, and a header alone is fine.
	for _, v := range []string{"0201", "0205", "02ff"} {
		if err := Parse(hx(t, "52545053", v, "010f 010f7f01 c64fed38 00000000"), NopHandler{}); err != nil {
			t.Errorf("version %s: %v", v, err)
		}
	}
}

func TestParseSkipsAndLengths(t *testing.T) {
	cases := []struct {
		name   string
		subs   string
		events int
	}{
		{"pad", "01010400 00000000 0701 1c00 " + hbBody, 1},
		{"pad length 0", "01010000 07011c00 " + hbBody, 1},
		{"vendor and unknown ids", "80010800 00000000 00000000 33010400 ffffffff 0701 1c00 " + hbBody, 1},
		{"info_ts invalidate with length 0", "09030000 07011c00 " + hbBody, 1},
		{"last submessage length 0", "07010000 " + hbBody, 1},
		{"length 0 on unknown swallows the rest", "81010000 07011c00 " + hbBody, 0},
		{"unaligned length rounds up", "01010100 00000000 07011c00 " + hbBody, 1},
		{"security ids skipped", "30010400 00000000 07011c00 " + hbBody, 1},
	}
	for _, c := range cases {
		var r recorder
		if err := Parse(hx(t, fastHeader, c.subs), &r); err != nil || len(r.events) != c.events {
			t.Errorf("%s: %v, %d events", c.name, err, len(r.events))
		}
	}
}

func TestParseMalformed(t *testing.T) {
	cases := []struct{ name, subs string }{
		{"trailing bytes", "07011c00 " + hbBody + " 0701"},
		{"overrun", "07012000 " + hbBody},
		{"short heartbeat", "07011800 000003c7 000003c2 00000000 01000000 00000000 03000000"},
		{"heartbeat last < first-1", "07011c00 000003c7 000003c2 00000000 05000000 00000000 03000000 01000000"},
		{"heartbeat first 0", "07011c00 000003c7 000003c2 00000000 00000000 00000000 03000000 01000000"},
		{"acknack numBits 257", "06011c00 000003c7 000003c2 00000000 01000000 01010000 00000000 01000000"},
		{"acknack bits missing", "06011800 000003c7 000003c2 00000000 01000000 40000000 01000000"},
		{"acknack negative base", "06011800 000003c7 000003c2 ffffffff 01000000 00000000 01000000"},
		{"gap base before start", "08011800 000003c7 000003c2 00000000 05000000 00000000 04000000 00000000"},
		{"data sn 0", "15011400 00001000 00001304 00001303 00000000 00000000"},
		{"data octetsToInlineQos past end", "15011400 00002000 00001304 00001303 00000000 01000000"},
		{"data octetsToInlineQos too small", "15011400 00000800 00001304 00001303 00000000 01000000"},
		{"data inline QoS without sentinel", "15031c00 00001000 00001304 00001303 00000000 01000000 70001000 00000000"},
		{"data_frag start 0", "16012000 00001c00 00001304 00001303 00000000 01000000 00000000 01000400 10000000"},
		{"data_frag past sample", "16012000 00001c00 00001304 00001303 00000000 01000000 05000000 01000400 10000000"},
		{"data_frag short payload", "16012400 00001c00 00001304 00001303 00000000 01000000 01000000 02000400 10000000 00000000"},
		{"nack_frag base 0", "12012000 00001304 00001303 00000000 01000000 00000000 00000000 01000000"},
		{"info_dst short", "0e010800 00000000 00000000"},
		{"info_reply count overflow", "0f010400 ffffffff"},
		{"info_ts short", "09010400 00000000"},
	}
	for _, c := range cases {
		err := Parse(hx(t, fastHeader, c.subs), NopHandler{})
		if !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// What came before a malformed submessage stays delivered.
func TestParseDeliversBeforeError(t *testing.T) {
	var r recorder
	err := Parse(hx(t, fastHeader, "07011c00", hbBody, "07011c00", hbBody, "0701ff00"), &r)
	if !errors.Is(err, ErrMalformed) || len(r.events) != 2 {
		t.Errorf("%v, %d events", err, len(r.events))
	}
	if !strings.Contains(err.Error(), "offset 84") {
		t.Errorf("error does not locate the submessage: %v", err)
	}
}

func TestParseDataFragTrim(t *testing.T) {
	// Two 4-byte fragments of a 10-byte sample, then the last (2 bytes and
	// 2 bytes of padding).
	msg := hx(t, fastHeader,
		"16012800 00001c00 00001304 00001303 00000000 01000000 01000000 02000400 0a000000 00010000 61626364",
		"16012400 00001c00 00001304 00001303 00000000 01000000 03000000 01000400 0a000000 65660000")
	ev := parseAll(t, msg)
	if len(ev) != 2 || len(ev[0].frag.Payload) != 8 || string(ev[1].frag.Payload) != "ef" {
		t.Fatalf("%+v", ev)
	}
}

func TestParsePL(t *testing.T) {
	type kv struct {
		pid uint16
		v   string
	}
	var got []kv
	fn := func(pid uint16, v []byte) error { got = append(got, kv{pid, hexOf(v)}); return nil }
	// PAD skipped; the sentinel's length is ignored; what follows it too.
	if err := ParsePL(hx(t, "00000400 ffffffff 0f000400 2a000000 0100ffff 99999999"), true, fn); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != (kv{0x0f, "2a000000"}) {
		t.Errorf("got %v", got)
	}
	got = nil
	if err := ParsePL(hx(t, "000f0004 0000002a 00010000"), false, fn); err != nil || got[0] != (kv{0x0f, "0000002a"}) {
		t.Errorf("BE: %v %v", got, err)
	}
	for _, bad := range []string{"", "0f000400 2a000000", "0f000800 2a000000 01000000", "0f00"} {
		if err := ParsePL(hx(t, bad), true, fn); !errors.Is(err, ErrMalformed) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	stop := errors.New("stop")
	if err := ParsePL(hx(t, "0f000400 2a000000 01000000"), true, func(uint16, []byte) error { return stop }); err != stop {
		t.Errorf("callback error %v", err)
	}
}

func TestPLWriter(t *testing.T) {
	var w PLWriter
	w.Reset(nil)
	w.String(PIDTopicName, "rt/chatter")
	w.Octets(PIDUserData, []byte("enclave=/;\x00"))
	w.Bool(PIDExpectsInlineQoS, false)
	w.Int16s(PIDDataRepresentation, []int16{0})
	w.Strings(PIDPartition, nil)
	w.Properties(PIDPropertyList, [][2]string{{"a", "bc"}})
	w.Sentinel()
	want := hx(t, "05001000 0b000000", `"rt/chatter"`, "0000",
		"2c001000 0b000000", `"enclave=/;"`, "0000",
		"43000400 00000000",
		"73000800 01000000 00000000",
		"29000400 00000000",
		"59001400 01000000 02000000 61000000 03000000 62630000",
		"01000000")
	eqBytes(t, "PLWriter", w.Bytes(), want)
	if w.Err() != nil {
		t.Error(w.Err())
	}
	w.Reset(nil)
	w.Octets(PIDUserData, make([]byte, 70000))
	w.Uint32(PIDDomainID, 1)
	if !errors.Is(w.Err(), ErrTooLarge) || len(w.Bytes()) != 0 {
		t.Errorf("oversized value: %v, %d bytes", w.Err(), len(w.Bytes()))
	}
}

func TestLimits(t *testing.T) {
	loc := "32001800 01000000 f6450000 00000000 00000000 00000000 7f000001"
	body := "00030000 50001000 01104d95 11223344 55667788 000001c1" + strings.Repeat(loc, MaxLocators+1) + "01000000"
	if _, err := ParseParticipantData(hx(t, body), VendorCyclone); !errors.Is(err, ErrLimit) {
		t.Errorf("too many locators: %v", err)
	}
	// A huge count with little data is refused before any allocation.
	for _, pl := range []string{"59000400 ffffff7f", "59000400 41000000"} {
		body = "00030000 50001000 01104d95 11223344 55667788 000001c1" + pl + "01000000"
		if _, err := ParseParticipantData(hx(t, body), VendorCyclone); !errors.Is(err, ErrLimit) {
			t.Errorf("property count %s: %v", pl, err)
		}
	}
	ep := "00030000 5a001000 01104d95 11223344 55667788 00000207"
	for _, pl := range []string{"29000400 ffffffff", "73000400 11000000"} {
		if _, err := ParseEndpointData(hx(t, ep, pl, "01000000"), VendorCyclone); !errors.Is(err, ErrLimit) {
			t.Errorf("%s: %v", pl, err)
		}
	}
	// A count within the limit but past the data is malformed.
	if _, err := ParseEndpointData(hx(t, ep, "29000400 02000000 01000000"), VendorCyclone); !errors.Is(err, ErrMalformed) {
		t.Errorf("short partition: %v", err)
	}
	p := ParticipantData{DefaultUnicast: make([]Locator, MaxLocators+1)}
	if !errors.Is(p.Validate(), ErrLimit) {
		t.Error("Validate missed the locator limit")
	}
	p = ParticipantData{UserData: make([]byte, 70000)}
	if !errors.Is(p.Validate(), ErrTooLarge) {
		t.Error("Validate missed the user data size")
	}
	if _, err := ParseParticipantData(p.Append(nil), VendorAfor); err != nil {
		t.Errorf("oversized field not left out: %v", err)
	}
}

func TestDiscoveryMalformed(t *testing.T) {
	for _, c := range []string{
		"", "0001 0000", "00030000", "00030000 01000000", // no GUID
		"00030000 50000800 00000000 00000000 01000000",
		"00030000 5a001000 01104d95 11223344 55667788 00000207 1a000400 07000000 01000000",
		"00030000 5a001000 01104d95 11223344 55667788 00000207 1d000400 09000000 01000000",
		"00030000 5a001000 01104d95 11223344 55667788 00000207 05000800 09000000 61000000 01000000",
	} {
		_, err1 := ParseParticipantData(hx(t, c), VendorCyclone)
		_, err2 := ParseEndpointData(hx(t, c), VendorCyclone)
		if !errors.Is(err1, ErrMalformed) || !errors.Is(err2, ErrMalformed) {
			t.Errorf("%q: %v / %v", c, err1, err2)
		}
	}
	// The key hash stands in for a missing GUID.
	p, err := ParseParticipantData(hx(t, "00030000 70001000 01104d95 11223344 55667788 000001c1 01000000"), VendorCyclone)
	if err != nil || p.GUID != (GUID{cycPrefix, EntityParticipant}) || p.LeaseDuration != DefaultLeaseDuration {
		t.Errorf("key hash fallback %+v %v", p, err)
	}
}

func TestBuilderTooLarge(t *testing.T) {
	var b Builder
	b.Reset(Header{Version: ProtocolVersion24, Vendor: VendorAfor, Prefix: ourPrefix})
	b.Heartbeat(&Heartbeat{WriterID: EntitySEDPPubWriter, First: 1, Last: 0, Count: 1})
	n := b.Len()
	b.Data(&Data{WriterID: EntitySEDPPubWriter, SN: 1, Payload: make([]byte, 70000)})
	if !errors.Is(b.Err(), ErrTooLarge) || b.Len() != n {
		t.Errorf("oversized DATA: %v, len %d (was %d)", b.Err(), b.Len(), n)
	}
	b.Gap(&Gap{WriterID: EntitySEDPPubWriter, Start: 1, List: SNSet{Base: 2}})
	if len(parseAll(t, b.Bytes())) != 2 {
		t.Error("message after an oversized DATA does not parse")
	}
	b.Truncate(n)
	if b.Len() != n {
		t.Error("Truncate")
	}
	b.Reset(Header{})
	if b.Err() != nil || b.Len() != HeaderSize {
		t.Error("Reset")
	}
}

func TestInfoDstFiltering(t *testing.T) {
	hb := "07011c00 " + hbBody
	other := "0e010c00 01020304 05060708 090a0b0c "
	mine := "0e010c00 " + hexOf(ourPrefix[:]) + " "
	zero := "0e010c00 00000000 00000000 00000000 "
	r := Receiver{Self: ourPrefix}
	for _, c := range []struct {
		name   string
		subs   string
		events int
	}{
		{"no INFO_DST", hb, 1},
		{"ours", mine + hb, 1},
		{"zero means everyone", zero + hb, 1},
		{"foreign", other + hb + hb, 0},
		{"foreign then ours", other + hb + mine + hb, 1},
		{"ours then foreign", mine + hb + other + hb, 1},
	} {
		var rec recorder
		if err := r.Parse(hx(t, fastHeader, c.subs), &rec); err != nil || len(rec.events) != c.events {
			t.Errorf("%s: %v, %d events", c.name, err, len(rec.events))
		}
	}
}

// A Cyclone-style SPDP: both multicast and unicast locators, Cyclone's
// vendor PIDs (0x8007 version string, 0x8019), and no PARTICIPANT_GUID
// order assumptions.
func TestCycloneSPDP(t *testing.T) {
	loc := func(pid string, ip string, port uint16) string {
		l := LocatorUDPv4(netip.MustParseAddr(ip), port)
		return pid + "1800 01000000 " + hexOf(le32(nil, l.Port)) + hexOf(l.Addr[:])
	}
	body := hx(t, "00030000",
		"15000400 02050000", "16000400 01100000",
		"50001000", hexOf(cycPrefix[:]), "000001c1",
		"0f000400 2a000000",
		"58000400 3ffc0000",
		loc("3200", "127.0.0.1", 45455), loc("3300", "239.255.0.1", 17900),
		loc("3100", "127.0.0.1", 45455), loc("4800", "239.255.0.1", 17901),
		"02000800 0a000000 00000000",
		"07803000 00000000 00000000 00000000 00000000 00000000", cdrStr("vm/0.10.2/Linux/Linux", true),
		"19800400 00001000",
		"01000000")
	p, err := ParseParticipantData(body, VendorCyclone)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.MetatrafficUnicast) != 1 || len(p.MetatrafficMulticast) != 1 || len(p.DefaultUnicast) != 1 || len(p.DefaultMulticast) != 1 {
		t.Errorf("locators %+v", p)
	}
	if ap, _ := p.DefaultMulticast[0].AddrPort(); ap.String() != "239.255.0.1:17901" {
		t.Errorf("default multicast %v", ap)
	}
	if p.LeaseDuration != 10*time.Second || p.GUID.Prefix != cycPrefix || p.Vendor != VendorCyclone {
		t.Errorf("participant %+v", p)
	}
}
