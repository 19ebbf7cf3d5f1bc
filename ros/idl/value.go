package idl

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ParseValue parses the text of a default or constant value for type t, as
// written after the field name or the '=' of a constant: "1", "-2.5",
// "'text'", "[1, 2, 3]", "['a', \"b\"]". The error wraps [ErrSyntax].
func ParseValue(t Type, s string) (Value, error) {
	v, msg := parseValue(t, s)
	if msg != "" {
		return Value{}, fmt.Errorf("%w: value %q of %s: %s", ErrSyntax, s, t, msg)
	}
	return v, nil
}

// parseValue returns the value, or a message saying what is wrong.
func parseValue(t Type, s string) (Value, string) {
	if t.Kind == Nested {
		return Value{}, "nested types cannot have default values"
	}
	if !t.IsArray() {
		return parsePrimitive(t, s)
	}
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return Value{}, "an array value must start with '[' and end with ']'"
	}
	inner := s[1 : len(s)-1]
	var elems []string
	if t.Kind.IsString() {
		var msg string
		elems, msg = splitStringArray(inner)
		if msg != "" {
			return Value{}, msg
		}
	} else if inner != "" {
		elems = strings.Split(inner, ",")
	}
	switch {
	case t.Array == FixedArray && len(elems) != t.Size:
		return Value{}, fmt.Sprintf("the array needs exactly %d elements, not %d", t.Size, len(elems))
	case t.Array == BoundedArray && len(elems) > t.Size:
		return Value{}, fmt.Sprintf("the array takes at most %d elements, not %d", t.Size, len(elems))
	}
	v := Value{Literal: s, Elems: make([]Value, 0, len(elems))}
	et := t.Elem()
	for i, e := range elems {
		ev, msg := parsePrimitive(et, strings.TrimFunc(e, isSpace))
		if msg != "" {
			return Value{}, fmt.Sprintf("element %d: %s", i, msg)
		}
		v.Elems = append(v.Elems, ev)
	}
	return v, ""
}

