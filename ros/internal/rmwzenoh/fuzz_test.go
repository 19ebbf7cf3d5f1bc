package rmwzenoh

import (
	"bytes"
	"testing"
)

// FuzzParseToken feeds arbitrary strings to the token parser: it must
// return a token or an error, never panic, and what it accepts must write
// back to the same bytes.
func FuzzParseToken(f *testing.F) {
	for _, g := range goldenTokens() {
		f.Add(g.want)
	}
	f.Add("@ros2_lv/0/z/0/0/NN/%/%/n/extra")
	f.Add("@ros2_lv/0/z/0/1/MP/%/%/n/t/T/H/::,10:1,2000000000:,:,,")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		tok, err := parseToken(s)
		if err != nil {
			return
		}
		if tok.Kind == kindNode {
			_ = nodeToken(tok.Domain, tok.ZID, tok.NodeID, tok.Node)
			return
		}
		ep := tok.endpoint(s)
		if ep.Kind == 0 {
			t.Fatalf("accepted entity token %q without an endpoint kind", s)
		}
		if _, err := parseQoS(qosString(tok.QoS)); err != nil {
			t.Fatalf("QoS %+v of %q does not write back: %v", tok.QoS, s, err)
		}
	})
}

// FuzzParseQoS checks that every QoS string the parser accepts writes
// back to a string that parses to the same profile.
func FuzzParseQoS(f *testing.F) {
	for _, s := range []string{"::,10:,:,:,,", ":1:,1000:,:10,0:,,", "2::,5:,:,:,,", "::2,1:,:,:,,", "::,7:1,500:2,0:3,3,0", ":", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := parseQoS(s)
		if err != nil {
			return
		}
		back, err := parseQoS(qosString(q))
		if err != nil || back != q {
			t.Fatalf("parseQoS(%q) = %+v; written %q, parsed back %+v, %v", s, q, qosString(q), back, err)
		}
	})
}

// FuzzParseAttachment checks the attachment decoder on arbitrary bytes:
// what it accepts encodes back to the same 33 bytes.
func FuzzParseAttachment(f *testing.F) {
	f.Add(appendAttachment(nil, attachment{Seq: 1, SourceTime: 1796154560307756803}))
	f.Add([]byte{})
	f.Add(make([]byte, 32))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := parseAttachment(b)
		if err != nil {
			return
		}
		if got := appendAttachment(nil, a); !bytes.Equal(got, b) {
			t.Fatalf("re-encoded %x, want %x", got, b)
		}
	})
}
