package rtps

import (
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tsharkMessages builds one datagram of each kind this package emits.
func tsharkMessages() [][]byte {
	hdr := Header{Version: ProtocolVersion24, Vendor: VendorAfor, Prefix: ourPrefix}
	lo := netip.MustParseAddr("127.0.0.1")
	var out [][]byte
	var b Builder
	add := func() { out = append(out, append([]byte(nil), b.Bytes()...)) }

	p := ParticipantData{
		GUID: GUID{ourPrefix, EntityParticipant}, DomainID: 42, DomainIDPresent: true,
		MetatrafficUnicast: []Locator{LocatorUDPv4(lo, 17910)}, DefaultUnicast: []Locator{LocatorUDPv4(lo, 17911)},
		LeaseDuration: 20 * time.Second, BuiltinEndpoints: BuiltinEndpointsAfor, UserData: []byte("enclave=/;"),
		EntityName: "/", Properties: [][2]string{{"afor.process", "1234"}},
	}
	b.Reset(hdr)
	b.InfoTS(TimeFrom(time.Unix(1_800_000_000, 0)))
	b.Data(&Data{ReaderID: EntitySPDPReader, WriterID: EntitySPDPWriter, SN: 1, Payload: p.Append(nil)})
	add()

	q := DefaultWriterQoS()
	q.History, q.Depth = KeepLast, 10
	e := EndpointData{
		EndpointGUID: GUID{ourPrefix, NewUserEntityID(1, KindWriterNoKey)}, ParticipantGUID: GUID{ourPrefix, EntityParticipant},
		TopicName: "rt/chatter", TypeName: "std_msgs::msg::dds_::String_", QoS: q,
		UnicastLocators: []Locator{LocatorUDPv4(lo, 17911)},
		UserData:        []byte("typehash=RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18;"),
	}
	b.Reset(hdr)
	b.InfoDst(fastPrefix)
	b.Data(&Data{ReaderID: EntitySEDPPubReader, WriterID: EntitySEDPPubWriter, SN: 1, Payload: e.Append(nil)})
	b.Heartbeat(&Heartbeat{ReaderID: EntitySEDPPubReader, WriterID: EntitySEDPPubWriter, First: 1, Last: 1, Count: 1})
	add()

	wr, rd := NewUserEntityID(1, KindWriterNoKey), NewUserEntityID(0x13, KindReaderNoKey)
	b.Reset(hdr)
	b.InfoDst(fastPrefix)
	b.DataWith(&Data{ReaderID: rd, WriterID: wr, SN: 5, Payload: []byte{0, 1, 0, 0, 6, 0, 0, 0, 'h', 'e', 'l', 'l', 'o', 0}},
		func(w *PLWriter) {
			w.SampleIdentity(PIDRelatedSampleIdentity, SampleIdentity{GUID{fastPrefix, rd}, 7})
		})
	s := SNSet{Base: 3}
	s.Set(4)
	s.Set(6)
	b.Gap(&Gap{ReaderID: rd, WriterID: wr, Start: 1, List: s})
	add()

	b.Reset(hdr)
	b.AckNack(&AckNack{ReaderID: EntitySEDPPubReader, WriterID: EntitySEDPPubWriter, State: s, Count: 3})
	f := FNSet{Base: 2}
	f.Set(3)
	b.NackFrag(&NackFrag{ReaderID: rd, WriterID: wr, SN: 9, State: f, Count: 1})
	b.HeartbeatFrag(&HeartbeatFrag{ReaderID: rd, WriterID: wr, SN: 9, LastFrag: 4, Count: 2})
	b.DataFrag(&DataFrag{ReaderID: rd, WriterID: wr, SN: 9, FragStart: 2, FragsInSubmsg: 1, FragSize: 8, SampleSize: 30, Payload: []byte("abcdefgh")})
	add()

	b.Reset(hdr)
	b.Dispose(EntityUnknown, EntitySPDPWriter, 2, GUID{ourPrefix, EntityParticipant}, PIDParticipantGUID, StatusDisposed|StatusUnregistered)
	add()
	return out
}

// TestTshark checks that Wireshark's RTPS dissector reads our messages as
// we mean them, without malformed-packet or expert warnings. It needs
// tshark and text2pcap and is skipped without them.
func TestTshark(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode")
	}
	tshark, err1 := exec.LookPath("tshark")
	text2pcap, err2 := exec.LookPath("text2pcap")
	if err1 != nil || err2 != nil {
		t.Skip("tshark or text2pcap not installed")
	}
	dir := t.TempDir()
	var dump strings.Builder
	for _, m := range tsharkMessages() {
		for off := 0; off < len(m); off += 16 {
			fmt.Fprintf(&dump, "%06x", off)
			for _, c := range m[off:min(off+16, len(m))] {
				fmt.Fprintf(&dump, " %02x", c)
			}
			dump.WriteByte('\n')
		}
	}
	txt, pcap := filepath.Join(dir, "msgs.txt"), filepath.Join(dir, "msgs.pcap")
	if err := os.WriteFile(txt, []byte(dump.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.CommandContext(t.Context(), text2pcap, "-q", "-u", "17900,17900", txt, pcap).CombinedOutput(); err != nil {
		t.Fatalf("text2pcap: %v\n%s", err, out)
	}
	out, err := exec.CommandContext(t.Context(), tshark, "-n", "-r", pcap, "--enable-heuristic", "rtps_udp", "-V").CombinedOutput()
	if err != nil {
		t.Fatalf("tshark: %v\n%s", err, out)
	}
	text := string(out)
	if os.Getenv("RTPS_TSHARK_DUMP") != "" {
		t.Log(text)
	}
	for _, bad := range []string{"Malformed", "[Expert Info (Error", "[Expert Info (Warn", "Bad", "Invalid", "exception"} {
		if i := strings.Index(text, bad); i >= 0 {
			t.Errorf("tshark reports %q: ...%s...", bad, text[max(0, i-300):min(len(text), i+200)])
		}
	}
	for _, want := range []string{
		"INFO_DST", "INFO_TS", "HEARTBEAT", "ACKNACK", "GAP", "NACK_FRAG", "HEARTBEAT_FRAG", "DATA_FRAG",
		"PID_METATRAFFIC_UNICAST_LOCATOR (LOCATOR_KIND_UDPV4, 127.0.0.1:17910)",
		"PID_DEFAULT_UNICAST_LOCATOR (LOCATOR_KIND_UDPV4, 127.0.0.1:17911)",
		"PID_DOMAIN_ID", "lease_duration: 20.000000 sec", "userData: 656e636c6176653d2f3b", "entityName: /",
		"Property Name: afor.process", "Value: 1234",
		"topic: rt/chatter", "typeName: std_msgs::msg::dds_::String_",
		"Kind: RELIABLE_RELIABILITY_QOS", "Durability: VOLATILE_DURABILITY_QOS", "Kind: KEEP_LAST_HISTORY_QOS", "Depth: 10",
		// Wireshark 4.0 does not name PID 0x0083; the bytes are the identity.
		"parameterId: Unknown (0x0083)", "parameterData: 010f7f01c64fed38000000000000130400000000" + "07000000",
		"encapsulation kind: CDR_LE", "gapStart: 1",
		"fragmentStartingNum: 2", "sampleSize: 30", "lastFragmentNum: 4",
		"Flags: 0x0b, Serialized Key, Inline QoS, Endianness bit", "Flags: 0x00000003, Unregistered, Disposed",
		"guid: 01af0102:03040506:0708090a:000001c1",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("tshark output lacks %q", want)
		}
	}
}