// splitStringArray splits the inside of a string array value into its
// elements the way rosidl_adapter does: elements are separated by commas
// and may be quoted with ' or " (a quote inside escaped by a backslash).
func splitStringArray(s string) ([]string, string) {
	var out []string
	for len(s) > 0 {
		s = strings.TrimLeft(s, " ")
		if s == "" {
			return nil, "missing element after ','"
		}
		if s[0] == ',' {
			return nil, "unexpected ','"
		}
		if q := s[0]; q == '"' || q == '\'' {
			end := closingQuote(s, q)
			if end < 0 {
				return nil, "unterminated quoted element"
			}
			out = append(out, strings.ReplaceAll(s[1:end+1], `\`+string(q), string(q)))
			s = s[min(end+2, len(s)):]
		} else if i := strings.IndexByte(s, ','); i >= 0 {
			out = append(out, s[:i])
			s = s[i:]
		} else {
			out = append(out, s)
			s = ""
		}
		s = strings.TrimLeft(s, " ")
		if s != "" && s[0] == ',' {
			s = s[1:]
		}
	}
	return out, ""
}

// closingQuote returns the index just before the quote q that closes the
// quoted element at the start of s, or -1. It reproduces rosidl_adapter's
// search, which skips quotes escaped with a backslash (and miscounts after
// more than one of them: accepted inputs must parse the same way).
func closingQuote(s string, q byte) int {
	final := 0
	for len(s) > 0 {
		j := strings.IndexByte(s[1:], q)
		if j < 0 {
			return -1
		}
		if s[j] != '\\' {
			return final + j
		}
		s = s[j+2:]
		final = j + 2
	}
	return -1
}

// parsePrimitive parses a value of a non-array primitive type.
func parsePrimitive(t Type, s string) (Value, string) {
	v := Value{Literal: s}
	switch k := t.Kind; {
	case k == Bool:
		switch strings.ToLower(s) {
		case "true", "1":
			v.Bool = true
		case "false", "0":
		default:
			return Value{}, "a bool is true, false, 1 or 0"
		}
	case k.IsInteger():
		neg, mag, ok := parsePyInt(s)
		if !ok {
			return Value{}, "not an integer"
		}
		lo, hi := intRange(k)
		switch {
		case neg && mag != 0 && !k.IsSigned():
			return Value{}, fmt.Sprintf("out of range [0, %d]", hi)
		case neg && mag != 0:
			if mag > uint64(-(lo+1))+1 {
				return Value{}, fmt.Sprintf("out of range [%d, %d]", lo, hi)
			}
			v.Int = -int64(mag-1) - 1
		case mag > hi:
			return Value{}, fmt.Sprintf("out of range [%d, %d]", lo, hi)
		case k.IsSigned():
			v.Int = int64(mag)
		default:
			v.Uint = mag
		}
	case k.IsFloat():
		f, ok := parsePyFloat(s)
		if !ok {
			return Value{}, "not a floating point number"
		}
		v.Float = f
	case k.IsString():
		str, msg := unquote(s)
		if msg != "" {
			return Value{}, msg
		}
		if t.StringBound > 0 && utf8.RuneCountInString(str) > t.StringBound {
			return Value{}, fmt.Sprintf("longer than the bound of %d characters", t.StringBound)
		}
		v.Str = str
	default:
		return Value{}, "not a primitive type"
	}
	return v, ""
}

// intRange returns the bounds of an integer kind (lo as a negative int64,
// hi as a uint64).
func intRange(k Kind) (lo int64, hi uint64) {
	switch k {
	case Int8:
		return math.MinInt8, math.MaxInt8
	case Int16:
		return math.MinInt16, math.MaxInt16
	case Int32:
		return math.MinInt32, math.MaxInt32
	case Int64:
		return math.MinInt64, math.MaxInt64
	case Uint16:
		return 0, math.MaxUint16
	case Uint32:
		return 0, math.MaxUint32
	case Uint64:
		return 0, math.MaxUint64
	}
	return 0, math.MaxUint8 // Byte, Char, Uint8
}

// unquote removes one pair of matching outer quotes, checks that the same
// quote does not appear unescaped inside, and unescapes it. Unquoted text is
// returned as is.
func unquote(s string) (string, string) {
	for _, q := range [...]byte{'"', '\''} {
		if len(s) == 0 || s[0] != q || s[len(s)-1] != q {
			continue
		}
		if len(s) == 1 {
			return "", ""
		}
		inner := s[1 : len(s)-1]
		for i := 0; i < len(inner); i++ {
			if inner[i] == q && (i == 0 || inner[i-1] != '\\') {
				return "", "unescaped quote inside the string"
			}
		}
		return strings.ReplaceAll(inner, `\`+string(q), string(q)), ""
	}
	return s, ""
}

// parsePyInt parses an integer as Python's int(s) or int(s, 0) does:
// surrounding white space, an optional sign, decimal digits (leading zeros
// allowed) or a 0x/0o/0b prefix, single underscores between digits.
func parsePyInt(s string) (neg bool, mag uint64, ok bool) {
	s = strings.TrimFunc(s, isSpace)
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	base := 10
	if len(s) >= 2 && s[0] == '0' {
		switch s[1] {
		case 'x', 'X':
			base = 16
		case 'o', 'O':
			base = 8
		case 'b', 'B':
			base = 2
		}
		if base != 10 {
			s = s[2:]
			s = strings.TrimPrefix(s, "_")
		}
	}
	digits, ok := dropUnderscores(s)
	if !ok {
		return false, 0, false
	}
	n, err := strconv.ParseUint(digits, base, 64)
	if err != nil {
		return false, 0, false
	}
	return neg, n, true
}

// dropUnderscores removes single underscores between alphanumeric
// characters, rejecting leading, trailing or doubled ones.
func dropUnderscores(s string) (string, bool) {
	if !strings.Contains(s, "_") {
		return s, s != ""
	}
	if s == "" || s[0] == '_' || s[len(s)-1] == '_' || strings.Contains(s, "__") {
		return "", false
	}
	return strings.ReplaceAll(s, "_", ""), true
}

// parsePyFloat parses a number as Python's float(s) does: decimal notation
// with optional exponent, "inf", "infinity" or "nan" in any case, single
// underscores between digits. Overflow gives an infinity, as in Python.
func parsePyFloat(s string) (float64, bool) {
	s = strings.TrimFunc(s, isSpace)
	if s == "" || strings.ContainsAny(s, "xXpP") {
		return 0, false
	}
	if strings.Contains(s, "_") {
		for i := 0; i < len(s); i++ {
			if s[i] != '_' {
				continue
			}
			if i == 0 || i == len(s)-1 || !isDigit(s[i-1]) || !isDigit(s[i+1]) {
				return 0, false
			}
		}
		s = strings.ReplaceAll(s, "_", "")
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return f, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
