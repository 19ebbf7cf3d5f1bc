package wire

import (
	"bytes"
	"testing"
)

// TestPushAppendHead checks that the head and the payload side by side are
// the message AppendBinary encodes, and that the Put is left as it was.
func TestPushAppendHead(t *testing.T) {
	for _, n := range []int{0, 1, 127, 128, 70000, 1 << 20} {
		payload := bytes.Repeat([]byte{0xa5}, n)
		put := &Put{Encoding: Encoding{ID: 7, Schema: []byte("x")}, Attachment: []byte("att"), Payload: payload,
			HasTimestamp: true, Timestamp: Timestamp{Time: 42, ID: ZenohID{Bytes: [16]byte{1, 2}, Len: 2}}}
		m := &Push{WireExpr: WireExpr{Suffix: []byte("camera/image")}, Body: put}
		want, err := m.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		head, err := m.AppendHead([]byte("prefix"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(head, []byte("prefix")) {
			t.Fatal("dst not kept")
		}
		got := append(head[len("prefix"):len(head):len(head)], payload...)
		if !bytes.Equal(got, want) {
			t.Fatalf("%d bytes: head+payload differs from AppendBinary", n)
		}
		if len(put.Payload) != n {
			t.Fatal("payload not restored")
		}
		nm, used, err := DecodeNetwork(got, Limits{MaxPayload: 2 << 20})
		if err != nil || used != len(got) {
			t.Fatalf("decode: %v (%d of %d bytes)", err, used, len(got))
		}
		if p := nm.(*Push).Body.(*Put); !bytes.Equal(p.Payload, payload) {
			t.Fatalf("%d bytes: payload decoded differently", n)
		}
	}
	del := &Push{WireExpr: WireExpr{Suffix: []byte("k")}, Body: &Del{}}
	a, _ := del.AppendBinary(nil)
	b, err := del.AppendHead(nil)
	if err != nil || !bytes.Equal(a, b) {
		t.Fatalf("DEL: %x vs %x (%v)", a, b, err)
	}
}
