package idl

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// pyDefault spells a default value as rosidl_generator_type_description
// does: Python's str() of the value after the .msg -> .idl -> parser round
// trip. Scalars print as Python prints them (True, 1.0, 42, the text of a
// string); arrays as the repr of a Python tuple.
func pyDefault(t Type, v Value) string {
	if !t.IsArray() {
		if t.Kind.IsString() {
			return v.Str
		}
		return string(appendPyScalar(nil, t, v))
	}
	b := []byte{'('}
	et := t.Elem()
	for i, e := range v.Elems {
		if i > 0 {
			b = append(b, ", "...)
		}
		if et.Kind.IsString() {
			b = appendPyStrRepr(b, e.Str)
		} else {
			b = appendPyScalar(b, et, e)
		}
	}
	if len(v.Elems) == 1 {
		b = append(b, ',')
	}
	return string(append(b, ')'))
}

func appendPyScalar(b []byte, t Type, v Value) []byte {
	switch k := t.Kind; {
	case k == Bool:
		if v.Bool {
			return append(b, "True"...)
		}
		return append(b, "False"...)
	case k.IsSigned():
		return strconv.AppendInt(b, v.Int, 10)
	case k.IsInteger():
		return strconv.AppendUint(b, v.Uint, 10)
	case k.IsFloat():
		return appendPyFloat(b, v.Float)
	}
	return b
}

// appendPyFloat appends Python's repr of a float: the shortest digits that
// round-trip, in positional notation with at least one decimal when the
// decimal exponent is in [-4, 16), else in exponent notation with at least
// two exponent digits.
func appendPyFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "nan"...)
	case math.IsInf(f, 1):
		return append(b, "inf"...)
	case math.IsInf(f, -1):
		return append(b, "-inf"...)
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	x, _ := strconv.Atoi(exp)
	if f != 0 && (x < -4 || x >= 16) {
		return append(append(append(b, mant...), 'e'), exp...)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	b = append(b, s...)
	if !strings.ContainsRune(s, '.') {
		b = append(b, ".0"...)
	}
	return b
}

// appendPyStrRepr appends Python's repr of a string: single quotes unless
// the text holds a single quote and no double quote; backslash escapes for
// the quote, the backslash and non-printable characters.
func appendPyStrRepr(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	q := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	b = append(b, q)
	for _, r := range s {
		switch {
		case r == rune(q) || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\t':
			b = append(b, `\t`...)
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\r':
			b = append(b, `\r`...)
		case r < 0x20 || r == 0x7f:
			b = append(b, '\\', 'x', hexDigits[r>>4], hexDigits[r&0xf])
		case r < utf8.RuneSelf || unicode.IsPrint(r):
			b = utf8.AppendRune(b, r)
		case r <= 0xff:
			b = append(b, '\\', 'x', hexDigits[r>>4], hexDigits[r&0xf])
		case r <= 0xffff:
			b = append(b, '\\', 'u')
			for shift := 12; shift >= 0; shift -= 4 {
				b = append(b, hexDigits[r>>shift&0xf])
			}
		default:
			b = append(b, '\\', 'U')
			for shift := 28; shift >= 0; shift -= 4 {
				b = append(b, hexDigits[r>>shift&0xf])
			}
		}
	}
	return append(b, q)
}
