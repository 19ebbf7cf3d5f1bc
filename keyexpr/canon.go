package keyexpr

import (
	"strconv"
	"strings"
)

// Canonize returns the canonical form of s, or an error wrapping
// [ErrInvalid] when even the canonical form is not a valid key expression.
// An s that is already canonical is returned as is, without allocating.
//
// The rewrites are: a run of "$*" inside a chunk becomes one "$*"; a chunk
// that is only "$*" becomes "*"; a run of consecutive wildcard chunks becomes
// its "*" chunks followed by a single "**" if the run held any "**"
// (so "**/**" is "**", "**/*" is "*/**" and "**/*/**/*" is "*/*/**").
func Canonize(s string) (string, error) {
	c, err := canonize(s)
	if err != nil {
		return "", err
	}
	return c, nil
}

// canonize rewrites s to canonical form and validates the result.
func canonize(s string) (string, *Error) {
	if validate(s, true) == nil {
		return s, nil
	}
	if err := validate(s, false); err != nil {
		return "", err // a problem that no rewrite can fix
	}
	c := rewrite(s)
	if err := validate(c, true); err != nil {
		// Unreachable if rewrite is right; report it rather than panic.
		err.Reason = "canonical form " + strconv.Quote(c) + " is invalid: " + err.Reason
		err.Expr, err.Chunk, err.Offset = s, -1, 0
		return "", err
	}
	return c, nil
}

// rewrite applies the canonical rewrites to s without validating anything.
// Empty chunks are kept, so that validation still reports them.
func rewrite(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	first := true
	emit := func(c string) {
		if !first {
			b.WriteByte('/')
		}
		first = false
		b.WriteString(c)
	}
	stars, double := 0, false
	flush := func() {
		for ; stars > 0; stars-- {
			emit("*")
		}
		if double {
			emit("**")
			double = false
		}
	}
	for c := range strings.SplitSeq(s, "/") {
		c = collapseDollarStars(c)
		switch c {
		case "*", "$*":
			stars++
			continue
		case "**":
			double = true
			continue
		}
		flush()
		emit(c)
	}
	flush()
	return b.String()
}

// collapseDollarStars replaces every run of "$*" in c by a single "$*".
func collapseDollarStars(c string) string {
	if !strings.Contains(c, "$*$*") {
		return c
	}
	var b strings.Builder
	b.Grow(len(c))
	for i := 0; i < len(c); i++ {
		if c[i] == '$' && i+1 < len(c) && c[i+1] == '*' {
			b.WriteString("$*")
			i += 2
			for i+1 < len(c) && c[i] == '$' && c[i+1] == '*' {
				i += 2
			}
			i-- // the loop's i++ moves to the next unread byte
			continue
		}
		b.WriteByte(c[i])
	}
	return b.String()
}
