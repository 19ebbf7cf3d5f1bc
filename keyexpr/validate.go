package keyexpr

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrInvalid is the sentinel wrapped by every validation failure. Test for it
// with errors.Is; use errors.As with *[Error] for the details.
var ErrInvalid = errors.New("keyexpr: invalid key expression")

// Error describes why a string is not a valid canonical key expression.
// It wraps [ErrInvalid].
type Error struct {
	// Expr is the rejected input.
	Expr string
	// Chunk is the 0-based index of the offending chunk, or -1 when the
	// whole expression is at fault (empty string, invalid UTF-8).
	Chunk int
	// Offset is the byte offset in Expr of the offending character or of
	// the start of the offending chunk.
	Offset int
	// Reason says what rule was broken.
	Reason string
	// Canonical is the canonical form of Expr when Expr is only
	// non-canonical (canonizing it gives a valid key expression), else "".
	Canonical string

	tooLong bool // over MaxLen or MaxChunks: Unwrap gives ErrTooLong
}

// Error implements the error interface.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(ErrInvalid.Error())
	b.WriteByte(' ')
	b.WriteString(quoteExpr(e.Expr))
	if e.Chunk >= 0 {
		b.WriteString(": chunk ")
		b.WriteString(strconv.Itoa(e.Chunk))
		b.WriteString(" (")
		b.WriteString(quoteExpr(chunkAt(e.Expr, e.Chunk)))
		b.WriteByte(')')
	}
	b.WriteString(": ")
	b.WriteString(e.Reason)
	if e.Canonical != "" {
		b.WriteString("; the canonical form is ")
		b.WriteString(quoteExpr(e.Canonical))
	}
	return b.String()
}

// Unwrap returns [ErrInvalid], or [ErrTooLong] (which wraps it) for an
// expression over [MaxLen] or [MaxChunks].
func (e *Error) Unwrap() error {
	if e.tooLong {
		return ErrTooLong
	}
	return ErrInvalid
}

// chunkAt returns the i-th '/'-separated chunk of s, or "" if there is none.
func chunkAt(s string, i int) string {
	for ; i > 0; i-- {
		_, rest, ok := strings.Cut(s, "/")
		if !ok {
			return ""
		}
		s = rest
	}
	c, _, _ := strings.Cut(s, "/")
	return c
}

// Validate reports whether s is a valid canonical key expression. A non-nil
// result is an *[Error] wrapping [ErrInvalid]; when s is only non-canonical,
// the error carries its canonical form.
func Validate(s string) error {
	err := validate(s, true)
	if err == nil {
		return nil
	}
	if lerr := validate(s, false); lerr != nil {
		return lerr // a problem canonization cannot fix: report that one
	}
	if c, cerr := canonize(s); cerr == nil {
		err.Canonical = c
	}
	return err
}

// Valid reports whether s is a valid canonical key expression, without
// building an error.
func Valid(s string) bool { return validate(s, true) == nil }

// wild-chunk kinds, used to reject non-canonical runs of wildcard chunks.
const (
	kindPlain = iota
	kindStar
	kindDoubleStar
)

// validate checks s against the canonical key-expression grammar and returns
// the first violation (without the Canonical field filled in).
//
// When strict is false, only the rules that canonization cannot fix are
// checked: that lets [canonize] report the real problem of an input such as
// "**/**/a#" instead of its non-canonical parts.
func validate(s string, strict bool) *Error {
	if s == "" {
		return &Error{Expr: s, Chunk: -1, Reason: "empty key expression"}
	}
	if err := checkLimits(s); err != nil {
		return err
	}
	if !utf8.ValidString(s) {
		return &Error{Expr: s, Chunk: -1, Offset: firstInvalidUTF8(s), Reason: "not valid UTF-8"}
	}
	prev := kindPlain
	chunk, start := 0, 0
	for start <= len(s) {
		end := strings.IndexByte(s[start:], '/')
		if end < 0 {
			end = len(s)
		} else {
			end += start
		}
		c := s[start:end]
		fail := func(off int, reason string) *Error {
			return &Error{Expr: s, Chunk: chunk, Offset: off, Reason: reason}
		}
		switch c {
		case "":
			return fail(start, "empty chunk (leading, trailing or doubled '/')")
		case "*":
			if strict && prev == kindDoubleStar {
				return fail(start, `"**/*" is not canonical, write "*/**"`)
			}
			prev = kindStar
		case "**":
			if strict && prev == kindDoubleStar {
				return fail(start, `"**/**" is not canonical, write "**"`)
			}
			prev = kindDoubleStar
		default:
			prev = kindPlain
			if err := validateChunk(c, strict); err != nil {
				err.Expr, err.Chunk = s, chunk
				err.Offset += start
				return err
			}
		}
		chunk++
		start = end + 1
	}
	return nil
}

// validateChunk checks a chunk that is neither "*" nor "**". The returned
// error's Offset is relative to the chunk.
func validateChunk(c string, strict bool) *Error {
	for i := 0; i < len(c); i++ {
		switch c[i] {
		case '#', '?':
			return &Error{Offset: i, Reason: "forbidden character " + strconv.QuoteRune(rune(c[i]))}
		case '*':
			if i == 0 {
				return &Error{Offset: i, Reason: `'*' must be a whole chunk ("*" or "**") or follow '$'`}
			}
			return &Error{Offset: i, Reason: `'*' may only appear as a whole chunk or in "$*"`}
		case '$':
			if i+1 >= len(c) || c[i+1] != '*' {
				return &Error{Offset: i, Reason: `'$' is only allowed in "$*"`}
			}
			if strict && i+2 < len(c) && c[i+2] == '$' {
				return &Error{Offset: i + 2, Reason: `'$' may not follow "$*" ("$*$*" is not canonical, write "$*")`}
			}
			if strict && len(c) == 2 {
				return &Error{Offset: i, Reason: `a chunk that is only "$*" is not canonical, write "*"`}
			}
			i++ // skip the '*'
		}
	}
	return nil
}

// firstInvalidUTF8 returns the byte offset of the first invalid UTF-8
// sequence in s.
func firstInvalidUTF8(s string) int {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return i
			}
		}
	}
	return len(s)
}
