package dynmsg

import (
	"slices"

	"github.com/afor-go/afor/ros/idl"
)

// defaultValue converts a parsed default of the definition to the Go value
// of f.
func defaultValue(f *field, v idl.Value) any {
	if f.array == notArray {
		return scalarValue(f.kind, v)
	}
	switch f.kind {
	case idl.Bool:
		return convertElems(v.Elems, func(e idl.Value) bool { return e.Bool })
	case idl.Byte, idl.Char, idl.Uint8:
		return convertElems(v.Elems, func(e idl.Value) uint8 { return uint8(e.Uint) })
	case idl.Int8:
		return convertElems(v.Elems, func(e idl.Value) int8 { return int8(e.Int) })
	case idl.Int16:
		return convertElems(v.Elems, func(e idl.Value) int16 { return int16(e.Int) })
	case idl.Uint16:
		return convertElems(v.Elems, func(e idl.Value) uint16 { return uint16(e.Uint) })
	case idl.Int32:
		return convertElems(v.Elems, func(e idl.Value) int32 { return int32(e.Int) })
	case idl.Uint32:
		return convertElems(v.Elems, func(e idl.Value) uint32 { return uint32(e.Uint) })
	case idl.Int64:
		return convertElems(v.Elems, func(e idl.Value) int64 { return e.Int })
	case idl.Uint64:
		return convertElems(v.Elems, func(e idl.Value) uint64 { return e.Uint })
	case idl.Float32:
		return convertElems(v.Elems, func(e idl.Value) float32 { return float32(e.Float) })
	case idl.Float64:
		return convertElems(v.Elems, func(e idl.Value) float64 { return e.Float })
	case idl.String, idl.WString:
		return convertElems(v.Elems, func(e idl.Value) string { return e.Str })
	}
	return nil
}

func convertElems[T any](elems []idl.Value, f func(idl.Value) T) []T {
	out := make([]T, len(elems))
	for i, e := range elems {
		out[i] = f(e)
	}
	return out
}

// scalarValue converts one parsed value of kind k to its Go value.
func scalarValue(k idl.Kind, v idl.Value) any {
	switch k {
	case idl.Bool:
		return v.Bool
	case idl.Byte, idl.Char, idl.Uint8:
		return uint8(v.Uint)
	case idl.Int8:
		return int8(v.Int)
	case idl.Int16:
		return int16(v.Int)
	case idl.Uint16:
		return uint16(v.Uint)
	case idl.Int32:
		return int32(v.Int)
	case idl.Uint32:
		return uint32(v.Uint)
	case idl.Int64:
		return v.Int
	case idl.Uint64:
		return v.Uint
	case idl.Float32:
		return float32(v.Float)
	case idl.Float64:
		return v.Float
	case idl.String, idl.WString:
		return v.Str
	}
	return nil
}

// Zero returns a new message with every field at its default value: the
// default of the definition, else zero, "", an empty sequence, a fixed
// array of zero elements, or a nested message at its defaults.
func (t *Type) Zero() Message { return t.msg.zero() }

func (mt *msgType) zero() Message {
	m := make(Message, len(mt.fields))
	for i := range mt.fields {
		f := &mt.fields[i]
		m[f.name] = f.zero()
	}
	return m
}

// zero returns a new default value of f.
func (f *field) zero() any {
	if f.def != nil {
		return cloneValue(f.def)
	}
	n := 0
	if f.array == fixedArray {
		n = f.size
	}
	if f.array == notArray {
		return zeroScalar(f.kind, f.nested)
	}
	switch f.kind {
	case idl.Bool:
		return make([]bool, n)
	case idl.Byte, idl.Char, idl.Uint8:
		return make([]uint8, n)
	case idl.Int8:
		return make([]int8, n)
	case idl.Int16:
		return make([]int16, n)
	case idl.Uint16:
		return make([]uint16, n)
	case idl.Int32:
		return make([]int32, n)
	case idl.Uint32:
		return make([]uint32, n)
	case idl.Int64:
		return make([]int64, n)
	case idl.Uint64:
		return make([]uint64, n)
	case idl.Float32:
		return make([]float32, n)
	case idl.Float64:
		return make([]float64, n)
	case idl.String, idl.WString:
		return make([]string, n)
	case idl.Nested:
		s := make([]Message, n)
		for i := range s {
			s[i] = f.nested.zero()
		}
		return s
	}
	return nil
}

func zeroScalar(k idl.Kind, nested *msgType) any {
	switch k {
	case idl.Bool:
		return false
	case idl.Byte, idl.Char, idl.Uint8:
		return uint8(0)
	case idl.Int8:
		return int8(0)
	case idl.Int16:
		return int16(0)
	case idl.Uint16:
		return uint16(0)
	case idl.Int32:
		return int32(0)
	case idl.Uint32:
		return uint32(0)
	case idl.Int64:
		return int64(0)
	case idl.Uint64:
		return uint64(0)
	case idl.Float32:
		return float32(0)
	case idl.Float64:
		return float64(0)
	case idl.String, idl.WString:
		return ""
	case idl.Nested:
		return nested.zero()
	}
	return nil
}

// cloneValue copies the slices of a default value so that callers may
// modify what Zero returns.
func cloneValue(v any) any {
	switch s := v.(type) {
	case []bool:
		return slices.Clone(s)
	case []uint8:
		return slices.Clone(s)
	case []int8:
		return slices.Clone(s)
	case []int16:
		return slices.Clone(s)
	case []uint16:
		return slices.Clone(s)
	case []int32:
		return slices.Clone(s)
	case []uint32:
		return slices.Clone(s)
	case []int64:
		return slices.Clone(s)
	case []uint64:
		return slices.Clone(s)
	case []float32:
		return slices.Clone(s)
	case []float64:
		return slices.Clone(s)
	case []string:
		return slices.Clone(s)
	}
	return v
}
