package rmwdds

import (
	"bytes"
	"encoding/hex"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/afor-go/afor/ros/interfaces"
	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/ros/msgs/rmw_dds_common"
	"github.com/afor-go/afor/transport/dds"
)

// unhex decodes hex written with spaces.
func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func guid(t testing.TB, s string) dds.GUID {
	t.Helper()
	return dds.GUID(unhex(t, s))
}

// goldenTalkerInfo is the ros_discovery_info sample of an rclpy talker on
// Fast DDS [cap ns_udp #67] (dds-rtps.md §5.4).
const goldenTalkerInfo = `00010000 010f7f01 c54f9185 00000000 000001c1 01000000 02000000 2f000000
07000000 74616c6b 65720000 00000000 01000000 010f7f01 c54f9185 00000000 00000303`

func talkerInfo(t testing.TB) ParticipantInfo {
	return ParticipantInfo{
		GUID: guid(t, "010f7f01 c54f9185 00000000 000001c1"),
		Nodes: []NodeEntities{{
			Namespace: "/", Name: "talker",
			Readers: []dds.GUID{},
			Writers: []dds.GUID{guid(t, "010f7f01 c54f9185 00000000 00000303")},
		}},
	}
}

func TestGoldenParticipantInfo(t *testing.T) {
	wire := unhex(t, goldenTalkerInfo)
	got, err := ParseParticipantInfo(wire)
	if err != nil {
		t.Fatal(err)
	}
	want := talkerInfo(t)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ParseParticipantInfo = %+v, want %+v", got, want)
	}
	back, err := got.AppendCDR(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back, wire) {
		t.Errorf("re-encoded:\n%x\nwant\n%x", back, wire)
	}
	// Fast DDS leaves padding uninitialised: it must not matter.
	dirty := bytes.Clone(wire)
	dirty[4+16+4+4+2] = 0x72
	dirty[4+16+4+4+4+4+7] = 0x72
	if got, err := ParseParticipantInfo(dirty); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("with dirty padding: %+v, %v", got, err)
	}
}

func TestParticipantInfoHash(t *testing.T) {
	r, err := interfaces.Registry()
	if err != nil {
		t.Fatal(err)
	}
	h, err := r.TypeHash("rmw_dds_common/msg/ParticipantEntitiesInfo")
	if err != nil || h != DiscoveryInfoTypeHash {
		t.Errorf("registry hash %s, %v, want %s", h, err, DiscoveryInfoTypeHash)
	}
	if h := (rmw_dds_common.ParticipantEntitiesInfo{}).TypeHash(); h != DiscoveryInfoTypeHash {
		t.Errorf("generated hash %s", h)
	}
	if n := (rmw_dds_common.ParticipantEntitiesInfo{}).DDSTypeName(); n != DiscoveryInfoTypeName {
		t.Errorf("generated DDS name %s", n)
	}
	// Kilted's Gid is char[16]: 16 bytes, the whole GUID.
	b, err := (&rmw_dds_common.Gid{}).AppendCDR(nil)
	if err != nil || len(b) != 4+16 {
		t.Errorf("Gid is %d bytes, %v", len(b)-4, err)
	}
}

func TestParseParticipantInfoErrors(t *testing.T) {
	wire := unhex(t, goldenTalkerInfo)
	for i := range len(wire) - 1 {
		if _, err := ParseParticipantInfo(wire[:i]); !errors.Is(err, ErrMalformed) {
			t.Errorf("truncated to %d: %v", i, err)
		}
	}
	long := append(bytes.Clone(wire[:4+16+4]), unhex(t, "02010000")...)
	long = append(long, bytes.Repeat([]byte{'a'}, 257)...)
	long = append(long, 0, 0, 0, 0)
	if _, err := ParseParticipantInfo(long); !errors.Is(err, ErrMalformed) {
		t.Errorf("namespace of 257 bytes: %v", err)
	}
	huge := append(bytes.Clone(wire[:4+16]), 0xff, 0xff, 0xff, 0x7f)
	if _, err := ParseParticipantInfo(huge); !errors.Is(err, ErrMalformed) {
		t.Errorf("huge count: %v", err)
	}
	p := ParticipantInfo{Nodes: []NodeEntities{{Namespace: "/", Name: strings.Repeat("n", 257)}}}
	if _, err := p.AppendCDR(nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("encoding a name of 257 bytes: %v", err)
	}
}

func TestLocalEntities(t *testing.T) {
	part := guid(t, "01100000 00000000 00000001 000001c1")
	w1 := guid(t, "01100000 00000000 00000001 00000103")
	r1 := guid(t, "01100000 00000000 00000001 00000204")
	rqR := guid(t, "01100000 00000000 00000001 00000304")
	rrW := guid(t, "01100000 00000000 00000001 00000403")
	l := NewLocalEntities(part)
	if got := l.Info(); got.GUID != part || len(got.Nodes) != 0 {
		t.Fatalf("empty: %+v", got)
	}
	a := l.AddNode(rmw.NodeName{Namespace: "/", Name: "talker", Enclave: "/"})
	b := l.AddNode(rmw.NodeName{Namespace: "/robot", Name: "server", Enclave: "/"})
	l.AddWriter(a, w1)
	l.AddReader(a, r1)
	l.AddReader(b, rqR) // a service: request reader and reply writer
	l.AddWriter(b, rrW)
	want := ParticipantInfo{GUID: part, Nodes: []NodeEntities{
		{Namespace: "/", Name: "talker", Readers: []dds.GUID{r1}, Writers: []dds.GUID{w1}},
		{Namespace: "/robot", Name: "server", Readers: []dds.GUID{rqR}, Writers: []dds.GUID{rrW}},
	}}
	got := l.Info()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Info = %+v, want %+v", got, want)
	}
	got.Nodes[0].Writers[0] = dds.GUID{} // Info shares nothing
	l.Remove(r1)
	l.RemoveNode(b)
	want = ParticipantInfo{GUID: part, Nodes: []NodeEntities{
		{Namespace: "/", Name: "talker", Readers: []dds.GUID{}, Writers: []dds.GUID{w1}},
	}}
	if got := l.Info(); !reflect.DeepEqual(got, want) {
		t.Fatalf("after removals Info = %+v, want %+v", got, want)
	}
	// What it writes reads back.
	info := l.Info()
	b2, err := info.AppendCDR(nil)
	if err != nil {
		t.Fatal(err)
	}
	if back, err := ParseParticipantInfo(b2); err != nil || !reflect.DeepEqual(back, info) {
		t.Errorf("round trip: %+v, %v", back, err)
	}
}
