package cdr_test

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/msgs/sensor_msgs"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/ros/msgs/test_msgs"
)

// aliasTargets returns fresh values of message types with numeric
// sequences of every element size, at every alignment.
func aliasTargets() []cdr.Message {
	return []cdr.Message{
		new(test_msgs.UnboundedSequences), new(test_msgs.BoundedPlainSequences), new(test_msgs.Arrays),
		new(sensor_msgs.Image), new(sensor_msgs.PointCloud2), new(std_msgs.Float64MultiArray),
	}
}

// aliasSeeds returns payloads of the aliasTargets types, in both byte
// orders.
func aliasSeeds(t testing.TB) [][]byte {
	seq := &test_msgs.UnboundedSequences{
		ByteValues: []byte{1, 2, 3}, Float32Values: []float32{1.5, float32(math.Inf(-1))},
		Float64Values: []float64{math.Pi, -0.0}, Int8Values: []int8{-1}, Int16Values: []int16{-300, 7},
		Uint16Values: []uint16{65535}, Int32Values: []int32{-5, 6, 7}, Uint32Values: []uint32{1 << 31},
		Int64Values: []int64{math.MinInt64}, Uint64Values: []uint64{math.MaxUint64, 3},
		StringValues: []string{"a", ""}, Float32ValuesDefault: []float32{1.125},
	}
	arr := &std_msgs.Float64MultiArray{
		Layout: std_msgs.MultiArrayLayout{Dim: []std_msgs.MultiArrayDimension{{Label: "x", Size: 3, Stride: 3}}},
		Data:   []float64{1, 2, 3},
	}
	var out [][]byte
	for _, o := range []cdr.Options{{}, {BigEndian: true}} {
		for _, m := range []cdr.Message{seq, arr, newImage(4, 3, "rgb8", 3), newCloud(5)} {
			b, err := cdr.AppendOptions(nil, m, o)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		}
	}
	return out
}

// FuzzUnmarshalAlias decodes arbitrary bytes, placed at every offset
// modulo 8 in memory, into messages with numeric sequences, with and
// without Options.Alias: both must fail alike or decode the same values,
// and the aliasing decode must never panic on an unaligned input.
func FuzzUnmarshalAlias(f *testing.F) {
	for _, b := range aliasSeeds(f) {
		f.Add(b)
	}
	f.Add([]byte{0, 1, 0, 0, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		buf := make([]byte, len(data)+8)
		for _, copied := range aliasTargets() {
			cerr := copied.UnmarshalCDR(data)
			want, _ := copied.AppendCDR(nil)
			for off := range 8 {
				in := buf[off : off+len(data)]
				copy(in, data)
				aliased := newLike(copied)
				aerr := cdr.UnmarshalAlias(in, aliased)
				if (cerr == nil) != (aerr == nil) {
					t.Fatalf("%s at +%d: copying decode: %v, aliasing decode: %v", copied.TypeName(), off, cerr, aerr)
				}
				if aerr != nil {
					if !errors.Is(aerr, cdr.ErrTruncated) && !errors.Is(aerr, cdr.ErrInvalid) && !errors.Is(aerr, cdr.ErrBoundExceeded) {
						t.Fatalf("%s: unexpected error %v", copied.TypeName(), aerr)
					}
					continue
				}
				got, err := aliased.AppendCDR(nil)
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("%s at +%d: aliasing decode read other values (%v)", copied.TypeName(), off, err)
				}
			}
		}
	})
}

// newLike returns a new zero message of m's type.
func newLike(m cdr.Message) cdr.Message {
	for _, t := range aliasTargets() {
		if t.TypeName() == m.TypeName() {
			return t
		}
	}
	panic("unknown type " + m.TypeName())
}

func TestAliasSeedsRoundTrip(t *testing.T) {
	for _, b := range aliasSeeds(t) {
		for _, m := range aliasTargets() {
			if m.UnmarshalCDR(b) != nil {
				continue
			}
			a := newLike(m)
			if err := cdr.UnmarshalAlias(b, a); err != nil {
				t.Fatalf("%s: %v", m.TypeName(), err)
			}
			x, _ := m.AppendCDR(nil)
			y, _ := a.AppendCDR(nil)
			if !bytes.Equal(x, y) {
				t.Fatalf("%s: aliasing and copying decodes differ", m.TypeName())
			}
		}
	}
}
