package dynmsg

import (
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/idl"
)

// Encode returns the CDR payload of m: a little-endian encapsulation header
// and the members. Missing fields take their default values; see the
// package documentation for the Go values accepted. A value that does not
// fit, or a field m has that the type has not, is an error matching
// [ErrBadValue] that names the field; a string or sequence over its bound
// matches cdr.ErrBoundExceeded too.
func (t *Type) Encode(m Message) ([]byte, error) {
	return t.AppendEncode(nil, m)
}

// AppendEncode is Encode appending to dst: passing the buf[:0] of an earlier
// result saves allocating. On error it returns dst unchanged in length.
func (t *Type) AppendEncode(dst []byte, m Message) ([]byte, error) {
	e := cdr.NewEncoder(dst)
	e.Grow(t.msg.sizeHint(m))
	if err := t.msg.encode(&e, m); err != nil {
		return dst, err
	}
	return e.Finish()
}

func (mt *msgType) encode(e *cdr.Encoder, m Message) error {
	if len(mt.fields) == 0 {
		for k := range m {
			return mt.unknownField(k)
		}
		e.Uint8(0)
		return nil
	}
	known := 0
	for i := range mt.fields {
		f := &mt.fields[i]
		v, ok := m[f.name]
		if !ok {
			v = f.zero()
		} else {
			known++
		}
		if err := f.encode(e, v); err != nil {
			return inField(f.name, err)
		}
		if err := e.Err(); err != nil {
			return inField(f.name, err)
		}
	}
	if known != len(m) {
		for k := range m {
			if _, ok := mt.index[k]; !ok {
				return mt.unknownField(k)
			}
		}
	}
	return nil
}

// unknownField returns the error for a field name mt has not.
func (mt *msgType) unknownField(name string) error {
	names := make([]string, len(mt.fields))
	for i := range mt.fields {
		names[i] = mt.fields[i].name
	}
	list := strings.Join(names, ", ")
	if list == "" {
		list = "(none)"
	}
	return badValue("unknown field %q in %s: fields are: %s", name, mt.name, list)
}

// typeString is the .msg spelling of f's type, for errors.
func (f *field) typeString() string { return f.typ.String() }

func (f *field) elemString() string { return f.typ.Elem().String() }

func (f *field) encode(e *cdr.Encoder, v any) error {
	switch f.array {
	case notArray:
		return encodeScalar(e, f, v)
	case fixedArray:
		n, err := f.checkLen(v)
		if err != nil {
			return err
		}
		if n != f.size {
			return badValue("%d elements for %s, want exactly %d", n, f.typeString(), f.size)
		}
		return f.encodeElems(e, v)
	}
	n, err := f.checkLen(v)
	if err != nil {
		return err
	}
	if !e.Length(n, f.bound()) {
		return nil // e.Err() is set
	}
	return f.encodeElems(e, v)
}

// checkLen returns the number of elements of an array value.
func (f *field) checkLen(v any) (int, error) {
	if v == nil {
		return 0, nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return 0, badValue("%T is not a list for %s", v, f.typeString())
	}
	return rv.Len(), nil
}

// encodeElems writes the elements of the array value v with no count.
func (f *field) encodeElems(e *cdr.Encoder, v any) error {
	switch s := v.(type) { // fast paths: the types Decode produces
	case []uint8:
		if f.kind == idl.Byte || f.kind == idl.Char || f.kind == idl.Uint8 {
			cdr.AppendArray(e, s)
			return nil
		}
	case []bool:
		if f.kind == idl.Bool {
			cdr.AppendBools(e, s)
			return nil
		}
	case []int8:
		if f.kind == idl.Int8 {
			cdr.AppendArray(e, s)
			return nil
		}
	case []int16:
		if f.kind == idl.Int16 {
			cdr.AppendArray(e, s)
			return nil
		}
	case []uint16:
		if f.kind == idl.Uint16 {
			cdr.AppendArray(e, s)
			return nil
		}
	case []int32:
		if f.kind == idl.Int32 {
			cdr.AppendArray(e, s)
			return nil
		}
	case []uint32:
		if f.kind == idl.Uint32 {
			cdr.AppendArray(e, s)
			return nil
		}
	case []int64:
		if f.kind == idl.Int64 {
			cdr.AppendArray(e, s)
			return nil
		}
	case []uint64:
		if f.kind == idl.Uint64 {
			cdr.AppendArray(e, s)
			return nil
		}
	case []float32:
		if f.kind == idl.Float32 {
			cdr.AppendArray(e, s)
			return nil
		}
	case []float64:
		if f.kind == idl.Float64 {
			cdr.AppendArray(e, s)
			return nil
		}
	case []Message:
		if f.kind == idl.Nested {
			for i, m := range s {
				if err := f.nested.encode(e, m); err != nil {
					return inField(fmt.Sprintf("[%d]", i), err)
				}
			}
			return nil
		}
	case nil:
		return nil
	}
	rv := reflect.ValueOf(v)
	for i := range rv.Len() {
		if err := encodeScalar(e, f, rv.Index(i).Interface()); err != nil {
			return inField(fmt.Sprintf("[%d]", i), err)
		}
	}
	return nil
}

