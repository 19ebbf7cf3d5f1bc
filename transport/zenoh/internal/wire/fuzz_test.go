package wire

import (
	"bytes"
	"errors"
	"testing"
)

// seedCorpus returns the captured batches and random valid encodings.
func seedCorpus(f *testing.F, level string) {
	for _, tc := range goldenCases(f) {
		switch level {
		case "transport":
			f.Add(tc.batch)
		case "network":
			if fr, ok := tc.want.(*Frame); ok {
				f.Add(frameBody(f, tc.batch, fr))
			}
		}
	}
	g := newGen(42)
	for range 20 {
		var b []byte
		var err error
		switch level {
		case "transport":
			b, err = g.transport().AppendBinary(nil)
		case "network":
			b, err = g.network().AppendBinary(nil)
		case "zenoh":
			b, err = g.zenoh().AppendBinary(nil)
		}
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// frameBody strips a captured frame's header, leaving its network messages.
func frameBody(f *testing.F, batch []byte, fr *Frame) []byte {
	h := AppendFrameHeader(nil, fr.Reliable, fr.SN)
	if !bytes.HasPrefix(batch, h) {
		f.Fatalf("unexpected frame header in % x", batch)
	}
	return batch[len(h):]
}

// checkDecoded re-encodes a successful decoding and requires that the
// result decodes again to an identical encoding (decoding normalises, so
// the first re-encoding may differ from the input, but not the second).
func checkDecoded[M interface{ AppendBinary([]byte) ([]byte, error) }](t *testing.T, m M, decode func([]byte, Limits) (M, int, error)) {
	enc, err := m.AppendBinary(nil)
	if err != nil {
		// Decoded messages are always encodable, except for limits that
		// only the encoder checks, which the decoder bounds more tightly.
		t.Fatalf("re-encoding %#v: %v", m, err)
	}
	m2, n, err := decode(enc, Limits{})
	if err != nil || n != len(enc) {
		t.Fatalf("decoding re-encoding % x: %d, %v", enc, n, err)
	}
	enc2, err := m2.AppendBinary(nil)
	if err != nil || !bytes.Equal(enc, enc2) {
		t.Fatalf("unstable encoding:\n% x\n% x", enc, enc2)
	}
}

func checkErr(t *testing.T, err error) {
	for _, s := range []error{ErrTruncated, ErrOverlong, ErrOverflow, ErrLimit,
		ErrMandatoryExtension, ErrUnknownMessage, ErrInvalid} {
		if errors.Is(err, s) {
			return
		}
	}
	t.Fatalf("error %v wraps no sentinel", err)
}

func FuzzDecodeTransport(f *testing.F) {
	seedCorpus(f, "transport")
	d := NewDecoder(Limits{})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, n, err := DecodeTransport(b, Limits{})
		if err != nil {
			checkErr(t, err)
		} else {
			if n <= 0 || n > len(b) {
				t.Fatalf("consumed %d of %d", n, len(b))
			}
			checkDecoded(t, m, DecodeTransport)
		}
		// The Decoder must agree on success, and never panic.
		d.Reset(b)
		for {
			m, err := d.Next()
			if err != nil {
				break
			}
			if _, ok := m.(*Frame); ok {
				for {
					if _, err := d.NextNetwork(); err != nil {
						break
					}
				}
			}
		}
	})
}

func FuzzDecodeNetwork(f *testing.F) {
	seedCorpus(f, "network")
	d := NewDecoder(Limits{})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, n, err := DecodeNetwork(b, Limits{})
		// The reusable Decoder agrees with the one-shot decoder.
		dm, dn, derr := d.DecodeNetwork(b)
		if (err == nil) != (derr == nil) || n != dn {
			t.Fatalf("Decoder.DecodeNetwork: %d, %v; DecodeNetwork: %d, %v", dn, derr, n, err)
		}
		if err == nil {
			// Compared by encoding: reused storage holds empty, not nil, slices.
			e1, err1 := m.AppendBinary(nil)
			e2, err2 := dm.AppendBinary(nil)
			if (err1 == nil) != (err2 == nil) || !bytes.Equal(e1, e2) {
				t.Fatalf("Decoder.DecodeNetwork re-encodes as %x (%v), DecodeNetwork as %x (%v)", e2, err2, e1, err1)
			}
		}
		if err != nil {
			checkErr(t, err)
			return
		}
		checkDecoded(t, m, DecodeNetwork)
	})
}

func FuzzDecodeZenoh(f *testing.F) {
	seedCorpus(f, "zenoh")
	f.Fuzz(func(t *testing.T, b []byte) {
		m, _, err := DecodeZenoh(b, Limits{})
		if err != nil {
			checkErr(t, err)
			return
		}
		checkDecoded(t, m, DecodeZenoh)
	})
}

func FuzzReadZint(f *testing.F) {
	for _, s := range [][]byte{{0}, {0x90, 0x4e}, {0x80, 0x10}, bytes.Repeat([]byte{0xff}, 9), {0x80, 0x00}, {0x80}} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, n, err := ReadZint(b)
		if err != nil {
			checkErr(t, err)
			return
		}
		if n < 1 || n > MaxZintLen || n > len(b) {
			t.Fatalf("consumed %d", n)
		}
		// Accepted encodings are canonical.
		if enc := AppendZint(nil, v); !bytes.Equal(enc, b[:n]) {
			t.Fatalf("accepted % x for %d, canonical is % x", b[:n], v, enc)
		}
	})
}

func FuzzReadExtensions(f *testing.F) {
	for _, s := range [][]byte{{0x27, 0x01}, {0xa1, 0x0d, 0x26, 0x90, 0x4e}, {0x43, 0x02, 'h', 'i'},
		{0x8c, 0xad, 0x80, 0x01, 0x4e, 0x02, 'h', 'i'}, {0x5f, 0x03, 0x01, 0x00, 'k'}} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		exts, n, err := ReadExtensions(b, Limits{})
		if err != nil {
			checkErr(t, err)
			return
		}
		out, err := AppendExtensions(nil, exts)
		if err != nil {
			t.Fatal(err)
		}
		// Lengths are canonical zints, so the chain re-encodes exactly.
		if !bytes.Equal(out, b[:n]) {
			t.Fatalf("re-encoded % x, read % x", out, b[:n])
		}
	})
}

func FuzzDecodeLinkStates(f *testing.F) {
	f.Add(linkStateGolden)
	f.Add([]byte("\x01\x07\x02\x02\x01\xab\x02\x01\x13tcp/127.0.0.1:37893\x00"))
	for _, s := range [][]byte{{0x00}, {0x01, 0x00, 0x00, 0x00, 0x00}, {0x01, 0x1f, 0x00, 0x01, 0x01, 0x07, 0x04, 0x00, 0x01, 0x02, 0x00}} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ls, err := DecodeLinkStates(b, Limits{}, nil)
		if err != nil {
			checkErr(t, err)
			return
		}
		enc, err := AppendLinkStates(nil, ls)
		if err != nil {
			t.Fatalf("re-encoding %+v: %v", ls, err)
		}
		ls2, err := DecodeLinkStates(enc, Limits{}, nil)
		if err != nil {
			t.Fatalf("decoding re-encoding % x: %v", enc, err)
		}
		enc2, _ := AppendLinkStates(nil, ls2)
		if !bytes.Equal(enc, enc2) {
			t.Fatalf("unstable encoding:\n% x\n% x", enc, enc2)
		}
	})
}
