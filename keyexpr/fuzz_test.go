package keyexpr

import (
	"errors"
	"testing"
)

// seeds are shared by the fuzz targets.
func seeds() []string {
	s := []string{
		"", "/", "a", "a/b", "a//b", "/a", "a/", "*", "**", "***", "$", "$*", "$*$*",
		"a$*$*$*b", "a/$*x$*$*", "**/**", "**/*", "**/*/**/*", "a/**/$*/**", "@a",
		"@a/**", "@a$*", "x/a$*d$*e", "a#", "a?b", "\xff", "日本/語$*", "*/**",
		"a/**/c/*/e/*", "**/xyz$*xyz", "$*@a", "a/*$*", "a/$**",
	}
	for _, tc := range matchCases {
		s = append(s, tc.ke, tc.key)
	}
	for _, tc := range pairCases {
		s = append(s, tc.a, tc.b)
	}
	return s
}

// FuzzCanonize checks that canonization is idempotent, that its result
// validates, that it agrees with Validate and New, and that nothing panics.
func FuzzCanonize(f *testing.F) {
	for _, s := range seeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := Canonize(s)
		verr := Validate(s)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Canonize(%q) error %v does not wrap ErrInvalid", s, err)
			}
			if verr == nil {
				t.Fatalf("Canonize(%q) failed (%v) but Validate accepts it", s, err)
			}
			if _, aerr := Autocanonize(s); aerr == nil {
				t.Fatalf("Autocanonize(%q) succeeded where Canonize failed", s)
			}
			return
		}
		if err := Validate(c); err != nil {
			t.Fatalf("Canonize(%q) = %q, which does not validate: %v", s, c, err)
		}
		if c2, err := Canonize(c); err != nil || c2 != c {
			t.Fatalf("Canonize not idempotent: %q -> %q -> %q, %v", s, c, c2, err)
		}
		if (verr == nil) != (c == s) {
			t.Fatalf("Validate(%q) = %v but Canonize gives %q", s, verr, c)
		}
		var e *Error
		if verr != nil && (!errors.As(verr, &e) || e.Canonical != c) {
			t.Fatalf("Validate(%q) = %v, want the canonical form %q in it", s, verr, c)
		}
		if k, err := Autocanonize(s); err != nil || k.String() != c {
			t.Fatalf("Autocanonize(%q) = %q, %v; want %q", s, k, err, c)
		}
		if !Includes(c, c) || !Intersects(c, c) {
			t.Fatalf("%q does not include or intersect itself", c)
		}
	})
}

// FuzzMatch checks the algebraic properties of Intersects and Includes on
// any pair of (canonized) expressions, and that raw input never panics.
func FuzzMatch(f *testing.F) {
	s := seeds()
	for i := range s {
		f.Add(s[i], s[(i*7+3)%len(s)])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a) > 64 || len(b) > 64 {
			t.Skip("long inputs only slow the search down")
		}
		Intersects(a, b) // must not panic on anything
		Includes(a, b)
		ca, err1 := Canonize(a)
		cb, err2 := Canonize(b)
		if err1 != nil || err2 != nil {
			return
		}
		inter, incl := Intersects(ca, cb), Includes(ca, cb)
		if inter != Intersects(cb, ca) {
			t.Fatalf("Intersects(%q, %q) = %v but not symmetric", ca, cb, inter)
		}
		if incl && !inter {
			t.Fatalf("Includes(%q, %q) but they do not intersect", ca, cb)
		}
		if incl && Includes(cb, ca) && ca != cb && !zenohConservative(ca, cb) && !zenohConservative(cb, ca) {
			t.Fatalf("%q and %q include each other but differ: canonical forms must be unique", ca, cb)
		}
		ka, kb := MustNew(ca), MustNew(cb)
		if ka.Intersects(kb) != inter || ka.Includes(kb) != incl {
			t.Fatalf("methods disagree with functions on %q, %q", ca, cb)
		}
		if !ka.IsWild() && !kb.IsWild() && (inter != (ca == cb) || incl != (ca == cb)) {
			t.Fatalf("two keys %q, %q: Intersects %v, Includes %v", ca, cb, inter, incl)
		}
	})
}

// FuzzReference compares Intersects and Includes on small expressions with
// the automaton-based reference of reference_test.go.
func FuzzReference(f *testing.F) {
	s := seeds()
	for i := range s {
		f.Add(s[i], s[(i*5+1)%len(s)])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a) > 20 || len(b) > 20 {
			t.Skip("the reference is exponential in the worst case")
		}
		ca, err1 := Canonize(a)
		cb, err2 := Canonize(b)
		if err1 != nil || err2 != nil {
			return
		}
		if got, want := Intersects(ca, cb), refIntersects(ca, cb); got != want {
			t.Fatalf("Intersects(%q, %q) = %v, reference says %v", ca, cb, got, want)
		}
		got, want := Includes(ca, cb), refIncludes(ca, cb)
		if got != want && !(want && zenohConservative(ca, cb)) {
			t.Fatalf("Includes(%q, %q) = %v, reference says %v", ca, cb, got, want)
		}
	})
}
