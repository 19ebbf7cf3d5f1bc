package zenoh

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Bounds of a JSON5 configuration: its size and nesting depth (every value
// it holds is then bounded by its size).
const (
	maxConfigBytes = 1 << 20
	maxConfigDepth = 32
)

// parseJSON5 decodes a JSON5 document (JSON with comments, trailing
// commas, unquoted keys, single-quoted strings, hexadecimal numbers) into
// map[string]any, []any, string, float64, bool or nil. A key repeated in
// one object is an error.
func parseJSON5(data []byte) (any, error) {
	if len(data) > maxConfigBytes {
		return nil, fmt.Errorf("longer than %d bytes", maxConfigBytes)
	}
	p := &json5Parser{s: string(data)}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.i < len(p.s) {
		return nil, p.errorf("unexpected %q after the value", p.s[p.i])
	}
	return v, nil
}

type json5Parser struct {
	s string
	i int
}

// errorf reports an error at the current position (line:column).
func (p *json5Parser) errorf(format string, args ...any) error {
	line := 1 + strings.Count(p.s[:p.i], "\n")
	col := p.i - strings.LastIndexByte(p.s[:p.i], '\n')
	return fmt.Errorf("line %d column %d: %s", line, col, fmt.Sprintf(format, args...))
}

// space skips white space and comments.
func (p *json5Parser) space() error {
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
			p.i++
		case strings.HasPrefix(p.s[p.i:], "//"):
			if j := strings.IndexByte(p.s[p.i:], '\n'); j >= 0 {
				p.i += j + 1
			} else {
				p.i = len(p.s)
			}
		case strings.HasPrefix(p.s[p.i:], "/*"):
			j := strings.Index(p.s[p.i+2:], "*/")
			if j < 0 {
				return p.errorf("unterminated comment")
			}
			p.i += j + 4
		case strings.HasPrefix(p.s[p.i:], "\u00a0"), strings.HasPrefix(p.s[p.i:], "\ufeff"):
			_, n := utf8.DecodeRuneInString(p.s[p.i:])
			p.i += n
		default:
			return nil
		}
	}
	return nil
}

func (p *json5Parser) value(depth int) (any, error) {
	if depth > maxConfigDepth {
		return nil, p.errorf("nested deeper than %d", maxConfigDepth)
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.i >= len(p.s) {
		return nil, p.errorf("unexpected end")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"' || c == '\'':
		return p.str()
	case c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9':
		return p.number()
	}
	start := p.i
	id := p.ident()
	switch id {
	case "true":
		return true, nil
	case "false":
		return false, nil
	case "null":
		return nil, nil
	case "Infinity", "NaN":
		p.i -= len(id)
		return p.number()
	}
	p.i = start
	_, n := utf8.DecodeRuneInString(p.s[p.i:])
	return nil, p.errorf("unexpected %q", p.s[p.i:p.i+n])
}

func (p *json5Parser) object(depth int) (any, error) {
	p.i++ // {
	out := make(map[string]any)
	for {
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return out, nil
		}
		var key string
		keyStart := p.i
		if p.i < len(p.s) && (p.s[p.i] == '"' || p.s[p.i] == '\'') {
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			key = k
		} else if key = p.ident(); key == "" {
			return nil, p.errorf("want a key or '}'")
		}
		if _, dup := out[key]; dup {
			p.i = keyStart
			return nil, p.errorf("key %q given twice", key)
		}
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, p.errorf("want ':' after key %q", key)
		}
		p.i++
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out[key] = v
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return out, nil
		}
		return nil, p.errorf("want ',' or '}'")
	}
}

func (p *json5Parser) array(depth int) (any, error) {
	p.i++ // [
	out := []any{}
	for {
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return out, nil
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return out, nil
		}
		return nil, p.errorf("want ',' or ']'")
	}
}

// ident reads an unquoted key or literal (letters, digits, '_', '$').
func (p *json5Parser) ident() string {
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || p.i > start && c >= '0' && c <= '9' {
			p.i++
			continue
		}
		break
	}
	return p.s[start:p.i]
}

func (p *json5Parser) str() (string, error) {
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for {
		if p.i >= len(p.s) {
			return "", p.errorf("unterminated string")
		}
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return b.String(), nil
		case c == '\n':
			return "", p.errorf("newline in a string")
		case c != '\\':
			b.WriteByte(c)
			p.i++
			continue
		}
		p.i++ // backslash
		if p.i >= len(p.s) {
			return "", p.errorf("unterminated string")
		}
		e := p.s[p.i]
		p.i++
		switch e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case '0':
			b.WriteByte(0)
		case '\n':
			// line continuation
		case 'u':
			if p.i+4 > len(p.s) {
				return "", p.errorf("short \\u escape")
			}
			r, err := strconv.ParseUint(p.s[p.i:p.i+4], 16, 16)
			if err != nil {
				return "", p.errorf("bad \\u escape")
			}
			p.i += 4
			b.WriteRune(rune(r))
		default:
			b.WriteByte(e)
		}
	}
}

var errNumber = errors.New("bad number")

func (p *json5Parser) number() (any, error) {
	start := p.i
	for p.i < len(p.s) && strings.IndexByte("+-.0123456789abcdefABCDEFxXInfinityNaN", p.s[p.i]) >= 0 {
		p.i++
	}
	text := p.s[start:p.i]
	neg := strings.HasPrefix(text, "-")
	t := strings.TrimLeft(text, "+-")
	if len(text)-len(t) > 1 {
		return nil, p.errorf("%v %q", errNumber, text)
	}
	var v float64
	switch {
	case t == "Infinity":
		v = math.Inf(1)
	case t == "NaN":
		v = math.NaN()
	case strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0X"):
		n, err := strconv.ParseUint(t[2:], 16, 64)
		if err != nil {
			return nil, p.errorf("%v %q", errNumber, text)
		}
		v = float64(n)
	default:
		f, err := strconv.ParseFloat(t, 64)
		if err != nil || strings.IndexFunc(t, func(r rune) bool {
			return r != 'e' && r != 'E' && (r < '0' || r > '9') && r != '.' && r != '+' && r != '-'
		}) >= 0 {
			return nil, p.errorf("%v %q", errNumber, text)
		}
		v = f
	}
	if neg {
		v = -v
	}
	return v, nil
}