// encodeScalar writes one element of f's kind from any Go value that fits.
func encodeScalar(e *cdr.Encoder, f *field, v any) error {
	switch f.kind {
	case idl.Bool:
		b, ok := v.(bool)
		if !ok {
			return badValue("%s is not a bool", describe(v))
		}
		e.Bool(b)
	case idl.String, idl.WString:
		s, ok := v.(string)
		if !ok {
			return badValue("%s is not a string", describe(v))
		}
		if f.kind == idl.String {
			e.BoundedString(s, f.sbound)
		} else {
			e.BoundedWString(s, f.sbound)
		}
	case idl.Float32, idl.Float64:
		x, ok := toFloat(v)
		if !ok {
			return badValue("%s is not %s", describe(v), aType(f.elemString()))
		}
		if f.kind == idl.Float32 {
			if !math.IsInf(x, 0) && !math.IsNaN(x) && math.Abs(x) > math.MaxFloat32 {
				return badValue("%v is out of range for a float32", x)
			}
			e.Float32(float32(x))
		} else {
			e.Float64(x)
		}
	case idl.Nested:
		m, ok := v.(Message)
		if !ok {
			if v != nil {
				return badValue("%s is not a message %s", describe(v), f.nested.name)
			}
			m = nil
		}
		return f.nested.encode(e, m)
	default:
		if !f.kind.IsInteger() {
			return badValue("unsupported kind %s", f.kind)
		}
		lo, hi := intRange(f.kind)
		neg, mag, ok := toInt(v)
		if !ok {
			return badValue("%s is not %s", describe(v), aType(f.elemString()))
		}
		var maxNeg uint64 // magnitude of lo
		if lo < 0 {
			maxNeg = uint64(-(lo + 1)) + 1
		}
		if (neg && mag > maxNeg) || (!neg && mag > hi) {
			return badValue("%s is out of range for %s [%d, %d]", describe(v), f.elemString(), lo, hi)
		}
		u := mag
		if neg {
			u = -mag
		}
		switch f.kind.Size() {
		case 1:
			e.Uint8(uint8(u))
		case 2:
			e.Uint16(uint16(u))
		case 4:
			e.Uint32(uint32(u))
		case 8:
			e.Uint64(u)
		}
	}
	return nil
}

// intRange returns the range of an integer kind.
func intRange(k idl.Kind) (lo int64, hi uint64) {
	switch k {
	case idl.Int8:
		return math.MinInt8, math.MaxInt8
	case idl.Int16:
		return math.MinInt16, math.MaxInt16
	case idl.Int32:
		return math.MinInt32, math.MaxInt32
	case idl.Int64:
		return math.MinInt64, math.MaxInt64
	case idl.Uint16:
		return 0, math.MaxUint16
	case idl.Uint32:
		return 0, math.MaxUint32
	case idl.Uint64:
		return 0, math.MaxUint64
	}
	return 0, math.MaxUint8 // Byte, Char, Uint8
}

// toInt returns the sign and magnitude of an integer value, or of a float
// holding an integer exactly.
func toInt(v any) (neg bool, mag uint64, ok bool) {
	signed := func(x int64) (bool, uint64, bool) {
		if x < 0 {
			return true, uint64(-(x + 1)) + 1, true
		}
		return false, uint64(x), true
	}
	switch x := v.(type) {
	case int:
		return signed(int64(x))
	case int8:
		return signed(int64(x))
	case int16:
		return signed(int64(x))
	case int32:
		return signed(int64(x))
	case int64:
		return signed(x)
	case uint:
		return false, uint64(x), true
	case uint8:
		return false, uint64(x), true
	case uint16:
		return false, uint64(x), true
	case uint32:
		return false, uint64(x), true
	case uint64:
		return false, x, true
	case uintptr:
		return false, uint64(x), true
	case float32:
		return floatInt(float64(x))
	case float64:
		return floatInt(x)
	}
	return false, 0, false
}

// floatInt accepts a float that holds an integer exactly (as JSON numbers
// decode), in the uint64 or int64 range.
func floatInt(x float64) (bool, uint64, bool) {
	if x != math.Trunc(x) || math.IsInf(x, 0) {
		return false, 0, false
	}
	if x < 0 {
		if x < math.MinInt64 {
			return false, 0, false
		}
		i := int64(x)
		return true, uint64(-(i + 1)) + 1, true
	}
	if x >= math.MaxUint64 {
		return false, 0, false
	}
	return false, uint64(x), true
}

// toFloat converts any Go number to float64.
func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	}
	if neg, mag, ok := toInt(v); ok {
		if neg {
			return -float64(mag), true
		}
		return float64(mag), true
	}
	return 0, false
}

// sizeHint estimates the encoded size of m, counting the bulk of its
// arrays and strings, so that a large message is written with a single
// allocation.
func (mt *msgType) sizeHint(m Message) int {
	n := 4
	for i := range mt.fields {
		f := &mt.fields[i]
		switch v := m[f.name].(type) {
		case string:
			n += 5 + len(v)
		case []uint8:
			n += 4 + len(v)
		case []float32:
			n += 8 + 4*len(v)
		case []float64:
			n += 8 + 8*len(v)
		case []int16:
			n += 4 + 2*len(v)
		case []int32:
			n += 4 + 4*len(v)
		case Message:
			if f.nested != nil {
				n += f.nested.sizeHint(v)
			}
		default:
			n += 8
		}
	}
	return n
}
