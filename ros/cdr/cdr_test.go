package cdr

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

func TestGoldenString(t *testing.T) {
	want := []byte{0x00, 0x01, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 'h', 'e', 'l', 'l', 'o', ' ', '0', 0x00}
	e := NewEncoder(nil)
	e.String("hello 0")
	got, err := e.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("got % x\nwant % x", got, want)
	}
	d, err := NewDecoder(want)
	if err != nil {
		t.Fatal(err)
	}
	if s := d.ReadString(); s != "hello 0" || d.Err() != nil {
		t.Fatalf("decoded %q, %v", s, d.Err())
	}
}

func TestEmptyString(t *testing.T) {
	e := NewEncoder(nil)
	e.String("")
	got, _ := e.Finish()
	if want := []byte{0, 1, 0, 0, 1, 0, 0, 0, 0}; !bytes.Equal(got, want) {
		t.Fatalf("got % x want % x", got, want)
	}
	// Length 0 is accepted as the empty string (Fast-CDR does so).
	d, _ := NewDecoder([]byte{0, 1, 0, 0, 0, 0, 0, 0})
	if s := d.ReadString(); s != "" || d.Err() != nil {
		t.Fatalf("got %q %v", s, d.Err())
	}
}

// TestAlignmentAndEndianness checks padding counted from after the header,
// 8-byte alignment of 64-bit values, and both byte orders.
func TestAlignmentAndEndianness(t *testing.T) {
	encode := func(o Options) []byte {
		e := NewEncoderOptions([]byte{0xEE}, o) // a prefix must not shift alignment
		e.Uint8(1)
		e.Uint16(0x0203)
		e.Uint8(4)
		e.Uint32(0x05060708)
		e.Float64(1.5)
		e.Int8(-1)
		e.Int64(-2)
		b, err := e.Finish()
		if err != nil {
			t.Fatal(err)
		}
		return b[1:]
	}
	le := encode(Options{})
	wantLE := []byte{0, 1, 0, 0,
		1, 0, 3, 2, 4, 0, 0, 0, 8, 7, 6, 5, 0, 0, 0, 0, // u8 pad u16 u8 pad3 u32 pad4
		0, 0, 0, 0, 0, 0, 0xf8, 0x3f, // 1.5 at offset 16
		0xff, 0, 0, 0, 0, 0, 0, 0, // i8 then pad to 32
		0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	if !bytes.Equal(le, wantLE) {
		t.Fatalf("LE\n got % x\nwant % x", le, wantLE)
	}
	be := encode(Options{BigEndian: true})
	wantBE := []byte{0, 0, 0, 0,
		1, 0, 2, 3, 4, 0, 0, 0, 5, 6, 7, 8, 0, 0, 0, 0,
		0x3f, 0xf8, 0, 0, 0, 0, 0, 0,
		0xff, 0, 0, 0, 0, 0, 0, 0,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}
	if !bytes.Equal(be, wantBE) {
		t.Fatalf("BE\n got % x\nwant % x", be, wantBE)
	}
	for _, b := range [][]byte{le, be} {
		d, err := NewDecoder(b)
		if err != nil {
			t.Fatal(err)
		}
		if d.Uint8() != 1 || d.Uint16() != 0x0203 || d.Uint8() != 4 || d.Uint32() != 0x05060708 ||
			d.Float64() != 1.5 || d.Int8() != -1 || d.Int64() != -2 || d.Err() != nil {
			t.Fatalf("round trip of % x failed: %v", b, d.Err())
		}
		if d.Remaining() != 0 {
			t.Fatalf("%d bytes left", d.Remaining())
		}
	}
}

func TestBulkSequences(t *testing.T) {
	f64 := []float64{1, -2.5, math.Inf(1), math.SmallestNonzeroFloat64}
	i16 := []int16{1, -2, 300}
	u8 := []byte("raw bytes")
	for _, be := range []bool{false, true} {
		opts := Options{BigEndian: be}
		e := NewEncoderOptions(nil, opts)
		e.Uint8(7) // misalign
		AppendSequence(&e, i16, 0)
		AppendSequence(&e, f64, 0)
		AppendSequence(&e, u8, 0)
		var arr [3]uint32
		arr[1] = 0xdeadbeef
		AppendArray(&e, arr[:])
		AppendBoolSequence(&e, []bool{true, false, true}, 0)
		b, err := e.Finish()
		if err != nil {
			t.Fatal(err)
		}
		// Check bulk against per-element encoding.
		e2 := NewEncoderOptions(nil, opts)
		e2.Uint8(7)
		e2.Uint32(3)
		for _, v := range i16 {
			e2.Int16(v)
		}
		e2.Uint32(4)
		for _, v := range f64 {
			e2.Float64(v)
		}
		e2.Uint32(uint32(len(u8)))
		for _, v := range u8 {
			e2.Uint8(v)
		}
		for _, v := range arr {
			e2.Uint32(v)
		}
		e2.Uint32(3)
		e2.Bool(true)
		e2.Bool(false)
		e2.Bool(true)
		b2, _ := e2.Finish()
		if !bytes.Equal(b, b2) {
			t.Fatalf("be=%v bulk\n% x\nper element\n% x", be, b, b2)
		}
		d, err := NewDecoder(b)
		if err != nil {
			t.Fatal(err)
		}
		d.Uint8()
		gi16 := DecodeSequence[int16](&d, nil, 0)
		gf64 := DecodeSequence(&d, make([]float64, 0, 10), 0)
		gu8 := DecodeSequence[byte](&d, nil, 0)
		var garr [3]uint32
		DecodeArray(&d, garr[:])
		gb := DecodeBoolSequence(&d, nil, 0)
		if err := d.Err(); err != nil {
			t.Fatal(err)
		}
		if !equal(gi16, i16) || !equal(gf64, f64) || !bytes.Equal(gu8, u8) || garr != arr || !equal(gb, []bool{true, false, true}) {
			t.Fatalf("be=%v: got %v %v %q %v %v", be, gi16, gf64, gu8, garr, gb)
		}
		if cap(gf64) != 10 {
			t.Errorf("decode did not reuse the destination's capacity")
		}
	}
}

func equal[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestBounds(t *testing.T) {
	e := NewEncoder(nil)
	AppendSequence(&e, []int32{1, 2, 3}, 2)
	if _, err := e.Finish(); !errors.Is(err, ErrBoundExceeded) {
		t.Fatalf("sequence over bound: %v", err)
	}
	e = NewEncoder(nil)
	e.BoundedString("abcd", 3)
	e.Uint8(1) // after an error, writes are ignored
	if _, err := e.Finish(); !errors.Is(err, ErrBoundExceeded) {
		t.Fatalf("string over bound: %v", err)
	}
	e = NewEncoder(nil)
	e.BoundedString("abc", 3)
	AppendSequence(&e, []int32{1, 2}, 2)
	b, err := e.Finish()
	if err != nil {
		t.Fatal(err)
	}
	d, _ := NewDecoder(b)
	d.BoundedString(2)
	if !errors.Is(d.Err(), ErrBoundExceeded) {
		t.Fatalf("decode string over bound: %v", d.Err())
	}
	d, _ = NewDecoder(b)
	d.BoundedString(3)
	DecodeSequence[int32](&d, nil, 1)
	if !errors.Is(d.Err(), ErrBoundExceeded) {
		t.Fatalf("decode sequence over bound: %v", d.Err())
	}
}

func TestWString(t *testing.T) {
	// Golden bytes from rclpy.serialization.serialize_message (rmw_fastrtps_cpp,
	// Fast-CDR 2.3) of test_msgs/WStrings.wstring_value = "hé🤖": a count of
	// 4 UTF-16 units, each in 4 bytes.
	golden := []byte{0, 1, 0, 0, 4, 0, 0, 0, 0x68, 0, 0, 0, 0xe9, 0, 0, 0, 0x3e, 0xd8, 0, 0, 0x16, 0xdd, 0, 0}
	e := NewEncoder(nil)
	e.WString("hé🤖")
	b, err := e.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, golden) {
		t.Fatalf("got % x\nwant % x", b, golden)
	}

	const s = "héllo, 世界 🤖"
	for _, o := range []Options{{}, {WString16: true}, {BigEndian: true}} {
		e := NewEncoderOptions(nil, o)
		e.WString(s)
		b, err := e.Finish()
		if err != nil {
			t.Fatal(err)
		}
		unit := 4
		if o.WString16 {
			unit = 2
		}
		// 10 BMP code points + 1 surrogate pair = 12 UTF-16 units.
		if len(b) != 4+4+12*unit {
			t.Fatalf("%+v: len %d: % x", o, len(b), b)
		}
		d, _ := NewDecoderOptions(b, o)
		if got := d.WString(); got != s || d.Err() != nil {
			t.Fatalf("%+v: got %q %v", o, got, d.Err())
		}
	}

	e = NewEncoder(nil)
	e.BoundedWString(s, 11)
	if _, err := e.Finish(); !errors.Is(err, ErrBoundExceeded) {
		t.Fatalf("wstring bound: %v", err)
	}
	e = NewEncoder(nil)
	e.WString("\xff")
	if _, err := e.Finish(); !errors.Is(err, ErrInvalid) {
		t.Fatalf("invalid utf-8: %v", err)
	}
	for _, in := range [][]byte{
		{0, 1, 0, 0, 1, 0, 0, 0, 0x00, 0xd8, 0, 0},                // lone high surrogate
		{0, 1, 0, 0, 2, 0, 0, 0, 0x00, 0xd8, 0, 0, 0x41, 0, 0, 0}, // high then not low
		{0, 1, 0, 0, 1, 0, 0, 0, 0x00, 0xdc, 0, 0},                // lone low surrogate
		{0, 1, 0, 0, 1, 0, 0, 0, 0x00, 0x00, 1, 0},                // unit above 0xffff
	} {
		d, _ := NewDecoder(in)
		if d.WString(); !errors.Is(d.Err(), ErrInvalid) {
			t.Fatalf("% x: %v", in, d.Err())
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct {
		name string
		in   []byte
		read func(d *Decoder)
		want error
	}{
		{"short header", []byte{0, 1, 0}, nil, ErrTruncated},
		{"xcdr2 header", []byte{0, 7, 0, 0}, nil, ErrInvalid},
		{"truncated u32", []byte{0, 1, 0, 0, 1, 2}, func(d *Decoder) { d.Uint32() }, ErrTruncated},
		{"truncated padding", []byte{0, 1, 0, 0, 1}, func(d *Decoder) { d.Uint8(); d.Uint32() }, ErrTruncated},
		{"bool 2", []byte{0, 1, 0, 0, 2}, func(d *Decoder) { d.Bool() }, ErrInvalid},
		{"string no NUL", []byte{0, 1, 0, 0, 2, 0, 0, 0, 'a', 'b'}, func(d *Decoder) { d.ReadString() }, ErrInvalid},
		{"string too long", []byte{0, 1, 0, 0, 9, 0, 0, 0, 'a', 0}, func(d *Decoder) { d.ReadString() }, ErrTruncated},
		{"huge string", []byte{0, 1, 0, 0, 0xff, 0xff, 0xff, 0xff, 0}, func(d *Decoder) { d.ReadString() }, ErrTruncated},
		{"huge sequence", []byte{0, 1, 0, 0, 0xff, 0xff, 0xff, 0x0f, 0, 0, 0, 0}, func(d *Decoder) { DecodeSequence[float64](d, nil, 0) }, ErrTruncated},
		{"sequence min size", []byte{0, 1, 0, 0, 3, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8}, func(d *Decoder) { d.Length(4, 0) }, ErrTruncated},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := NewDecoder(c.in)
			if err == nil && c.read != nil {
				c.read(&d)
				err = d.Err()
				// Sticky: later reads return zero and keep the first error.
				if v := d.Uint64(); v != 0 || !errors.Is(d.Err(), c.want) {
					t.Errorf("read after error: %d, %v", v, d.Err())
				}
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
		})
	}
}

func TestTrailingPaddingTolerated(t *testing.T) {
	// Cyclone pads to 4 and records the pad count in the options bytes.
	d, err := NewDecoder([]byte{0, 1, 0, 3, 7, 0, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	if v := d.Uint8(); v != 7 || d.Finish("x") != nil {
		t.Fatalf("got %d %v", v, d.Err())
	}
}

func TestEncoderReuseDoesNotAllocate(t *testing.T) {
	payload := make([]byte, 4096)
	buf := make([]byte, 0, 8192)
	allocs := testing.AllocsPerRun(100, func() {
		e := NewEncoder(buf[:0])
		e.String("frame")
		AppendSequence(&e, payload, 0)
		buf, _ = e.Finish()
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per encode into a reused buffer", allocs)
	}
}

func TestEncoderHelpers(t *testing.T) {
	e := NewEncoder(make([]byte, 0, 4))
	e.Grow(100)
	before := cap(e.buf)
	e.Uint64(1)
	e.String("abc")
	if cap(e.buf) != before || before < 104 {
		t.Fatalf("Grow: cap %d then %d", before, cap(e.buf))
	}
	if e.Len() != 16 {
		t.Fatalf("Len %d", e.Len())
	}
	sentinel := errors.New("mine")
	e.Fail(sentinel)
	e.Fail(ErrInvalid) // the first error wins
	if b, err := e.Finish(); err != sentinel || len(b) != 0 {
		t.Fatalf("Finish after Fail: %d bytes, %v", len(b), err)
	}
	d, _ := NewDecoder([]byte{0, 1, 0, 0, 1})
	d.Fail(sentinel)
	if d.Uint8() != 0 || !errors.Is(d.Finish("pkg/msg/T"), sentinel) {
		t.Fatal("Decoder.Fail not sticky")
	}
}
