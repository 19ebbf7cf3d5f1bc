package keyexpr

import "strings"

// KeyExpr is a valid, canonical key expression. Values are immutable and
// comparable with ==, which is key-expression equality because the form is
// canonical.
//
// The zero KeyExpr is not a valid key expression: its String is "" and it
// neither intersects nor includes anything.
type KeyExpr struct {
	s string
}

// New returns s as a KeyExpr if s is a valid canonical key expression.
// Otherwise the error is an *[Error] wrapping [ErrInvalid]; when s is only
// non-canonical, the error names its canonical form (see [Autocanonize]).
func New(s string) (KeyExpr, error) {
	if err := Validate(s); err != nil {
		return KeyExpr{}, err
	}
	return KeyExpr{s: s}, nil
}

// MustNew is like [New] but panics on an invalid expression. It is meant for
// constants in programs and tests.
func MustNew(s string) KeyExpr {
	k, err := New(s)
	if err != nil {
		panic(err)
	}
	return k
}

// Autocanonize canonizes s (see [Canonize]) and returns the result as a
// KeyExpr, or an error wrapping [ErrInvalid] when s is not a key expression
// even after canonization.
func Autocanonize(s string) (KeyExpr, error) {
	c, err := canonize(s)
	if err != nil {
		return KeyExpr{}, err
	}
	return KeyExpr{s: c}, nil
}

// String returns the canonical text of k.
func (k KeyExpr) String() string { return k.s }

// IsZero reports whether k is the zero KeyExpr.
func (k KeyExpr) IsZero() bool { return k.s == "" }

// IsWild reports whether k contains a wildcard ("*", "**" or "$*"), that is
// whether it may denote more than one key.
func (k KeyExpr) IsWild() bool { return strings.IndexByte(k.s, '*') >= 0 }

// Intersects reports whether at least one key is matched by both k and o.
// See the package-level [Intersects].
func (k KeyExpr) Intersects(o KeyExpr) bool {
	if k.s == "" || o.s == "" {
		return false
	}
	return Intersects(k.s, o.s)
}

// Includes reports whether every key matched by o is also matched by k.
// See the package-level [Includes].
func (k KeyExpr) Includes(o KeyExpr) bool {
	if k.s == "" || o.s == "" {
		return false
	}
	return Includes(k.s, o.s)
}

// Join returns the canonical form of k + "/" + suffix. The suffix may hold
// several chunks and wildcards: joining "b/$*" onto "a" gives "a/b/*".
func (k KeyExpr) Join(suffix string) (KeyExpr, error) {
	return Autocanonize(k.s + "/" + suffix)
}
