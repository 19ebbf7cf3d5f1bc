package keyexpr

import (
	"errors"
	"strings"
	"testing"
)

// hostileChunks is the alphabet of FuzzHostile: literal, verbatim and
// wildcard chunks, with "$*" on either side and in the middle.
var hostileChunks = []string{"a", "b", "*", "**", "@v", "@w", "a$*", "$*a", "$*b$*", "ab", "$*ba", "a$*b"}

// hostileExpr builds a canonical key expression from shape, one chunk per
// byte (repeated by the byte's high bits, so that short inputs make long
// expressions), or "" when the result is not valid.
func hostileExpr(shape []byte) string {
	var parts []string
	for _, c := range shape {
		chunk := hostileChunks[int(c&15)%len(hostileChunks)]
		for range 1 + int(c>>6)*int(c>>6) {
			parts = append(parts, chunk)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	k, err := Autocanonize(strings.Join(parts, "/"))
	if err != nil {
		return ""
	}
	return k.String()
}

// FuzzHostile compares Intersects and Includes with the matcher they
// replaced (oldmatch_test.go, a memoised search over every pair of
// suffixes) on shapes made of many "**", verbatim chunks and "$*": the
// fast paths (one-sided "**", both-sided "**", "$*" on both sides) must
// give the same answers.
func FuzzHostile(f *testing.F) {
	f.Add([]byte{3, 0, 3, 0, 3, 1}, []byte{0, 0, 0, 0, 0, 0, 0, 2})
	f.Add([]byte{3, 4, 3}, []byte{3, 4, 3, 4})
	f.Add([]byte{3, 4, 0, 3}, []byte{0, 3, 4})
	f.Add([]byte{3, 0, 0, 1, 3}, []byte{0, 0, 0, 0, 0, 1})
	f.Add([]byte{6, 3, 7}, []byte{8, 3})
	f.Add([]byte{3, 0x40, 3, 0xc1}, []byte{0xc0, 0xc0, 1})
	f.Add([]byte{4, 3, 4}, []byte{3, 4, 5, 3})
	f.Fuzz(func(t *testing.T, x, y []byte) {
		if len(x) > 64 || len(y) > 64 {
			t.Skip("long shapes only slow the old matcher down")
		}
		a, b := hostileExpr(x), hostileExpr(y)
		if a == "" || b == "" {
			return
		}
		if got, want := Intersects(a, b), oldIntersects(a, b); got != want {
			t.Fatalf("Intersects(%q, %q) = %v, the old matcher says %v", a, b, got, want)
		}
		if got, want := Includes(a, b), oldIncludes(a, b); got != want {
			t.Fatalf("Includes(%q, %q) = %v, the old matcher says %v", a, b, got, want)
		}
		if got, want := Includes(b, a), oldIncludes(b, a); got != want {
			t.Fatalf("Includes(%q, %q) = %v, the old matcher says %v", b, a, got, want)
		}
	})
}

// FuzzOld compares Intersects and Includes with the old matcher on any
// pair of canonical expressions (FuzzMatch's inputs).
func FuzzOld(f *testing.F) {
	s := seeds()
	for i := range s {
		f.Add(s[i], s[(i*7+3)%len(s)])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a) > 256 || len(b) > 256 {
			t.Skip()
		}
		ca, err1 := Canonize(a)
		cb, err2 := Canonize(b)
		if err1 != nil || err2 != nil {
			return
		}
		if got, want := Intersects(ca, cb), oldIntersects(ca, cb); got != want {
			t.Fatalf("Intersects(%q, %q) = %v, the old matcher says %v", ca, cb, got, want)
		}
		if got, want := Includes(ca, cb), oldIncludes(ca, cb); got != want {
			t.Fatalf("Includes(%q, %q) = %v, the old matcher says %v", ca, cb, got, want)
		}
	})
}

// TestIssue17Shape runs the intersection of issue 17 (a 16,001-chunk
// subscriber against 32 KB keys, which took 8 s and 31 MB) and checks its
// answers and that it allocates nothing. Its time is in
// BenchmarkIntersectsHostile.
func TestIssue17Shape(t *testing.T) {
	sub, miss := issue17Sub(), issue17Key()
	hit := strings.Repeat("a/", 16383) + "b"
	if Intersects(sub, miss) || Intersects(miss, sub) || Includes(sub, miss) {
		t.Error("the issue-17 subscriber matches a key without b")
	}
	if !Intersects(sub, hit) || !Intersects(hit, sub) || !Includes(sub, hit) {
		t.Error("the issue-17 subscriber does not match a key ending in b")
	}
	if n := testing.AllocsPerRun(3, func() { Intersects(sub, miss) }); n != 0 {
		t.Errorf("Intersects allocates %v times on the issue-17 shape", n)
	}
	both := "**" + strings.Repeat("/a/**", 4000) + "/b"
	if !Intersects(both, "**/c/**/b") || Intersects(both, "**/c") {
		t.Error("wrong answer with \"**\" on both sides")
	}
}

func TestLimits(t *testing.T) {
	ok := []string{
		strings.Repeat("a", MaxLen),
		strings.TrimSuffix(strings.Repeat("a/", MaxChunks), "/"),
	}
	for _, s := range ok {
		if err := Validate(s); err != nil {
			t.Errorf("Validate(%d bytes) = %v, want nil at the limit", len(s), err)
		}
		if err := CheckLimits(s); err != nil {
			t.Errorf("CheckLimits(%d bytes) = %v", len(s), err)
		}
	}
	bad := []string{
		strings.Repeat("a", MaxLen+1),
		strings.TrimSuffix(strings.Repeat("a/", MaxChunks+1), "/"),
		strings.TrimSuffix(strings.Repeat("a/", 8001), "/"), // crashes the Rust stack
		strings.Repeat("**/", 3000) + "a",                   // canonical form is short, the input is not
	}
	for _, s := range bad {
		for name, err := range map[string]error{
			"Validate":     Validate(s),
			"CheckLimits":  CheckLimits(s),
			"New":          func() error { _, err := New(s); return err }(),
			"Autocanonize": func() error { _, err := Autocanonize(s); return err }(),
			"Canonize":     func() error { _, err := Canonize(s); return err }(),
		} {
			if !errors.Is(err, ErrTooLong) || !errors.Is(err, ErrInvalid) {
				t.Errorf("%s(%d bytes) = %v, want ErrTooLong and ErrInvalid", name, len(s), err)
				continue
			}
			if msg := err.Error(); len(msg) > 300 || !strings.Contains(msg, "more than Max") {
				t.Errorf("%s: message %q: want a short one naming the limit", name, msg)
			}
		}
	}
}

// TestAtLimitsShapes checks the answers on the benchmarks' shapes at the
// limits (the verbatim one takes the memoised search).
func TestAtLimitsShapes(t *testing.T) {
	a := "**" + strings.Repeat("/@v/**", 127)
	for _, c := range []struct {
		b    string
		want bool
	}{
		{"**/" + strings.Repeat("@v/", 128) + "**", false},
		{"**/" + strings.Repeat("@v/", 127) + "c/**", true},
		{"**/" + strings.Repeat("@v/", 100) + "@w/**", false},
	} {
		if err := Validate(c.b); err != nil {
			t.Fatal(err)
		}
		if got := Intersects(a, c.b); got != c.want || got != oldIntersects(a, c.b) {
			t.Errorf("Intersects(%.20q..., %.20q...) = %v, want %v", a, c.b, got, c.want)
		}
	}
}
