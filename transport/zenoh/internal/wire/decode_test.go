package wire

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"
)

// TestTruncatedPrefixes checks that network and zenoh messages are
// self-delimiting: every strict prefix of an encoding fails with
// ErrTruncated (and nothing panics).
func TestTruncatedPrefixes(t *testing.T) {
	g := newGen(5)
	for i := range 300 {
		nm := g.network()
		enc, err := nm.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		for k := range len(enc) {
			if _, _, err := DecodeNetwork(enc[:k], Limits{}); !errors.Is(err, ErrTruncated) {
				t.Fatalf("#%d network prefix %d/%d of % x: %v", i, k, len(enc), enc, err)
			}
		}
		zm := g.zenoh()
		enc, _ = zm.AppendBinary(nil)
		for k := range len(enc) {
			if _, _, err := DecodeZenoh(enc[:k], Limits{}); !errors.Is(err, ErrTruncated) {
				t.Fatalf("#%d zenoh prefix %d/%d of % x: %v", i, k, len(enc), enc, err)
			}
		}
	}
}

func TestExtensions(t *testing.T) {
	put := func(ext ...byte) []byte {
		b := []byte{IDPut | FlagZ}
		b = append(b, ext...)
		return append(b, 0x01, 'v') // payload "v"
	}
	t.Run("unknown mandatory rejected", func(t *testing.T) {
		for _, ext := range [][]byte{
			{0x1c},             // unit, mandatory, id 12
			{0x3c, 0x05},       // z64, mandatory
			{0x5c, 0x01, 0xaa}, // zbuf, mandatory
			{0x8c, 0x1d},       // a known-shape chain ending in a mandatory one
		} {
			_, _, err := DecodeZenoh(put(ext...), Limits{})
			if !errors.Is(err, ErrMandatoryExtension) {
				t.Errorf("ext % x: %v", ext, err)
			}
		}
	})
	t.Run("unknown optional kept", func(t *testing.T) {
		m, _, err := DecodeZenoh(put(0x8c, 0xad, 0x80, 0x01, 0x4e, 0x02, 'h', 'i'), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		want := []Extension{
			{ID: 12, Encoding: ExtUnit},
			{ID: 13, Encoding: ExtZ64, Value: 128},
			{ID: 14, Encoding: ExtZBuf, Body: []byte("hi")},
		}
		p := m.(*Put)
		if !reflect.DeepEqual(p.Exts, want) || string(p.Payload) != "v" {
			t.Errorf("got %+v payload %q", p.Exts, p.Payload)
		}
	})
	t.Run("reserved encoding", func(t *testing.T) {
		if _, _, err := DecodeZenoh(put(0x6c), Limits{}); !errors.Is(err, ErrInvalid) {
			t.Errorf("encoding 0b11: %v", err)
		}
	})
	t.Run("ReadExtensions", func(t *testing.T) {
		in := []byte{0x8c, 0xad, 0x80, 0x01, 0x1e, 0xff}
		exts, n, err := ReadExtensions(in, Limits{})
		if err != nil || n != 5 || len(exts) != 3 || !exts[2].Mandatory {
			t.Fatalf("ReadExtensions = %+v, %d, %v", exts, n, err)
		}
		out, err := AppendExtensions(nil, exts)
		if err != nil || !bytes.Equal(out, in[:5]) {
			t.Errorf("AppendExtensions = % x, %v", out, err)
		}
	})
	t.Run("empty chain only tolerated in INIT and OPEN", func(t *testing.T) {
		if _, _, err := DecodeTransport([]byte{0xc2, 0x0a, 0x00, 0x00}, Limits{}); err != nil {
			t.Errorf("OPEN with empty chain: %v", err)
		}
		if _, _, err := DecodeTransport([]byte{0x84}, Limits{}); !errors.Is(err, ErrTruncated) {
			t.Errorf("KEEP_ALIVE with empty chain: %v", err)
		}
	})
}

func TestLimits(t *testing.T) {
	big := bytes.Repeat([]byte{'x'}, 100)
	lim := Limits{MaxPayload: 99, MaxExtension: 99, MaxFragment: 99, MaxExtensions: 3, MaxMessagesPerFrame: 2}
	enc := func(m interface{ AppendBinary([]byte) ([]byte, error) }) []byte {
		b, err := m.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	cases := []struct {
		name   string
		decode func([]byte, Limits) error
		in     []byte
	}{
		{"payload", zenohDecode, enc(&Put{Payload: big})},
		{"suffix", networkDecode, enc(&Push{WireExpr: WireExpr{Suffix: big}, Body: &Del{}})},
		{"parameters", zenohDecode, enc(&Query{Parameters: big})},
		{"attachment", zenohDecode, enc(&Put{Attachment: big})},
		{"extension body", zenohDecode, enc(&Del{Exts: []Extension{{ID: 9, Encoding: ExtZBuf, Body: big}}})},
		{"extension count", zenohDecode, enc(&Del{Exts: make([]Extension, 4)})},
		{"fragment", transportDecode, enc(&Fragment{Payload: big})},
		{"cookie", transportDecode, enc(&Open{Cookie: big})},
		{"messages per frame", transportDecode, enc(&Frame{Messages: []NetworkMessage{
			&ResponseFinal{}, &ResponseFinal{}, &ResponseFinal{}}})},
	}
	for _, c := range cases {
		if err := c.decode(c.in, Limits{}); err != nil {
			t.Errorf("%s: rejected under default limits: %v", c.name, err)
		}
		if err := c.decode(c.in, lim); !errors.Is(err, ErrLimit) {
			t.Errorf("%s: error %v, want ErrLimit", c.name, err)
		}
	}
	// The Decoder enforces the frame limit too.
	d := NewDecoder(lim)
	d.Reset(cases[len(cases)-1].in)
	if _, err := d.Next(); err != nil {
		t.Fatal(err)
	}
	var err error
	for range 3 {
		if _, err = d.NextNetwork(); err != nil {
			break
		}
	}
	if !errors.Is(err, ErrLimit) {
		t.Errorf("Decoder frame limit: %v", err)
	}
	if _, err := d.Next(); !errors.Is(err, io.EOF) {
		t.Errorf("Next after failure: %v", err)
	}
}

func zenohDecode(b []byte, l Limits) error     { _, _, err := DecodeZenoh(b, l); return err }
func networkDecode(b []byte, l Limits) error   { _, _, err := DecodeNetwork(b, l); return err }
func transportDecode(b []byte, l Limits) error { _, _, err := DecodeTransport(b, l); return err }

func TestUnknownMessages(t *testing.T) {
	cases := []struct {
		name   string
		decode func([]byte, Limits) error
		in     []byte
	}{
		{"JOIN", transportDecode, []byte{IDJoin}},
		{"transport 0x08", transportDecode, []byte{0x08}},
		{"network 0x18", networkDecode, []byte{0x18}},
		{"zenoh 0x06", zenohDecode, []byte{0x06}},
		{"declaration 0x08", networkDecode, []byte{IDDeclare, 0x08}},
		{"request body PUT", networkDecode, []byte{IDRequest, 0x01, 0x00, IDPut, 0x00}},
		{"push body QUERY", networkDecode, []byte{IDPush, 0x00, IDQuery}},
		{"response body PUT", networkDecode, []byte{IDResponse, 0x01, 0x00, IDPut, 0x00}},
	}
	for _, c := range cases {
		if err := c.decode(c.in, Limits{}); !errors.Is(err, ErrUnknownMessage) {
			t.Errorf("%s: %v, want ErrUnknownMessage", c.name, err)
		}
	}
}

// TestFrameStopsAtTransportHeader checks that a FRAME's messages end at the
// first header that is not a network message, as in a batch holding a
// reliable and a best-effort frame.
func TestFrameStopsAtTransportHeader(t *testing.T) {
	f1 := &Frame{Reliable: true, SN: 3, Messages: []NetworkMessage{&ResponseFinal{RequestID: 1}}}
	f2 := &Frame{SN: 9, Messages: []NetworkMessage{&ResponseFinal{RequestID: 2}}}
	b, _ := f1.AppendBinary(nil)
	first := len(b)
	b, _ = f2.AppendBinary(b)
	m, n, err := DecodeTransport(b, Limits{})
	if err != nil || n != first || !reflect.DeepEqual(m, f1) {
		t.Fatalf("first frame: %#v, %d, %v", m, n, err)
	}
	m, n, err = DecodeTransport(b[first:], Limits{})
	if err != nil || n != len(b)-first || !reflect.DeepEqual(m, f2) {
		t.Fatalf("second frame: %#v, %d, %v", m, n, err)
	}
}

// TestDecoderAllocs checks the hot path: decoding a frame of PUSH/PUT
// messages with a Decoder allocates nothing.
func TestDecoderAllocs(t *testing.T) {
	push := &Push{WireExpr: WireExpr{Scope: 1, Mapping: MappingSender},
		NetworkExts: NetworkExts{HasQoS: true, QoS: 0x0d},
		Body:        &Put{Payload: make([]byte, 64), Attachment: []byte("a")}}
	batch := AppendFrameHeader(nil, true, 1)
	for range 4 {
		batch, _ = push.AppendBinary(batch)
	}
	d := NewDecoder(Limits{})
	allocs := testing.AllocsPerRun(100, func() {
		d.Reset(batch)
		for {
			if _, err := d.Next(); err != nil {
				break
			}
			for {
				if _, err := d.NextNetwork(); err != nil {
					break
				}
			}
		}
	})
	if allocs != 0 {
		t.Errorf("Decoder allocated %.1f times per batch", allocs)
	}
	enc := AppendFrameHeader(make([]byte, 0, 256), true, 1)
	allocs = testing.AllocsPerRun(100, func() {
		enc, _ = push.AppendBinary(enc[:2])
	})
	if allocs != 0 {
		t.Errorf("AppendBinary allocated %.1f times", allocs)
	}
}

func TestTransportOAMKeepsQoS(t *testing.T) {
	in := []byte{IDTransportOAM | 1<<5 | FlagZ, 0x02, 0x31, 0x05, 0x2a} // Z64 OAM id 2, QoS 5, value 42
	m, n, err := DecodeTransport(in, Limits{})
	if err != nil || n != len(in) {
		t.Fatalf("%v, %d", err, n)
	}
	oam := m.(*TransportOAM)
	if oam.ID != 2 || oam.Value != 42 || len(oam.Exts) != 1 || !oam.Exts[0].Mandatory {
		t.Fatalf("%+v", oam)
	}
	out, err := oam.AppendBinary(nil)
	if err != nil || !bytes.Equal(out, in) {
		t.Errorf("re-encoded % x, %v", out, err)
	}
}

// TestZBufExtLengths checks the in-place length of ZBuf extensions across
// the sizes where the zint length grows.
func TestZBufExtLengths(t *testing.T) {
	for _, n := range []int{0, 1, 127, 128, 300, 16383, 16384, 70000} {
		payload := bytes.Repeat([]byte{0xab}, n)
		q := &Query{HasBody: true, Body: QueryBody{Encoding: Encoding{ID: 7}, Payload: payload}}
		enc, err := q.AppendBinary([]byte{1, 2, 3})
		if err != nil {
			t.Fatal(err)
		}
		m, k, err := DecodeZenoh(enc[3:], Limits{MaxExtension: 1 << 20})
		if err != nil || k != len(enc)-3 {
			t.Fatalf("n=%d: %v, %d", n, err, k)
		}
		got := m.(*Query)
		if !got.HasBody || got.Body.Encoding.ID != 7 || !bytes.Equal(got.Body.Payload, payload) {
			t.Fatalf("n=%d: body %d bytes", n, len(got.Body.Payload))
		}
	}
}

func TestDecoderDecodeNetwork(t *testing.T) {
	req := &Request{ID: 7, WireExpr: WireExpr{Suffix: []byte("a/b")}, Target: TargetAll,
		Body: Query{Parameters: []byte("x=1"), HasBody: true, Body: QueryBody{Payload: []byte("p")}}}
	resp := &Response{RequestID: 7, WireExpr: WireExpr{Suffix: []byte("a/b")},
		Body: &Reply{Body: &Put{Payload: []byte("r")}}}
	d := NewDecoder(Limits{})
	for _, m := range []NetworkMessage{req, resp, &ResponseFinal{RequestID: 7}} {
		b, err := m.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		want, wn, werr := DecodeNetwork(b, Limits{})
		got, n, err := d.DecodeNetwork(b)
		if err != nil || werr != nil || n != wn || n != len(b) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%T: got %+v (%d, %v), want %+v (%d, %v)", m, got, n, err, want, wn, werr)
		}
		allocs := testing.AllocsPerRun(50, func() { _, _, _ = d.DecodeNetwork(b) })
		if allocs != 0 {
			t.Errorf("%T: Decoder.DecodeNetwork allocated %.1f times", m, allocs)
		}
	}
	if _, _, err := d.DecodeNetwork([]byte{0x1c}); err == nil {
		t.Fatal("truncated REQUEST decoded")
	}
}
