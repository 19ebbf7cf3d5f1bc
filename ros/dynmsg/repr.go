package dynmsg

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/afor-go/afor/ros/idl"
)

// FormatRepr returns m as Python's repr() of the rclpy message prints it,
// which is what `ros2 service call` prints for requests and responses:
// "std_srvs.srv.SetBool_Response(success=True, message='done')". Nested
// messages nest the same way; strings and bytes are Python literals,
// floats Python's repr, sequences of numbers and of other values Python
// lists. Fixed-size numeric arrays, which rclpy holds in numpy, print as
// numpy does ("array([1, 2, 3], dtype=int32)", "array([0. , 0.5])"),
// except that arrays of more than 1000 elements are printed whole where
// numpy would summarize them.
func (t *Type) FormatRepr(m Message) string {
	var b strings.Builder
	t.msg.appendRepr(&b, m)
	return b.String()
}

func (mt *msgType) appendRepr(b *strings.Builder, m Message) {
	b.WriteString(strings.ReplaceAll(strings.Replace(mt.name, "/", ".", 1), "/", "."))
	b.WriteByte('(')
	for i := range mt.fields {
		f := &mt.fields[i]
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.name)
		b.WriteByte('=')
		v, ok := m[f.name]
		if !ok {
			v = f.zero()
		}
		f.appendRepr(b, v)
	}
	b.WriteByte(')')
}

func (f *field) appendRepr(b *strings.Builder, v any) {
	if f.array == notArray {
		f.scalarRepr(b, v)
		return
	}
	var rv reflect.Value
	n := 0
	if v != nil {
		rv = reflect.ValueOf(v)
		if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
			b.WriteString(describe(v))
			return
		}
		n = rv.Len()
	}
	numeric := f.kind.IsInteger() && f.kind != idl.Byte || f.kind.IsFloat()
	if numeric && f.array == fixedArray {
		elems := make([]any, n)
		for i := range n {
			elems[i] = rv.Index(i).Interface()
		}
		b.WriteString(numpyRepr(f.kind, elems))
		return
	}
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		f.scalarRepr(b, rv.Index(i).Interface())
	}
	b.WriteByte(']')
}

