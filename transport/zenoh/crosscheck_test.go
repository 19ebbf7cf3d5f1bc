package zenoh

import (
	"bytes"
	"context"
	"net"
	"testing"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// The session's PUSH encoder writes what internal/wire decodes back, field
// for field, without keeping state from one message to the next.
func TestPushEncoderRoundTrip(t *testing.T) {
	ts := NewTimestamp(time.Unix(1700000000, 0), []byte{1, 2, 3})
	zid := []byte{9, 8, 7, 6}
	enc := pushEncoder{zid: zid}
	long := bytes.Repeat([]byte{'s'}, 300)
	for _, d := range []dataMsg{
		{payload: []byte("hello")},
		{payload: []byte{}, encID: 4, schema: []byte("utf-8"), attachment: []byte("att")},
		{payload: bytes.Repeat([]byte{7}, 300), hasTS: true, ts: ts, encID: customEncodingID, schema: []byte("my/enc")},
		{payload: nil, schema: long},
		{del: true},
		{del: true, attachment: []byte("bye"), hasTS: true, ts: ts},
		{payload: []byte("x"), hasTS: true, ts: NewTimestamp(time.Unix(5, 0), nil)},
	} {
		b, err := enc.append(nil, "a/b/c", &d)
		if err != nil {
			t.Fatal(err)
		}
		m, n, err := wire.DecodeNetwork(b, wire.DefaultLimits())
		if err != nil || n != len(b) {
			t.Fatalf("wire.DecodeNetwork(% x) = %d, %v", b, n, err)
		}
		p, ok := m.(*wire.Push)
		if !ok || string(p.WireExpr.Suffix) != "a/b/c" || p.WireExpr.Scope != 0 {
			t.Fatalf("decoded %#v", m)
		}
		var got dataMsg
		if !dataFromWire(p.Body, &got) {
			t.Fatalf("body %T", p.Body)
		}
		wantSchema := d.schema[:min(len(d.schema), 255)]
		if got.del != d.del || !bytes.Equal(got.payload, d.payload) || got.encID != d.encID ||
			!bytes.Equal(got.schema, wantSchema) || !bytes.Equal(got.attachment, d.attachment) ||
			got.hasTS != d.hasTS || got.ts.NTP64 != d.ts.NTP64 {
			t.Fatalf("got %+v from %+v", got, d)
		}
		if d.hasTS {
			wantID := d.ts.ID()
			if len(wantID) == 0 {
				wantID = zid // no ID: the session's stands in
			}
			if !bytes.Equal(got.ts.ID(), wantID) {
				t.Fatalf("timestamp ID % x, want % x", got.ts.ID(), wantID)
			}
		}
		if !d.del && got.payload == nil {
			t.Fatal("nil payload for a PUT")
		}
	}
}

// The declaration helpers encode what internal/wire decodes back.
func TestDeclarationHelpers(t *testing.T) {
	iid := uint32(9)
	for _, tc := range []struct {
		b     []byte
		check func(m wire.NetworkMessage) bool
	}{
		{appendDeclareSubscriber(nil, &iid, 5, "x/**"), func(m wire.NetworkMessage) bool {
			d, ok := m.(*wire.Declare)
			sub, ok2 := d.Body.(*wire.DeclareSubscriber)
			return ok && ok2 && d.HasInterestID && d.InterestID == 9 && sub.ID == 5 && string(sub.WireExpr.Suffix) == "x/**"
		}},
		{appendUndeclareSubscriber(nil, 5), func(m wire.NetworkMessage) bool {
			d, ok := m.(*wire.Declare)
			u, ok2 := d.Body.(*wire.UndeclareSubscriber)
			return ok && ok2 && !d.HasInterestID && u.ID == 5
		}},
		{appendDeclareFinal(nil, 0), func(m wire.NetworkMessage) bool {
			d, ok := m.(*wire.Declare)
			_, ok2 := d.Body.(*wire.DeclareFinal)
			return ok && ok2 && d.HasInterestID && d.InterestID == 0
		}},
		{appendDeclareQueryable(nil, nil, 3, "q/*", true), func(m wire.NetworkMessage) bool {
			d, ok := m.(*wire.Declare)
			q, ok2 := d.Body.(*wire.DeclareQueryable)
			return ok && ok2 && q.ID == 3 && q.Complete && string(q.WireExpr.Suffix) == "q/*"
		}},
		{appendUndeclareToken(nil, 4, "t"), func(m wire.NetworkMessage) bool {
			d, ok := m.(*wire.Declare)
			u, ok2 := d.Body.(*wire.UndeclareToken)
			return ok && ok2 && u.ID == 4 && u.HasWireExpr && string(u.WireExpr.Suffix) == "t"
		}},
		{appendInterest(nil, subsInterestID, wire.InterestCurrentFuture, wire.InterestSubscribers|wire.InterestTokens), func(m wire.NetworkMessage) bool {
			i, ok := m.(*wire.Interest)
			return ok && i.ID == subsInterestID && i.Mode == wire.InterestCurrentFuture &&
				i.Options == wire.InterestSubscribers|wire.InterestTokens
		}},
	} {
		m, n, err := wire.DecodeNetwork(tc.b, wire.DefaultLimits())
		if err != nil || n != len(tc.b) || !tc.check(m) {
			t.Fatalf("% x decoded as %#v (%d bytes, %v)", tc.b, m, n, err)
		}
	}
	// CLOSE and KEEP_ALIVE batches carry their length prefix.
	if b := appendClose(nil, wire.CloseConnectionToSelf, true); !bytes.Equal(b, []byte{2, 0, wire.IDClose | wire.FlagCloseSession, wire.CloseConnectionToSelf}) {
		t.Fatalf("CLOSE batch % x", b)
	}
	if b, err := appendBatch(nil, &wire.KeepAlive{}); err != nil || !bytes.Equal(b, []byte{1, 0, wire.IDKeepAlive}) {
		t.Fatalf("KEEP_ALIVE batch % x, %v", b, err)
	}
}

// Publishing reuses the encoder's storage: no allocation per sample.
func TestPushEncoderAllocs(t *testing.T) {
	enc := pushEncoder{zid: []byte{1}}
	d := dataMsg{payload: []byte("payload"), encID: 4, schema: []byte("utf-8"), attachment: []byte("a"),
		hasTS: true, ts: NewTimestamp(time.Unix(1, 0), []byte{2})}
	buf := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(100, func() {
		buf, _ = enc.append(buf[:0], "demo/key", &d)
	}); n != 0 {
		t.Fatalf("%v allocations per PUSH", n)
	}
}

// BenchmarkHandleBatch measures a link's receive path alone: one FRAME of
// 100 PUSHes with 8-byte payloads, decoded and delivered to a local
// subscriber's raw handler.
func BenchmarkHandleBatch(b *testing.B) {
	s, err := Open(context.Background(), Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var got int
	if _, err := s.declareSubscriber("bench/**", func(string, dataMsg) { got++ }, nil); err != nil {
		b.Fatal(err)
	}
	const perBatch = 100
	batch := wire.AppendFrameHeader(nil, true, 0)
	for range perBatch {
		p := wire.Push{WireExpr: wire.WireExpr{Suffix: []byte("bench/thr")}, Body: &wire.Put{Payload: make([]byte, 8)}}
		if batch, err = p.AppendBinary(batch); err != nil {
			b.Fatal(err)
		}
	}
	c1, c2 := net.Pipe()
	defer c1.Close()
	defer c2.Close()
	l := &link{s: s, conn: c1, log: s.log, done: make(chan struct{}), finished: make(chan struct{}),
		aliases: make(map[uint16]string), snMask: 1<<28 - 1, batch: 65535}
	b.ReportAllocs()
	for b.Loop() {
		l.rxStarted = [2]bool{} // every batch repeats SN 0
		if err := l.handleBatch(batch); err != nil {
			b.Fatal(err)
		}
	}
	if got < perBatch {
		b.Fatalf("%d samples delivered", got)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*perBatch), "ns/msg")
}
