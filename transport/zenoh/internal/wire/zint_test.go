package wire

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func TestZintKnownEncodings(t *testing.T) {
	cases := []struct {
		v   uint64
		enc []byte
	}{
		{0, []byte{0x00}},
		{1, []byte{0x01}},
		{0x7f, []byte{0x7f}},
		{0x80, []byte{0x80, 0x01}},
		{2048, []byte{0x80, 0x10}},
		{10000, []byte{0x90, 0x4e}},
		{1<<56 - 1, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}},
		{1 << 56, []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}},
		{math.MaxUint64, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
	}
	for _, c := range cases {
		got := AppendZint(nil, c.v)
		if !bytes.Equal(got, c.enc) {
			t.Errorf("AppendZint(%d) = % x, want % x", c.v, got, c.enc)
		}
		if ZintLen(c.v) != len(c.enc) {
			t.Errorf("ZintLen(%d) = %d, want %d", c.v, ZintLen(c.v), len(c.enc))
		}
		v, n, err := ReadZint(append(c.enc, 0xaa))
		if err != nil || v != c.v || n != len(c.enc) {
			t.Errorf("ReadZint(% x) = %d, %d, %v", c.enc, v, n, err)
		}
	}
}

func TestZintRejects(t *testing.T) {
	cases := []struct {
		name string
		in   []byte
		want error
	}{
		{"empty", nil, ErrTruncated},
		{"continuation then end", []byte{0x80}, ErrTruncated},
		{"eight continuations then end", bytes.Repeat([]byte{0xff}, 8), ErrTruncated},
		{"overlong zero", []byte{0x80, 0x00}, ErrOverlong},
		{"overlong one", []byte{0x81, 0x80, 0x00}, ErrOverlong},
		{"overlong ninth byte", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, ErrOverlong},
	}
	for _, c := range cases {
		if _, _, err := ReadZint(c.in); !errors.Is(err, c.want) {
			t.Errorf("%s: ReadZint(% x) error %v, want %v", c.name, c.in, err, c.want)
		}
	}
	// A ninth byte is read whole: at most 9 bytes are ever consumed.
	v, n, err := ReadZint(bytes.Repeat([]byte{0xff}, 12))
	if err != nil || n != 9 || v != math.MaxUint64 {
		t.Errorf("ReadZint(ff x12) = %d, %d, %v", v, n, err)
	}
}

func TestZintRoundTripRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 100000; i++ {
		v := rng.Uint64() >> rng.UintN(64)
		enc := AppendZint(nil, v)
		got, n, err := ReadZint(enc)
		if err != nil || got != v || n != len(enc) || n != ZintLen(v) {
			t.Fatalf("round trip %d: enc % x got %d n %d err %v", v, enc, got, n, err)
		}
	}
}

func TestBoundedZint(t *testing.T) {
	r := reader{b: AppendZint(nil, math.MaxUint16+1), lim: DefaultLimits()}
	if _, err := r.z16(); !errors.Is(err, ErrOverflow) {
		t.Errorf("z16 of 65536: %v", err)
	}
	r = reader{b: AppendZint(nil, math.MaxUint32+1), lim: DefaultLimits()}
	if _, err := r.z32(); !errors.Is(err, ErrOverflow) {
		t.Errorf("z32 of 2^32: %v", err)
	}
	r = reader{b: AppendZint(nil, math.MaxUint32), lim: DefaultLimits()}
	if v, err := r.z32(); err != nil || v != math.MaxUint32 {
		t.Errorf("z32 of 2^32-1: %d, %v", v, err)
	}
}

func TestZBytes(t *testing.T) {
	b := AppendZBytes([]byte{0xee}, []byte("demo"))
	if !bytes.Equal(b, []byte{0xee, 4, 'd', 'e', 'm', 'o'}) {
		t.Fatalf("AppendZBytes = % x", b)
	}
	s, n, err := ReadZBytes(b[1:], 4)
	if err != nil || n != 5 || string(s) != "demo" {
		t.Fatalf("ReadZBytes = %q, %d, %v", s, n, err)
	}
	if _, _, err := ReadZBytes(b[1:], 3); !errors.Is(err, ErrLimit) {
		t.Errorf("over limit: %v", err)
	}
	if _, _, err := ReadZBytes(b[1:4], 10); !errors.Is(err, ErrTruncated) {
		t.Errorf("truncated: %v", err)
	}
	// A huge length is refused by the limit before anything is allocated.
	huge := AppendZint(nil, math.MaxUint64)
	if _, _, err := ReadZBytes(huge, 1<<20); !errors.Is(err, ErrLimit) {
		t.Errorf("huge length: %v", err)
	}
}

// The one-byte fast paths of the reader agree with the general decoding at
// their edges: lengths 127 and 128, the limit, the bound, and truncation.
func TestReaderFastPaths(t *testing.T) {
	for _, tc := range []struct {
		in         []byte
		max        uint64
		limit      int
		want       []byte
		wantErr    error
		wantOffset int
	}{
		{in: []byte{0}, max: 10, limit: 10, want: []byte{}, wantOffset: 1},
		{in: []byte{2, 'a', 'b', 'c'}, max: 10, limit: 10, want: []byte("ab"), wantOffset: 3},
		{in: []byte{3, 'a', 'b'}, max: 10, limit: 10, wantErr: ErrTruncated},
		{in: []byte{3, 'a', 'b', 'c'}, max: 2, limit: 10, wantErr: ErrOverflow},
		{in: []byte{3, 'a', 'b', 'c'}, max: 10, limit: 2, wantErr: ErrLimit},
		{in: append([]byte{0x7f}, bytes.Repeat([]byte{1}, 127)...), max: 200, limit: 200, want: bytes.Repeat([]byte{1}, 127), wantOffset: 128},
		{in: append([]byte{0x80, 0x01}, bytes.Repeat([]byte{2}, 128)...), max: 200, limit: 200, want: bytes.Repeat([]byte{2}, 128), wantOffset: 130},
		{in: []byte{0x80, 0x00}, max: 200, limit: 200, wantErr: ErrOverlong},
		{in: nil, max: 10, limit: 10, wantErr: ErrTruncated},
	} {
		r := reader{b: tc.in}
		got, err := r.lenBytes(tc.max, tc.limit)
		if tc.wantErr != nil {
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("lenBytes(% x) error %v, want %v", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !bytes.Equal(got, tc.want) || got == nil || r.off != tc.wantOffset {
			t.Errorf("lenBytes(% x) = %q, %v at %d; want %q at %d", tc.in, got, err, r.off, tc.want, tc.wantOffset)
		}
	}
	for _, in := range [][]byte{{0}, {0x7f}, {0x80, 0x01}, {0x80}, {0x80, 0x00}, {}} {
		r := reader{b: in}
		v, err := r.zint()
		wv, wn, werr := ReadZint(in)
		if v != wv || !errors.Is(err, werr) && (err != nil || werr != nil) || (err == nil && r.off != wn) {
			t.Errorf("zint(% x) = %d, %v at %d; ReadZint = %d, %v, %d", in, v, err, r.off, wv, werr, wn)
		}
	}
}
