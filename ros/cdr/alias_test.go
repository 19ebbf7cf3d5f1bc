package cdr

import (
	"bytes"
	"math"
	"testing"
	"unsafe"
)

// place copies payload into a fresh buffer so that its body (after the
// header) starts at an address that is off bytes past a multiple of 8, and
// returns the copy.
func place(payload []byte, off int) []byte {
	buf := make([]byte, len(payload)+16)
	base := int(uintptr(unsafe.Pointer(unsafe.SliceData(buf))) % 8)
	// The body starts at start+HeaderSize; make it ≡ off (mod 8).
	start := ((off-HeaderSize-base)%8 + 8) % 8
	out := buf[start : start+len(payload)]
	copy(out, payload)
	return out
}

// sharesMemory reports whether s lies inside buf.
func sharesMemory[T Number](s []T, buf []byte) bool {
	if len(s) == 0 || len(buf) == 0 {
		return false
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	return p >= lo && p < lo+uintptr(len(buf))
}

func encodeSeqs(t *testing.T, o Options, u8 []byte, f32 []float32, f64 []float64) []byte {
	t.Helper()
	e := NewEncoderOptions(nil, o)
	AppendSequence(&e, u8, 0)
	AppendSequence(&e, f32, 0)
	AppendSequence(&e, f64, 0)
	b, err := e.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestAliasSharesAndCopyDoesNot(t *testing.T) {
	u8 := []byte("pixels")
	f32 := []float32{1.5, -2, float32(math.Inf(1))}
	f64 := []float64{3.25, math.MaxFloat64}
	data := place(encodeSeqs(t, Options{}, u8, f32, f64), 0)
	for _, alias := range []bool{false, true} {
		work := place(data, 0)
		d, err := NewDecoderOptions(work, Options{Alias: alias})
		if err != nil {
			t.Fatal(err)
		}
		if d.Aliasing() != alias {
			t.Fatalf("Aliasing() = %v, want %v", d.Aliasing(), alias)
		}
		gu8 := DecodeSequence[byte](&d, nil, 0)
		gf32 := DecodeSequence[float32](&d, nil, 0)
		gf64 := DecodeSequence[float64](&d, nil, 0)
		if err := d.Err(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(gu8, u8) || !equal(gf32, f32) || !equal(gf64, f64) {
			t.Fatalf("alias=%v: decoded %q %v %v", alias, gu8, gf32, gf64)
		}
		// Every sequence is aliased, or none is.
		for name, shared := range map[string]bool{
			"[]byte": sharesMemory(gu8, work), "[]float32": sharesMemory(gf32, work), "[]float64": sharesMemory(gf64, work),
		} {
			if shared != alias {
				t.Errorf("alias=%v: %s shares the input: %v", alias, name, shared)
			}
		}
		// Writing the input shows in an aliased message, never in a copy.
		clear(work[HeaderSize:])
		if got := gu8[0] == 0 && gf32[0] == 0 && gf64[0] == 0; got != alias {
			t.Errorf("alias=%v: overwriting the input changed the message: %v", alias, got)
		}
		// Appending to an aliased slice never writes over the input.
		if alias {
			if cap(gu8) != len(gu8) || cap(gf32) != len(gf32) || cap(gf64) != len(gf64) {
				t.Errorf("aliased capacities %d %d %d exceed lengths", cap(gu8), cap(gf32), cap(gf64))
			}
			before := bytes.Clone(work)
			_ = append(gu8, 'x')
			_ = append(gf32, 9)
			if !bytes.Equal(work, before) {
				t.Error("append to an aliased slice wrote into the input")
			}
		}
	}
}

func TestAliasFallsBackToCopy(t *testing.T) {
	f32 := []float32{1, 2, 3}
	f64 := []float64{4, 5}
	u8 := []byte{7, 8, 9, 10} // keeps the float sequences 4-aligned in the body
	cases := []struct {
		name      string
		o         Options
		off       int  // body address modulo 8
		alias32   bool // float32 expected to alias
		alias64   bool
		aliasByte bool
	}{
		{"aligned", Options{}, 0, true, true, true},
		{"body 4 past 8", Options{}, 4, true, unsafe.Alignof(float64(0)) <= 4, true},
		{"body 2 past 8", Options{}, 2, false, false, true},
		{"body odd", Options{}, 1, false, false, true},
		{"big-endian", Options{BigEndian: true}, 0, !nativeLittle, !nativeLittle, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := place(encodeSeqs(t, c.o, u8, f32, f64), c.off)
			d, err := NewDecoderOptions(data, Options{Alias: true})
			if err != nil {
				t.Fatal(err)
			}
			gu8 := DecodeSequence[byte](&d, nil, 0)
			gf32 := DecodeSequence(&d, make([]float32, 0, 8), 0)
			gf64 := DecodeSequence[float64](&d, nil, 0)
			if err := d.Err(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(gu8, u8) || !equal(gf32, f32) || !equal(gf64, f64) {
				t.Fatalf("decoded %v %v %v", gu8, gf32, gf64)
			}
			if got := sharesMemory(gu8, data); got != c.aliasByte {
				t.Errorf("[]byte aliased %v, want %v", got, c.aliasByte)
			}
			if got := sharesMemory(gf32, data); got != c.alias32 {
				t.Errorf("[]float32 aliased %v, want %v", got, c.alias32)
			}
			if got := sharesMemory(gf64, data); got != c.alias64 {
				t.Errorf("[]float64 aliased %v, want %v", got, c.alias64)
			}
			if !c.alias32 && cap(gf32) != 8 {
				t.Errorf("a copying fallback did not reuse dst (cap %d)", cap(gf32))
			}
		})
	}
}

func TestAliasEmptyAndErrors(t *testing.T) {
	e := NewEncoder(nil)
	AppendSequence[float64](&e, nil, 0)
	e.Uint32(5) // a count of 5 with nothing after it
	b, _ := e.Finish()
	d, _ := NewDecoderOptions(b, Options{Alias: true})
	dst := make([]float64, 3, 4)
	if got := DecodeSequence(&d, dst, 0); len(got) != 0 || cap(got) != 4 {
		t.Fatalf("empty sequence gave len %d cap %d", len(got), cap(got))
	}
	if got := DecodeSequence[byte](&d, nil, 0); got != nil || d.Err() == nil {
		t.Fatalf("truncated sequence gave %v, err %v", got, d.Err())
	}
}

// An aliasing decode allocates nothing for a large byte sequence; a
// copying one allocates it.
func TestAliasDoesNotAllocate(t *testing.T) {
	e := NewEncoder(nil)
	AppendSequence(&e, make([]byte, 1<<20), 0)
	AppendSequence(&e, make([]float32, 1<<10), 0)
	b, _ := e.Finish()
	b = place(b, 0)
	decode := func(alias bool) float64 {
		return testing.AllocsPerRun(20, func() {
			d, _ := NewDecoderOptions(b, Options{Alias: alias})
			_ = DecodeSequence[byte](&d, nil, 0)
			_ = DecodeSequence[float32](&d, nil, 0)
			if d.Err() != nil {
				t.Fatal(d.Err())
			}
		})
	}
	if n := decode(true); n != 0 {
		t.Errorf("aliasing decode: %v allocations, want 0", n)
	}
	if n := decode(false); n != 2 {
		t.Errorf("copying decode: %v allocations, want 2", n)
	}
}
