package cdr

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

// decodeOps reads data with the sequence of reads named by ops (one byte
// each) and returns the values read.
func decodeOps(d *Decoder, ops []byte) []any {
	var out []any
	for _, op := range ops {
		switch op % 16 {
		case 0:
			out = append(out, d.Bool())
		case 1:
			out = append(out, d.Int8())
		case 2:
			out = append(out, d.Uint16())
		case 3:
			out = append(out, d.Int32())
		case 4:
			out = append(out, d.Uint64())
		case 5:
			out = append(out, math.Float32bits(d.Float32()))
		case 6:
			out = append(out, math.Float64bits(d.Float64()))
		case 7:
			out = append(out, d.ReadString())
		case 8:
			out = append(out, d.BoundedString(3))
		case 9:
			out = append(out, d.WString())
		case 10:
			out = append(out, DecodeSequence[byte](d, nil, 0))
		case 11:
			out = append(out, DecodeSequence[float64](d, nil, 0))
		case 12:
			out = append(out, DecodeSequence[int16](d, nil, 4))
		case 13:
			out = append(out, DecodeBoolSequence(d, nil, 0))
		case 14:
			var a [3]uint32
			DecodeArray(d, a[:])
			out = append(out, a)
		case 15:
			n := d.Length(5, 0)
			s := make([]string, n)
			for i := range s {
				s[i] = d.ReadString()
			}
			out = append(out, s)
		}
	}
	return out
}

// encodeOps writes vals, as decoded by decodeOps with the same ops.
func encodeOps(e *Encoder, ops []byte, vals []any) {
	for i, op := range ops {
		v := vals[i]
		switch op % 16 {
		case 0:
			e.Bool(v.(bool))
		case 1:
			e.Int8(v.(int8))
		case 2:
			e.Uint16(v.(uint16))
		case 3:
			e.Int32(v.(int32))
		case 4:
			e.Uint64(v.(uint64))
		case 5:
			e.Float32(math.Float32frombits(v.(uint32)))
		case 6:
			e.Float64(math.Float64frombits(v.(uint64)))
		case 7:
			e.String(v.(string))
		case 8:
			e.BoundedString(v.(string), 3)
		case 9:
			e.WString(v.(string))
		case 10:
			AppendSequence(e, v.([]byte), 0)
		case 11:
			AppendSequence(e, v.([]float64), 0)
		case 12:
			AppendSequence(e, v.([]int16), 4)
		case 13:
			AppendBoolSequence(e, v.([]bool), 0)
		case 14:
			a := v.([3]uint32)
			AppendArray(e, a[:])
		case 15:
			s := v.([]string)
			e.Length(len(s), 0)
			for _, x := range s {
				e.String(x)
			}
		}
	}
}

// FuzzDecoder feeds arbitrary payloads to an arbitrary sequence of reads. A
// read must fail with one of the package's errors or succeed; on success,
// re-encoding the values and decoding them again must give the same values,
// and so must decoding the input again with Options.Alias.
func FuzzDecoder(f *testing.F) {
	f.Add([]byte{7}, []byte{0, 1, 0, 0, 8, 0, 0, 0, 'h', 'e', 'l', 'l', 'o', ' ', '0', 0})
	f.Add([]byte{1, 2, 3, 4, 5, 6}, []byte{0, 1, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32})
	f.Add([]byte{10, 11, 12, 13}, []byte{0, 0, 0, 0, 0, 0, 0, 2, 1, 2, 0, 0, 0, 0, 0, 1, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 7, 0, 0, 0, 0, 0, 1, 1})
	f.Add([]byte{9, 15, 14}, []byte{0, 1, 0, 0, 2, 0, 0, 0, 0x3e, 0xd8, 0, 0, 0x16, 0xdd, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0})
	f.Add([]byte{8, 0}, []byte{0, 1, 0, 0, 0xff, 0xff, 0xff, 0xff, 2})
	f.Fuzz(func(t *testing.T, ops, data []byte) {
		if len(ops) > 64 {
			ops = ops[:64]
		}
		d, err := NewDecoder(data)
		if err != nil {
			if !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrInvalid) {
				t.Fatalf("header error %v", err)
			}
			return
		}
		vals := decodeOps(&d, ops)
		if err := d.Err(); err != nil {
			if !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrBoundExceeded) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		e := NewEncoderOptions(nil, Options{BigEndian: d.BigEndian()})
		encodeOps(&e, ops, vals)
		b, err := e.Finish()
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		if b[1] != data[1] {
			t.Fatalf("byte order changed: % x vs % x", b[:4], data[:4])
		}
		d2, err := NewDecoder(b)
		if err != nil {
			t.Fatal(err)
		}
		vals2 := decodeOps(&d2, ops)
		if err := d2.Err(); err != nil {
			t.Fatalf("decode of re-encoded: %v", err)
		}
		// Compare through a second encoding: float NaNs defeat DeepEqual.
		e2 := NewEncoderOptions(nil, Options{BigEndian: d.BigEndian()})
		encodeOps(&e2, ops, vals2)
		b2, err := e2.Finish()
		if err != nil || !bytes.Equal(b, b2) {
			t.Fatalf("round trip changed values (%v)\n%v\n%v", err, vals, vals2)
		}
		// An aliasing decode of the same input reads the same values,
		// whatever the input's alignment in memory.
		da, err := NewDecoderOptions(data, Options{Alias: true})
		if err != nil {
			t.Fatal(err)
		}
		valsA := decodeOps(&da, ops)
		if err := da.Err(); err != nil {
			t.Fatalf("aliasing decode: %v", err)
		}
		e3 := NewEncoderOptions(nil, Options{BigEndian: d.BigEndian()})
		encodeOps(&e3, ops, valsA)
		b3, err := e3.Finish()
		if err != nil || !bytes.Equal(b, b3) {
			t.Fatalf("aliasing decode read other values (%v)\n%v\n%v", err, vals, valsA)
		}
	})
}
