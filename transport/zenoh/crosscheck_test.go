package zenoh

import (
	"bytes"
	"testing"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// The session's private encoders agree with internal/wire, written
// independently from the specification.
func TestEncodersAgreeWithWire(t *testing.T) {
	ts := NewTimestamp(time.Unix(1700000000, 0), []byte{1, 2, 3})
	for _, d := range []outData{
		{payload: []byte("hello")},
		{payload: []byte{}, encID: 4, schema: "utf-8", attachment: []byte("att")},
		{payload: bytes.Repeat([]byte{7}, 300), hasTS: true, ts: ts, encID: customEncodingID, schema: "my/enc"},
		{del: true},
		{del: true, attachment: []byte("bye"), hasTS: true, ts: ts},
	} {
		b := appendPush(nil, "a/b/c", &d)
		m, n, err := wire.DecodeNetwork(b, wire.DefaultLimits())
		if err != nil || n != len(b) {
			t.Fatalf("wire.DecodeNetwork(% x) = %d, %v", b, n, err)
		}
		p, ok := m.(*wire.Push)
		if !ok || string(p.WireExpr.Suffix) != "a/b/c" || p.WireExpr.Scope != 0 {
			t.Fatalf("decoded %#v", m)
		}
		switch body := p.Body.(type) {
		case *wire.Put:
			if d.del || !bytes.Equal(body.Payload, d.payload) || body.Encoding.ID != d.encID ||
				string(body.Encoding.Schema) != d.schema || !bytes.Equal(body.Attachment, d.attachment) ||
				body.HasTimestamp != d.hasTS || body.Timestamp.Time != d.ts.NTP64 {
				t.Fatalf("put %+v from %+v", body, d)
			}
		case *wire.Del:
			if !d.del || !bytes.Equal(body.Attachment, d.attachment) || body.HasTimestamp != d.hasTS {
				t.Fatalf("del %+v from %+v", body, d)
			}
		default:
			t.Fatalf("body %T", body)
		}
	}
	iid := uint32(9)
	b := appendDeclareSubscriber(nil, &iid, 5, "x/**")
	m, _, err := wire.DecodeNetwork(b, wire.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	decl, ok := m.(*wire.Declare)
	if !ok || !decl.HasInterestID || decl.InterestID != 9 {
		t.Fatalf("decoded %#v", m)
	}
	if sub, ok := decl.Body.(*wire.DeclareSubscriber); !ok || sub.ID != 5 || string(sub.WireExpr.Suffix) != "x/**" {
		t.Fatalf("declaration %#v", decl.Body)
	}
}

// The session decodes what internal/wire encodes.
func TestDecoderAgreesWithWire(t *testing.T) {
	var zid wire.ZenohID
	zid.Len = 2
	zid.Bytes[0], zid.Bytes[1] = 0xab, 0xcd
	for _, push := range []*wire.Push{
		{WireExpr: wire.WireExpr{Suffix: []byte("demo/example")}, Body: &wire.Put{Payload: []byte("hi")}},
		{WireExpr: wire.WireExpr{Suffix: []byte("k")}, Body: &wire.Put{
			Payload: []byte("v"), Encoding: wire.Encoding{ID: 5, Schema: []byte("s")}, Attachment: []byte("a"),
			HasTimestamp: true, Timestamp: wire.Timestamp{Time: 42 << 32, ID: zid}}},
		{WireExpr: wire.WireExpr{Suffix: []byte("k")}, Body: &wire.Del{Attachment: []byte("gone")}},
	} {
		b, err := push.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		var m netMsg
		r := reader{b}
		if err := decodeNetwork(&r, &m); err != nil || r.len() != 0 {
			t.Fatalf("decodeNetwork(% x): %v, %d left", b, err, r.len())
		}
		if m.id != nPush || !bytes.Equal(m.key.suffix, push.WireExpr.Suffix) {
			t.Fatalf("decoded %+v", m)
		}
		switch body := push.Body.(type) {
		case *wire.Put:
			smp := toSample(string(m.key.suffix), &m.data)
			if m.data.del || !bytes.Equal(m.data.payload, body.Payload) || !bytes.Equal(m.data.attachment, body.Attachment) ||
				m.data.encID != body.Encoding.ID || !bytes.Equal(m.data.schema, body.Encoding.Schema) ||
				m.data.ts.NTP64 != body.Timestamp.Time || !bytes.Equal(smp.Timestamp.ID(), body.Timestamp.ID.Slice()) {
				t.Fatalf("put %+v from %+v", m.data, body)
			}
		case *wire.Del:
			if !m.data.del || !bytes.Equal(m.data.attachment, body.Attachment) {
				t.Fatalf("del %+v from %+v", m.data, body)
			}
		}
	}
}
