package cli

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/afor-go/afor/ros/dynmsg"
	"github.com/afor-go/afor/ros/idl"
)

// pyRepr formats m, a message of def, as Python's repr() of the rclpy
// message prints it ("std_msgs.msg.String(data='hi')"): what `ros2 topic
// pub` and `ros2 service call` print. Sequences of numbers print as lists,
// fixed arrays of numbers as numpy arrays.
func pyRepr(reg *idl.Registry, def *idl.Message, m dynmsg.Message) string {
	var b strings.Builder
	writePyMessage(&b, reg, def, m)
	return b.String()
}

func writePyMessage(b *strings.Builder, reg *idl.Registry, def *idl.Message, m dynmsg.Message) {
	b.WriteString(def.Package + "." + def.Namespace + "." + def.Name + "(")
	for i, f := range def.Fields {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.Name + "=")
		writePyField(b, reg, f.Type, m[f.Name])
	}
	b.WriteByte(')')
}

func writePyField(b *strings.Builder, reg *idl.Registry, t idl.Type, v any) {
	if !t.IsArray() {
		writePyScalar(b, reg, t, v)
		return
	}
	elems := pyElems(v)
	numeric := t.Kind != idl.Nested && (t.Kind.IsInteger() || t.Kind.IsFloat()) && t.Kind != idl.Byte && t.Kind != idl.Char
	if numeric && t.Array == idl.FixedArray {
		b.WriteString("array([")
		for i, e := range elems {
			if i > 0 {
				b.WriteString(", ")
			}
			if t.Kind.IsFloat() {
				b.WriteString(numpyFloat(toF64(e)))
			} else {
				fmt.Fprint(b, e)
			}
		}
		b.WriteString("]")
		if dt := numpyDtype(t.Kind); dt != "" {
			b.WriteString(", dtype=" + dt)
		}
		b.WriteString(")")
		return
	}
	b.WriteByte('[')
	for i, e := range elems {
		if i > 0 {
			b.WriteString(", ")
		}
		writePyScalar(b, reg, t.Elem(), e)
	}
	b.WriteByte(']')
}

// pyElems returns the elements of an array value.
func pyElems(v any) []any {
	switch s := v.(type) {
	case []any:
		return s
	case []byte: // also []uint8
		out := make([]any, len(s))
		for i, x := range s {
			out[i] = x
		}
		return out
	case nil:
		return nil
	}
	// Other slices of the documented types.
	var out []any
	switch s := v.(type) {
	case []bool:
		for _, x := range s {
			out = append(out, x)
		}
	case []int8:
		for _, x := range s {
			out = append(out, x)
		}
	case []int16:
		for _, x := range s {
			out = append(out, x)
		}
	case []uint16:
		for _, x := range s {
			out = append(out, x)
		}
	case []int32:
		for _, x := range s {
			out = append(out, x)
		}
	case []uint32:
		for _, x := range s {
			out = append(out, x)
		}
	case []int64:
		for _, x := range s {
			out = append(out, x)
		}
	case []uint64:
		for _, x := range s {
			out = append(out, x)
		}
	case []float32:
		for _, x := range s {
			out = append(out, x)
		}
	case []float64:
		for _, x := range s {
			out = append(out, x)
		}
	case []string:
		for _, x := range s {
			out = append(out, x)
		}
	case []dynmsg.Message:
		for _, x := range s {
			out = append(out, x)
		}
	default:
		out = append(out, v)
	}
	return out
}

func writePyScalar(b *strings.Builder, reg *idl.Registry, t idl.Type, v any) {
	switch {
	case t.Kind == idl.Nested:
		m, _ := v.(dynmsg.Message)
		def, err := reg.Resolve(t)
		if err != nil {
			fmt.Fprintf(b, "%v", v)
			return
		}
		writePyMessage(b, reg, def, m)
	case t.Kind == idl.Bool:
		if v == true {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case t.Kind == idl.Byte:
		x, _ := v.(uint8)
		b.WriteString(pyBytes([]byte{x}))
	case t.Kind == idl.Char:
		x, _ := v.(uint8)
		b.WriteString(pyString(string(rune(x))))
	case t.Kind.IsFloat():
		b.WriteString(pyFloat(toF64(v)))
	case t.Kind.IsString():
		s, _ := v.(string)
		b.WriteString(pyString(s))
	default:
		fmt.Fprint(b, v)
	}
}

func toF64(v any) float64 {
	switch x := v.(type) {
	case float32:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

// pyFloat formats x as Python's repr of a float.
func pyFloat(x float64) string {
	switch {
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	case math.IsNaN(x):
		return "nan"
	}
	s := strconv.FormatFloat(x, 'e', -1, 64)
	mant, expStr, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expStr)
	if exp < -4 || exp >= 16 {
		sign := "+"
		if exp < 0 {
			sign, exp = "-", -exp
		}
		return fmt.Sprintf("%se%s%02d", mant, sign, exp)
	}
	s = strconv.FormatFloat(x, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

// numpyFloat formats x as numpy prints an array element: "0.", "1.5".
func numpyFloat(x float64) string {
	s := pyFloat(x)
	if strings.HasSuffix(s, ".0") {
		return s[:len(s)-1] // "1.0" -> "1."
	}
	return s
}

func numpyDtype(k idl.Kind) string {
	switch k {
	case idl.Int8:
		return "int8"
	case idl.Uint8:
		return "uint8"
	case idl.Int16:
		return "int16"
	case idl.Uint16:
		return "uint16"
	case idl.Int32:
		return "int32"
	case idl.Uint32:
		return "uint32"
	case idl.Uint64:
		return "uint64"
	case idl.Float32:
		return "float32"
	}
	return "" // int64 and float64 are numpy's defaults
}

// pyString formats s as Python's repr of a str.
func pyString(s string) string {
	q := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == rune(q) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r < 0xa0:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// pyBytes formats p as Python's repr of bytes.
func pyBytes(p []byte) string {
	var b strings.Builder
	b.WriteString("b'")
	for _, c := range p {
		switch {
		case c == '\'' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}
