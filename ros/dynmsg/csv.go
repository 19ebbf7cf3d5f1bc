package dynmsg

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/afor-go/afor/ros/idl"
)

// FormatCSV returns what `ros2 topic echo --csv` prints for m, without the
// trailing line break: the values of every field, nested messages
// flattened, arrays element by element, all separated by commas (the text
// of rosidl_runtime_py's message_to_csv, which leaves out the comma after
// leading empty strings). Strings are written as they are,
// bools as True and False, bytes as Python writes them (b'A', b'\x00'),
// floats as Python's repr, except the elements of fixed-size float32
// arrays, which rclpy holds in numpy and prints with numpy's float32 rules
// (1e+06, 0.1). NoArr, NoStr and TruncateLength apply as for FormatYAML
// (a truncated array ends with "..."); FlowStyle is ignored.
func (t *Type) FormatCSV(m Message, o FormatOptions) string {
	var b strings.Builder
	t.msg.appendCSV(&b, m, &o)
	return b.String()
}

// The commas follow message_to_csv: one goes in before a field or element
// only once the text of its message or array is not empty, so empty
// strings at the start leave no separator.

func (mt *msgType) appendCSV(b *strings.Builder, m Message, o *FormatOptions) {
	start := b.Len()
	for i := range mt.fields {
		f := &mt.fields[i]
		if b.Len() > start {
			b.WriteByte(',')
		}
		v, ok := m[f.name]
		if !ok {
			v = f.zero()
		}
		f.appendCSV(b, v, o)
	}
}

func (f *field) appendCSV(b *strings.Builder, v any, o *FormatOptions) {
	if f.array == notArray {
		f.scalarCSV(b, v, o, false)
		return
	}
	n := 0
	var rv reflect.Value
	if v != nil {
		rv = reflect.ValueOf(v)
		if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
			b.WriteString(describe(v))
			return
		}
		n = rv.Len()
	}
	if o.NoArr {
		b.WriteString(f.abbreviate(n))
		return
	}
	start := b.Len()
	for i := range n {
		if b.Len() > start {
			b.WriteByte(',')
		}
		if o.TruncateLength > 0 && i >= o.TruncateLength {
			b.WriteString("...")
			break
		}
		f.scalarCSV(b, rv.Index(i).Interface(), o, f.array == fixedArray)
	}
}

// scalarCSV writes one value; numpy tells whether rclpy holds it in a
// numpy array (the elements of fixed-size numeric arrays).
func (f *field) scalarCSV(b *strings.Builder, v any, o *FormatOptions, numpy bool) {
	switch f.kind {
	case idl.Nested:
		m, _ := v.(Message)
		f.nested.appendCSV(b, m, o)
		return
	case idl.Bool:
		if x, ok := v.(bool); ok {
			if x {
				b.WriteString("True")
			} else {
				b.WriteString("False")
			}
			return
		}
	case idl.String, idl.WString:
		if s, ok := v.(string); ok {
			switch {
			case o.NoStr:
				b.WriteString("<string length: <" + strconv.Itoa(utf8.RuneCountInString(s)) + ">>")
			case o.TruncateLength > 0 && utf8.RuneCountInString(s) > o.TruncateLength:
				n := 0
				for i := range s {
					if n == o.TruncateLength {
						s = s[:i]
						break
					}
					n++
				}
				b.WriteString(s)
				b.WriteString("...")
			default:
				b.WriteString(s)
			}
			return
		}
	case idl.Float32, idl.Float64:
		if x, ok := toFloat(v); ok {
			if f.kind == idl.Float32 {
				x = float64(float32(x))
				if numpy {
					b.WriteString(numpyFloat32(float32(x)))
					return
				}
			}
			b.Write(appendPyFloat(nil, x))
			return
		}
	case idl.Byte:
		if neg, mag, ok := toInt(v); ok && !neg && mag <= 0xff {
			b.WriteString(pyBytesRepr(byte(mag)))
			return
		}
	default:
		if neg, mag, ok := toInt(v); ok {
			if neg {
				b.WriteByte('-')
			}
			b.WriteString(strconv.FormatUint(mag, 10))
			return
		}
	}
	b.WriteString(describe(v))
}

// pyBytesRepr returns Python's repr of the one-byte bytes value {c}: b'A',
// b'\x00', b'\n', b"'", b'\\'.
func pyBytesRepr(c byte) string {
	switch {
	case c == '\'':
		return `b"'"`
	case c == '\\':
		return `b'\\'`
	case c == '\t':
		return `b'\t'`
	case c == '\n':
		return `b'\n'`
	case c == '\r':
		return `b'\r'`
	case c < 0x20 || c >= 0x7f:
		const digits = "0123456789abcdef"
		return `b'\x` + string(digits[c>>4]) + string(digits[c&15]) + `'`
	}
	return "b'" + string(c) + "'"
}

// numpyFloat32 returns str(numpy.float32(x)): the shortest digits that read
// back as the same float32, positional when 1e-4 <= |x| < 1e6 (or zero) and
// scientific otherwise ("1e+06", "1.2345679e+08", "1e-05").
func numpyFloat32(x float32) string {
	switch {
	case math.IsNaN(float64(x)):
		return "nan"
	case math.IsInf(float64(x), 1):
		return "inf"
	case math.IsInf(float64(x), -1):
		return "-inf"
	}
	abs := math.Abs(float64(x))
	if abs == 0 || (abs >= 1e-4 && abs < 1e6) {
		s := strconv.FormatFloat(float64(x), 'f', -1, 32)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(float64(x), 'e', -1, 32) // d[.ddd]e±XX
	return s
}
