package rmwdds

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/afor-go/afor/internal/peers"
	"github.com/afor-go/afor/transport/dds"
)

type oracleNode struct {
	NS      string   `json:"ns"`
	Name    string   `json:"name"`
	Readers []string `json:"readers"`
	Writers []string `json:"writers"`
}

type oracleSample struct {
	GID   string       `json:"gid"`
	Nodes []oracleNode `json:"nodes"`
}

func toOracle(p ParticipantInfo) oracleSample {
	hexes := func(gs []dds.GUID) []string {
		out := []string{}
		for _, g := range gs {
			out = append(out, hex.EncodeToString(g[:]))
		}
		return out
	}
	s := oracleSample{GID: hex.EncodeToString(p.GUID[:]), Nodes: []oracleNode{}}
	for _, n := range p.Nodes {
		s.Nodes = append(s.Nodes, oracleNode{NS: n.Namespace, Name: n.Name, Readers: hexes(n.Readers), Writers: hexes(n.Writers)})
	}
	return s
}

// TestOracleDiscoveryInfo has rclpy (rmw_fastrtps_cpp's typesupport and the
// rmw_dds_common wheel, Kilted) serialize ParticipantEntitiesInfo samples
// built on its side and deserialize ours: its bytes must decode in Go to
// the same sample, and ours must decode in rclpy to it. The bytes are
// equal but for padding, which Fast-CDR leaves unset.
func TestOracleDiscoveryInfo(t *testing.T) {
	py := peers.Python(t, "rclpy.serialization", "rmw_dds_common.msg")
	g := func(s string) dds.GUID { return guid(t, s) }
	samples := []ParticipantInfo{
		talkerInfo(t),
		{GUID: g("01100000 00000000 00000001 000001c1"), Nodes: []NodeEntities{}},
		{GUID: g("01100000 00000000 00000001 000001c1"), Nodes: []NodeEntities{
			{Namespace: "/robot1/arm", Name: "controller_with_a_long_name",
				Readers: []dds.GUID{g("01100000 00000000 00000001 00000104"), g("01100000 00000000 00000001 00000204")},
				Writers: []dds.GUID{g("01100000 00000000 00000001 00000303")}},
			{Namespace: "/", Name: "n", Readers: []dds.GUID{}, Writers: []dds.GUID{}},
			{Namespace: "/" + strings.Repeat("x", 255), Name: strings.Repeat("y", 256), Readers: []dds.GUID{},
				Writers: []dds.GUID{g("01100000 00000000 00000001 00000403")}},
		}},
	}
	for i, want := range samples {
		ours, err := want.AppendCDR(nil)
		if err != nil {
			t.Fatal(err)
		}
		req, err := json.Marshal(map[string]any{"sample": toOracle(want), "ours": hex.EncodeToString(ours)})
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.CommandContext(t.Context(), py, filepath.Join("testdata", "discovery_info_oracle.py"))
		cmd.Stdin = bytes.NewReader(req)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("sample %d: oracle: %v\n%s", i, err, stderr.Bytes())
		}
		var res struct {
			Theirs  string       `json:"theirs"`
			Decoded oracleSample `json:"decoded"`
		}
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatalf("sample %d: oracle answer %s: %v", i, out, err)
		}
		if !reflect.DeepEqual(res.Decoded, toOracle(want)) {
			t.Errorf("sample %d: rclpy decodes our bytes as %+v", i, res.Decoded)
		}
		theirs, err := hex.DecodeString(res.Theirs)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseParticipantInfo(theirs)
		if err != nil {
			t.Fatalf("sample %d: rclpy's bytes %x: %v", i, theirs, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("sample %d: rclpy's bytes decode as %+v", i, got)
		}
		// Fast-CDR leaves padding unset: bytes may differ only where ours
		// are zero padding.
		if len(theirs) < len(ours) {
			t.Errorf("sample %d: rclpy's %d bytes, our %d", i, len(theirs), len(ours))
			continue
		}
		for j := range ours {
			if theirs[j] != ours[j] && ours[j] != 0 {
				t.Errorf("sample %d: byte %d is %02x in rclpy's, %02x in ours", i, j, theirs[j], ours[j])
			}
		}
	}
}
