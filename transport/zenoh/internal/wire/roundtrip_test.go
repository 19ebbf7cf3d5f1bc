package wire

import (
	"bytes"
	"encoding"
	"errors"
	"io"
	"reflect"
	"testing"
)

// prefix is written before every encoding to check that encoders append
// and never assume an empty destination.
var prefix = []byte{0xde, 0xad}

// roundTrip encodes m after a prefix, decodes it with decode, and checks
// that the decoding equals m, consumed everything, and re-encodes to the
// same bytes.
func roundTrip[M encoding.BinaryAppender](t *testing.T, i int, m M, decode func([]byte, Limits) (M, int, error)) []byte {
	t.Helper()
	buf, err := m.AppendBinary(bytes.Clone(prefix))
	if err != nil {
		t.Fatalf("#%d AppendBinary(%#v): %v", i, m, err)
	}
	if !bytes.Equal(buf[:len(prefix)], prefix) {
		t.Fatalf("#%d encoder overwrote the prefix", i)
	}
	enc := buf[len(prefix):]
	got, n, err := decode(enc, Limits{})
	if err != nil {
		t.Fatalf("#%d decode(% x) of %#v: %v", i, enc, m, err)
	}
	if n != len(enc) {
		t.Fatalf("#%d consumed %d of %d bytes", i, n, len(enc))
	}
	if !reflect.DeepEqual(any(got), any(m)) {
		t.Fatalf("#%d round trip mismatch\n got %#v\nwant %#v\nbytes % x", i, got, m, enc)
	}
	again, err := got.AppendBinary(nil)
	if err != nil || !bytes.Equal(again, enc) {
		t.Fatalf("#%d re-encoding differs: % x vs % x (%v)", i, again, enc, err)
	}
	return enc
}

const roundTrips = 3000

func TestRoundTripZenoh(t *testing.T) {
	g := newGen(1)
	for i := range roundTrips {
		roundTrip(t, i, g.zenoh(), DecodeZenoh)
	}
}

func TestRoundTripNetwork(t *testing.T) {
	g := newGen(2)
	for i := range roundTrips {
		roundTrip(t, i, g.network(), DecodeNetwork)
	}
}

func TestRoundTripTransport(t *testing.T) {
	g := newGen(3)
	for i := range roundTrips {
		roundTrip(t, i, g.transport(), DecodeTransport)
	}
}

// TestRoundTripDecoder packs random frames, keep-alives and a trailing
// fragment into batches and checks that the Decoder returns exactly what
// was encoded, reusing its storage.
func TestRoundTripDecoder(t *testing.T) {
	g := newGen(4)
	d := NewDecoder(Limits{})
	for i := range 500 {
		var batch []byte
		var want []TransportMessage
		for range 1 + g.r.IntN(4) {
			var m TransportMessage
			if g.r.IntN(4) == 0 {
				m = &KeepAlive{}
			} else {
				f := &Frame{Reliable: g.bool(), SN: g.u64()}
				for range g.r.IntN(5) {
					f.Messages = append(f.Messages, g.network())
				}
				m = f
			}
			var err error
			if batch, err = m.AppendBinary(batch); err != nil {
				t.Fatal(err)
			}
			want = append(want, m)
		}
		if g.bool() {
			f := &Fragment{Reliable: true, More: g.bool(), SN: g.u64(), Payload: g.nonEmpty(100)}
			batch, _ = f.AppendBinary(batch)
			want = append(want, f)
		}
		d.Reset(batch)
		for j, w := range want {
			m, err := d.Next()
			if err != nil {
				t.Fatalf("batch %d message %d: %v", i, j, err)
			}
			wf, isFrame := w.(*Frame)
			if !isFrame {
				if !sameEncoding(m, w) {
					t.Fatalf("batch %d message %d: %#v, want %#v", i, j, m, w)
				}
				continue
			}
			f, ok := m.(*Frame)
			if !ok || f.SN != wf.SN || f.Reliable != wf.Reliable {
				t.Fatalf("batch %d message %d: %#v, want frame %#v", i, j, m, wf)
			}
			// Skip the rest of some frames to exercise Next's draining.
			k := len(wf.Messages)
			if g.r.IntN(4) == 0 {
				k = g.r.IntN(k + 1)
			}
			for _, wm := range wf.Messages[:k] {
				nm, err := d.NextNetwork()
				if err != nil {
					t.Fatalf("batch %d frame %d: %v", i, j, err)
				}
				if !sameEncoding(nm, wm) {
					t.Fatalf("batch %d frame %d:\n got %#v\nwant %#v", i, j, nm, wm)
				}
			}
			if k == len(wf.Messages) {
				if _, err := d.NextNetwork(); !errors.Is(err, io.EOF) {
					t.Fatalf("batch %d frame %d: end of frame: %v", i, j, err)
				}
			}
		}
		if m, err := d.Next(); !errors.Is(err, io.EOF) {
			t.Fatalf("batch %d: trailing %#v, %v", i, m, err)
		}
	}
}

// sameEncoding compares messages by their encodings: a Decoder reuses its
// storage, so its messages hold empty rather than nil extension slices.
func sameEncoding(a, b encoding.BinaryAppender) bool {
	ea, err1 := a.AppendBinary(nil)
	eb, err2 := b.AppendBinary(nil)
	return err1 == nil && err2 == nil && bytes.Equal(ea, eb)
}

func TestEncodeRejectsInvalid(t *testing.T) {
	long := make([]byte, MaxSuffix+1)
	cases := []encoding.BinaryAppender{
		&Init{Version: 9, WhatAmI: Peer},                      // empty zid
		&Init{Version: 9, WhatAmI: 3, ZID: testZID(t)},        // bad whatami
		&Push{WireExpr: WireExpr{Suffix: []byte("k")}},        // no body
		&Push{Body: &Query{}},                                 // wrong body
		&Response{Body: &Put{}},                               // wrong body
		&Reply{Body: &Err{}},                                  // wrong body
		&Declare{},                                            // no body
		&Push{WireExpr: WireExpr{Suffix: long}, Body: &Del{}}, // suffix too long
		&Put{Encoding: Encoding{Schema: make([]byte, 256)}},   // schema too long
		&Put{HasTimestamp: true},                              // timestamp without id
		&Open{Lease: -1},
		&Interest{Mode: 4},
		&Query{Consolidation: 4},
		&NetworkOAM{Encoding: 3},
		&Frame{Messages: []NetworkMessage{nil}},
	}
	for i, m := range cases {
		if _, err := m.AppendBinary(nil); !errors.Is(err, ErrInvalid) {
			t.Errorf("case %d (%T): error %v, want ErrInvalid", i, m, err)
		}
	}
}

func TestZenohIDString(t *testing.T) {
	z, _ := NewZenohID([]byte{0x01, 0x02, 0x00, 0x0a})
	if s := z.String(); s != "a000201" {
		t.Errorf("String() = %q", s)
	}
	if _, err := NewZenohID(nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("empty id: %v", err)
	}
	if _, err := NewZenohID(make([]byte, 17)); !errors.Is(err, ErrInvalid) {
		t.Errorf("17-byte id: %v", err)
	}
}
