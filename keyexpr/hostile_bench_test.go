package keyexpr

import (
	"strings"
	"testing"
)

// issue17Sub is the subscriber of issue 17: "**/a/**/a/.../**/a/b", 16,001
// chunks and 40 KB.
func issue17Sub() string {
	return "**" + strings.Repeat("/a/**", 7999) + "/a/b"
}

// issue17Key is a 32 KB key of 16,384 chunks, "a/a/.../a/c", which the
// subscriber does not match (the worst case for a search that backtracks).
func issue17Key() string {
	return strings.Repeat("a/", 16383) + "c"
}

// BenchmarkIntersectsHostile runs the intersection on the inputs of issue
// 17 (far beyond MaxChunks: Intersects itself takes any size) and on
// other shapes that defeat naive matchers.
func BenchmarkIntersectsHostile(b *testing.B) {
	for _, c := range hostileCases() {
		x, y := strings.Clone(c.a), strings.Clone(c.b)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sink = Intersects(x, y)
			}
		})
	}
}

// BenchmarkIncludesHostile is BenchmarkIntersectsHostile for Includes.
func BenchmarkIncludesHostile(b *testing.B) {
	for _, c := range hostileCases() {
		x, y := strings.Clone(c.a), strings.Clone(c.b)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sink = Includes(x, y)
			}
		})
	}
}

// BenchmarkIntersectsAtLimits runs the hostile shapes cut to MaxChunks.
func BenchmarkIntersectsAtLimits(b *testing.B) {
	cases := []struct{ name, a, b string }{
		{"doublestar-one-side", "**" + strings.Repeat("/a/**", 126) + "/a/b", strings.Repeat("a/", MaxChunks-1) + "c"},
		{"doublestar-verbatim", "**" + strings.Repeat("/@v/**", 127), "**/" + strings.Repeat("@v/", 128) + "**"},
		{"segments", "**/" + strings.Repeat("a/", 100) + "b/**", strings.Repeat("a/", MaxChunks-1) + "c"},
		{"segments-wild", "**/" + strings.Repeat("*/", 100) + "b/**", strings.Repeat("a/", MaxChunks-1) + "c"},
	}
	for _, c := range cases {
		x, y := strings.Clone(c.a), strings.Clone(c.b)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sink = Intersects(x, y)
			}
		})
	}
}

// hostileCases are the shapes of the hostile benchmarks.
func hostileCases() []struct{ name, a, b string } {
	return []struct{ name, a, b string }{
		{"issue17", issue17Sub(), issue17Key()},
		{"issue17-match", issue17Sub(), strings.Repeat("a/", 16383) + "b"},
		{"doublestar-both", "**" + strings.Repeat("/a/**", 2000) + "/b", "**" + strings.Repeat("/a/**", 2000) + "/c"},
		{"segments", "**/" + strings.Repeat("a/", 200) + "b/**", strings.Repeat("a/", 4000) + "c"},
	}
}
