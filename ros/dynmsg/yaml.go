package dynmsg

import (
	"fmt"
	"reflect"
	"strconv"
	"unicode/utf8"

	"github.com/afor-go/afor/ros/idl"
)

// FormatOptions are the output options of `ros2 topic echo`.
type FormatOptions struct {
	// NoArr prints arrays as "<array type: T[N]>", "<sequence type: T[N],
	// length: L>" or "<sequence type: T, length: L>" instead of their
	// elements (--no-arr).
	NoArr bool
	// NoStr prints strings as "<string length: <L>>" instead of their text
	// (--no-str).
	NoStr bool
	// TruncateLength, when positive, cuts strings and arrays longer than
	// it to that many characters or elements followed by "..."
	// (--truncate-length). ros2 topic echo truncates at 128 unless given
	// --full-length: set 128 to print what it prints by default. Zero
	// means no truncation (--full-length).
	TruncateLength int
	// FlowStyle prints arrays in YAML flow style, "[1, 2, 3]"
	// (--flow-style). Messages stay in block style, as in ros2 topic echo,
	// except inside a flow array.
	FlowStyle bool
}

// FormatYAML returns what `ros2 topic echo` prints for m, byte for byte,
// without the "---" line it prints after each message: the YAML that
// rosidl_runtime_py's message_to_yaml writes with o's options, ending with
// a line break. Floats print as Python's repr (1.0, 1.0e-05, .inf, .nan),
// byte fields as the character of their value, strings quoted only when
// YAML needs it. A missing field prints its default value; a value of the
// wrong type prints as Go formats it.
func (t *Type) FormatYAML(m Message, o FormatOptions) string {
	root := t.msg.toNode(m, &o)
	return emitYAML(&root)
}

// toNode converts m as rosidl_runtime_py's message_to_ordereddict and
// _convert_value do.
func (mt *msgType) toNode(m Message, o *FormatOptions) ynode {
	n := ynode{kind: mapNode, items: make([]ynode, 0, 2*len(mt.fields))}
	for i := range mt.fields {
		f := &mt.fields[i]
		v, ok := m[f.name]
		if !ok {
			v = f.zero()
		}
		n.items = append(n.items, strNode(f.name), f.toNode(v, o))
	}
	return n
}

func (f *field) toNode(v any, o *FormatOptions) ynode {
	if f.array == notArray {
		return f.scalarNode(v, o)
	}
	length := 0
	var rv reflect.Value
	if v != nil {
		rv = reflect.ValueOf(v)
		if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
			return strNode(fmt.Sprint(v))
		}
		length = rv.Len()
	}
	if o.NoArr {
		return strNode(f.abbreviate(length))
	}
	n := length
	truncated := o.TruncateLength > 0 && length > o.TruncateLength
	if truncated {
		n = o.TruncateLength
	}
	seq := ynode{kind: seqNode, flow: o.FlowStyle, items: make([]ynode, 0, n+1)}
	switch s := v.(type) { // fast paths for the types Decode produces
	case []uint8:
		if f.kind != idl.Byte {
			for _, x := range s[:n] {
				seq.items = append(seq.items, plainNode(strconv.FormatUint(uint64(x), 10)))
			}
			break
		}
		for _, x := range s[:n] {
			seq.items = append(seq.items, strNode(string(rune(x))))
		}
	case []float64:
		for _, x := range s[:n] {
			if f.kind == idl.Float32 {
				x = float64(float32(x)) // what the wire carries
			}
			seq.items = append(seq.items, plainNode(yamlFloat(x)))
		}
	case []float32:
		for _, x := range s[:n] {
			seq.items = append(seq.items, plainNode(yamlFloat(float64(x))))
		}
	default:
		for i := range n {
			seq.items = append(seq.items, f.scalarNode(rv.Index(i).Interface(), o))
		}
	}
	if truncated {
		seq.items = append(seq.items, strNode("..."))
	}
	return seq
}

// abbreviate returns the --no-arr text for an array of length elements.
func (f *field) abbreviate(length int) string {
	var tn string
	switch f.kind {
	case idl.Bool:
		tn = "boolean"
	case idl.Byte:
		tn = "octet"
	case idl.Char:
		tn = "uint8"
	case idl.Float32:
		tn = "float"
	case idl.Float64:
		tn = "double"
	case idl.Nested:
		tn = f.typ.FullName()
	default:
		tn = f.kind.String() // int8 ... uint64, string, wstring
	}
	switch f.array {
	case fixedArray:
		return fmt.Sprintf("<array type: %s[%d]>", tn, f.size)
	case boundedArray:
		return fmt.Sprintf("<sequence type: %s[%d], length: %d>", tn, f.size, length)
	}
	return fmt.Sprintf("<sequence type: %s, length: %d>", tn, length)
}

// scalarNode converts one value (a field or an array element) of f's kind.
func (f *field) scalarNode(v any, o *FormatOptions) ynode {
	switch f.kind {
	case idl.Nested:
		m, ok := v.(Message)
		if !ok && v != nil {
			return strNode(fmt.Sprint(v))
		}
		return f.nested.toNode(m, o)
	case idl.Bool:
		if b, ok := v.(bool); ok {
			if b {
				return plainNode("true")
			}
			return plainNode("false")
		}
	case idl.String, idl.WString:
		s, ok := v.(string)
		if !ok {
			break
		}
		if o.NoStr {
			return strNode("<string length: <" + strconv.Itoa(utf8.RuneCountInString(s)) + ">>")
		}
		if o.TruncateLength > 0 && utf8.RuneCountInString(s) > o.TruncateLength {
			i, n := 0, 0
			for i = range s {
				if n == o.TruncateLength {
					break
				}
				n++
			}
			s = s[:i] + "..."
		}
		return strNode(s)
	case idl.Float32, idl.Float64:
		if x, ok := toFloat(v); ok {
			if f.kind == idl.Float32 {
				x = float64(float32(x))
			}
			return plainNode(yamlFloat(x))
		}
	case idl.Byte:
		// rclpy holds a byte as bytes of length 1, which echo prints as
		// the character of that code point.
		if neg, mag, ok := toInt(v); ok && !neg && mag <= 0xff {
			return strNode(string(rune(mag)))
		}
	default:
		if neg, mag, ok := toInt(v); ok {
			if neg {
				return plainNode("-" + strconv.FormatUint(mag, 10))
			}
			return plainNode(strconv.FormatUint(mag, 10))
		}
	}
	return strNode(fmt.Sprint(v))
}
