package dynmsg

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"

	"github.com/afor-go/afor/ros/idl"
)

// FormatJSON returns m as one JSON object (no trailing line break), for
// `afor topic echo --json`. The mapping:
//
//   - a message is an object whose members are its fields in definition
//     order (a missing field has its default value);
//   - bool is true or false; every integer kind, byte and char included,
//     is a JSON number written exactly (uint64 too);
//   - float32 and float64 are numbers in the shortest form that reads back
//     as the same float32 or float64 value (0.1, 1e-05); NaN and the
//     infinities, which JSON lacks, are the strings "nan", "inf" and
//     "-inf";
//   - string and wstring are JSON strings;
//   - arrays and sequences of any kind, byte and uint8 ones included, are
//     JSON arrays.
//
// It fails only for a value of the wrong Go type ([ErrBadValue]).
func (t *Type) FormatJSON(m Message) ([]byte, error) {
	var b bytes.Buffer
	if err := t.msg.appendJSON(&b, m); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func (mt *msgType) appendJSON(b *bytes.Buffer, m Message) error {
	b.WriteByte('{')
	for i := range mt.fields {
		f := &mt.fields[i]
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(b, f.name)
		b.WriteByte(':')
		v, ok := m[f.name]
		if !ok {
			v = f.zero()
		}
		if err := f.appendJSON(b, v); err != nil {
			return inField(f.name, err)
		}
	}
	b.WriteByte('}')
	return nil
}

func (f *field) appendJSON(b *bytes.Buffer, v any) error {
	if f.array == notArray {
		return f.scalarJSON(b, v)
	}
	if v == nil {
		b.WriteString("[]")
		return nil
	}
	if s, ok := v.([]uint8); ok && f.kind.IsInteger() { // images: no reflection
		b.Grow(4 * len(s))
		b.WriteByte('[')
		var num [3]byte
		for i, x := range s {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(strconv.AppendUint(num[:0], uint64(x), 10))
		}
		b.WriteByte(']')
		return nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return badValue("%s is not a list for %s", describe(v), f.typeString())
	}
	b.WriteByte('[')
	for i := range rv.Len() {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := f.scalarJSON(b, rv.Index(i).Interface()); err != nil {
			return inField(fmt.Sprintf("[%d]", i), err)
		}
	}
	b.WriteByte(']')
	return nil
}

func (f *field) scalarJSON(b *bytes.Buffer, v any) error {
	switch f.kind {
	case idl.Nested:
		m, ok := v.(Message)
		if !ok && v != nil {
			return badValue("%s is not a message %s", describe(v), f.nested.name)
		}
		return f.nested.appendJSON(b, m)
	case idl.Bool:
		x, ok := v.(bool)
		if !ok {
			return badValue("%s is not a bool", describe(v))
		}
		b.WriteString(strconv.FormatBool(x))
	case idl.String, idl.WString:
		s, ok := v.(string)
		if !ok {
			return badValue("%s is not a string", describe(v))
		}
		writeJSONString(b, s)
	case idl.Float32, idl.Float64:
		x, ok := toFloat(v)
		if !ok {
			return badValue("%s is not %s", describe(v), aType(f.kind.String()))
		}
		switch {
		case math.IsNaN(x):
			b.WriteString(`"nan"`)
		case math.IsInf(x, 1):
			b.WriteString(`"inf"`)
		case math.IsInf(x, -1):
			b.WriteString(`"-inf"`)
		case f.kind == idl.Float32:
			b.Write(strconv.AppendFloat(nil, float64(float32(x)), 'g', -1, 32))
		default:
			b.Write(strconv.AppendFloat(nil, x, 'g', -1, 64))
		}
	default:
		neg, mag, ok := toInt(v)
		if !ok {
			return badValue("%s is not %s", describe(v), aType(f.elemString()))
		}
		if neg {
			b.WriteByte('-')
		}
		b.WriteString(strconv.FormatUint(mag, 10))
	}
	return nil
}

// writeJSONString writes s as a JSON string, without HTML escaping.
func writeJSONString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)       // a string always encodes
	b.Truncate(b.Len() - 1) // the newline Encode adds
}
