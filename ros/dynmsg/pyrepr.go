package dynmsg

import (
	"math"
	"strconv"
	"strings"
)

// appendPyFloat appends repr(x) as Python prints a float: the shortest
// digits that read back as x, in positional notation when the decimal
// exponent is in [-4, 16) ("0.0001", "1000000000000000.0", "1.5") and in
// scientific notation otherwise ("1e-05", "1e+16"), "inf", "-inf", "nan".
func appendPyFloat(b []byte, x float64) []byte {
	switch {
	case math.IsNaN(x):
		return append(b, "nan"...)
	case math.IsInf(x, 1):
		return append(b, "inf"...)
	case math.IsInf(x, -1):
		return append(b, "-inf"...)
	}
	var tmp [32]byte
	s := strconv.AppendFloat(tmp[:0], x, 'e', -1, 64) // [-]d[.ddd]e±XX
	if s[0] == '-' {
		b = append(b, '-')
		s = s[1:]
	}
	e := strings.IndexByte(string(s), 'e')
	exp, _ := strconv.Atoi(string(s[e+1:]))
	var digits []byte
	digits = append(digits, s[0])
	if e > 1 {
		digits = append(digits, s[2:e]...)
	}
	decpt := exp + 1
	if decpt > -4 && decpt <= 16 {
		switch {
		case decpt <= 0:
			b = append(b, "0."...)
			for range -decpt {
				b = append(b, '0')
			}
			b = append(b, digits...)
		case decpt >= len(digits):
			b = append(b, digits...)
			for range decpt - len(digits) {
				b = append(b, '0')
			}
			b = append(b, ".0"...)
		default:
			b = append(b, digits[:decpt]...)
			b = append(b, '.')
			b = append(b, digits[decpt:]...)
		}
		return b
	}
	b = append(b, digits[0])
	if len(digits) > 1 {
		b = append(b, '.')
		b = append(b, digits[1:]...)
	}
	b = append(b, 'e')
	if exp < 0 {
		b = append(b, '-')
		exp = -exp
	} else {
		b = append(b, '+')
	}
	if exp < 10 {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, int64(exp), 10)
}

// yamlFloat returns a float as PyYAML writes it: ".nan", ".inf", "-.inf",
// else repr(x) with ".0" put before an exponent that has no dot before it
// ("1.0e-05").
func yamlFloat(x float64) string {
	switch {
	case math.IsNaN(x):
		return ".nan"
	case math.IsInf(x, 1):
		return ".inf"
	case math.IsInf(x, -1):
		return "-.inf"
	}
	var tmp [40]byte
	s := string(appendPyFloat(tmp[:0], x))
	if !strings.Contains(s, ".") {
		if i := strings.IndexByte(s, 'e'); i >= 0 {
			s = s[:i] + ".0" + s[i:]
		}
	}
	return s
}