func (f *field) scalarRepr(b *strings.Builder, v any) {
	switch f.kind {
	case idl.Nested:
		m, _ := v.(Message)
		f.nested.appendRepr(b, m)
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
			b.WriteString(pyStrRepr(s))
			return
		}
	case idl.Float32, idl.Float64:
		if x, ok := toFloat(v); ok {
			if f.kind == idl.Float32 {
				x = float64(float32(x))
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

// pyStrRepr returns Python's repr of a str: single quotes unless the text
// holds a single quote and no double quote; \\, \n, \r, \t and the quote
// escaped; other unprintable characters as \xhh, \uhhhh or \Uhhhhhhhh.
func pyStrRepr(s string) string {
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for i, w := 0, 0; i < len(s); i += w {
		r, size := utf8.DecodeRuneInString(s[i:])
		w = size
		if r == utf8.RuneError && size == 1 {
			r = rune(s[i]) // an invalid byte: Python would hold a surrogate escape
			b.WriteString(`\udc` + strconv.FormatInt(int64(r), 16))
			continue
		}
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(q):
			b.WriteByte('\\')
			b.WriteByte(q)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x7f && r >= 0x20:
			b.WriteRune(r)
		case unicode.IsPrint(r):
			b.WriteRune(r)
		case r < 0x100:
			b.WriteString(`\x` + hex2(uint64(r), 2))
		case r < 0x10000:
			b.WriteString(`\u` + hex2(uint64(r), 4))
		default:
			b.WriteString(`\U` + hex2(uint64(r), 8))
		}
	}
	b.WriteByte(q)
	return b.String()
}

// hex2 returns v in lower-case hex, zero-padded to width.
func hex2(v uint64, width int) string {
	s := strconv.FormatUint(v, 16)
	return strings.Repeat("0", max(0, width-len(s))) + s
}

// numpyRepr returns repr(numpy.array(elems, dtype)) for a 1-D array of
// kind k, with numpy's default print options.
func numpyRepr(k idl.Kind, elems []any) string {
	words := make([]string, len(elems))
	if k.IsFloat() {
		xs := make([]float64, len(elems))
		for i, e := range elems {
			x, _ := toFloat(e)
			if k == idl.Float32 {
				x = float64(float32(x))
			}
			xs[i] = x
		}
		ff := newFloatFormat(xs, k == idl.Float32)
		for i, x := range xs {
			words[i] = ff.format(x)
		}
	} else {
		width := 0
		for i, e := range elems {
			neg, mag, _ := toInt(e)
			words[i] = strconv.FormatUint(mag, 10)
			if neg {
				words[i] = "-" + words[i]
			}
			width = max(width, len(words[i]))
		}
		for i, w := range words {
			words[i] = strings.Repeat(" ", width-len(w)) + w
		}
	}
	// numpy's _formatArray for one dimension: lines of at most 75
	// characters, "array(" and ")" included, continued under the "[".
	const lineWidth = 75 - len(")")
	const indent = "       " // len("array([")-1
	elemWidth := lineWidth - len("]")
	var s strings.Builder
	line := indent
	for i, w := range words {
		if len(line)+len(w) > elemWidth && len(line) > len(indent) {
			s.WriteString(strings.TrimRight(line, " "))
			s.WriteByte('\n')
			line = indent
		}
		line += w
		if i < len(words)-1 {
			line += ", "
		}
	}
	s.WriteString(line)
	out := "array([" + s.String()[len(indent):] + "]"
	dtype := numpyDtype(k)
	if dtype == "" {
		return out + ")"
	}
	out += ","
	extra := "dtype=" + dtype + ")"
	lastLine := len(out) - (strings.LastIndexByte(out, '\n') + 1)
	if lastLine+len(extra)+1 > 75 {
		return out + "\n      " + extra
	}
	return out + " " + extra
}

// numpyDtype returns the dtype numpy names in a repr, "" for the implied
// int64 and float64.
func numpyDtype(k idl.Kind) string {
	switch k {
	case idl.Int64, idl.Float64:
		return ""
	case idl.Float32:
		return "float32"
	case idl.Char:
		return "uint8"
	}
	return k.String()
}

// floatFormat is numpy's FloatingFormat with the default options
// (precision 8, floatmode "maxprec", sign "-").
type floatFormat struct {
	f32               bool
	exp               bool
	padLeft, padRight int
	precision         int // exp: fraction digits of every mantissa
	expSize           int
}

func newFloatFormat(xs []float64, f32 bool) *floatFormat {
	ff := &floatFormat{f32: f32, precision: 8}
	var finite []float64
	negInf := false
	for _, x := range xs {
		switch {
		case math.IsInf(x, -1):
			negInf = true
		case math.IsInf(x, 0) || math.IsNaN(x):
		default:
			finite = append(finite, x)
		}
	}
	maxV, minV := 0.0, math.Inf(1)
	for _, x := range finite {
		if a := math.Abs(x); a != 0 {
			maxV, minV = max(maxV, a), min(minV, a)
		}
	}
	cutoff := 1e8
	if f32 {
		cutoff = 1e6
	}
	if maxV > 0 && (maxV >= cutoff || minV < 0.0001 || maxV/minV > 1000) {
		ff.exp = true
	}
	switch {
	case len(finite) == 0:
	case ff.exp:
		ff.precision = 0
		for _, x := range finite {
			mant, exp := ff.scientific(x, 8, false)
			intPart, frac, _ := strings.Cut(mant, ".")
			ff.padLeft = max(ff.padLeft, len(intPart))
			ff.precision = max(ff.precision, len(frac))
			ff.expSize = max(ff.expSize, len(exp)-1)
		}
		ff.padRight = ff.expSize + 2 + ff.precision
	default:
		for _, x := range finite {
			intPart, frac, _ := strings.Cut(ff.positional(x), ".")
			ff.padLeft = max(ff.padLeft, len(intPart))
			ff.padRight = max(ff.padRight, len(frac))
		}
	}
	if len(finite) != len(xs) {
		offset := ff.padRight + 1
		inf := 3
		if negInf {
			inf = 4
		}
		ff.padLeft = max(ff.padLeft, 3-offset, inf-offset)
	}
	return ff
}

// digits returns the shortest decimal digits of x that read back as x (as
// a float32 when f32) and the decimal exponent e with x = 0.d1d2... × 10^e.
func (ff *floatFormat) digits(x float64) (string, int) {
	bits := 64
	if ff.f32 {
		bits = 32
	}
	s := strconv.FormatFloat(math.Abs(x), 'e', -1, bits)
	mant, exp, _ := strings.Cut(s, "e")
	e, _ := strconv.Atoi(exp)
	return strings.Replace(mant, ".", "", 1), e + 1
}

// positional formats |x| (sign in front) with the shortest digits, at most
// 8 after the point, trailing zeros trimmed but the point kept ("1.",
// "0.5").
func (ff *floatFormat) positional(x float64) string {
	d, e := ff.digits(x)
	if len(d)-e > 8 { // more than 8 fraction digits: round there
		bits := 64
		if ff.f32 {
			bits = 32
		}
		r := strconv.FormatFloat(math.Abs(x), 'f', 8, bits)
		r = strings.TrimRight(r, "0")
		if math.Signbit(x) {
			r = "-" + r
		}
		return r
	}
	var s string
	switch {
	case e <= 0:
		s = "0." + strings.Repeat("0", -e) + d
	case e >= len(d):
		s = d + strings.Repeat("0", e-len(d)) + "."
	default:
		s = d[:e] + "." + d[e:]
	}
	s = strings.TrimRight(s, "0")
	if math.Signbit(x) {
		s = "-" + s
	}
	return s
}

// scientific returns the mantissa ("-1.5", "1.") and the exponent ("+05",
// "-10", at least ff.expSize digits) of x. Without pad the mantissa has
// the shortest digits, at most maxFrac after the point, trailing zeros
// trimmed; with pad it has exactly maxFrac digits after the point, taken
// from the exact value as numpy's Dragon4 does with min_digits
// (float32(1.5e-07) is 1.5000001e-07 with 7 digits).
func (ff *floatFormat) scientific(x float64, maxFrac int, pad bool) (string, string) {
	bits := 64
	if ff.f32 {
		bits = 32
	}
	var d string
	var e int
	if sd, se := ff.digits(x); !pad && len(sd)-1 <= maxFrac {
		d, e = strings.TrimRight(sd, "0"), se
	} else {
		s := strconv.FormatFloat(math.Abs(x), 'e', maxFrac, bits)
		m, exp, _ := strings.Cut(s, "e")
		d = strings.Replace(m, ".", "", 1)
		if !pad {
			d = strings.TrimRight(d, "0")
		}
		n, _ := strconv.Atoi(exp)
		e = n + 1
	}
	if d == "" {
		d = "0"
	}
	mant := d[:1] + "." + d[1:]
	if math.Signbit(x) {
		mant = "-" + mant
	}
	exp := e - 1
	sign := "+"
	if exp < 0 {
		sign, exp = "-", -exp
	}
	es := strconv.Itoa(exp)
	width := max(2, ff.expSize)
	es = strings.Repeat("0", max(0, width-len(es))) + es
	return mant, sign + es
}

// format formats one element, padded as the whole array needs.
func (ff *floatFormat) format(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		s := "nan"
		if math.IsInf(x, 1) {
			s = "inf"
		} else if math.IsInf(x, -1) {
			s = "-inf"
		}
		return strings.Repeat(" ", max(0, ff.padLeft+ff.padRight+1-len(s))) + s
	}
	if ff.exp {
		mant, exp := ff.scientific(x, ff.precision, true)
		intPart := mant[:strings.IndexByte(mant, '.')]
		return strings.Repeat(" ", max(0, ff.padLeft-len(intPart))) + mant + "e" + exp
	}
	s := ff.positional(x)
	intPart, frac, _ := strings.Cut(s, ".")
	return strings.Repeat(" ", max(0, ff.padLeft-len(intPart))) + s + strings.Repeat(" ", max(0, ff.padRight-len(frac)))
}
