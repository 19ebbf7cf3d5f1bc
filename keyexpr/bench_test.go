package keyexpr

import (
	"strings"
	"testing"
)

// The benchmarks put each matcher next to the primitive below it: a string
// comparison of the same inputs (what an exact-key subscription costs) and a
// strings.HasPrefix (what a naive prefix filter costs).

var benchPairs = []struct{ name, sub, key string }{
	{"exact", "robot/1/sensors/imu", "robot/1/sensors/imu"},
	{"star", "robot/*/sensors/imu", "robot/1/sensors/imu"},
	{"doublestar", "robot/**", "robot/1/sensors/imu"},
	{"doublestar-mid", "robot/**/imu", "robot/1/sensors/imu"},
	{"subchunk", "robot/1/sensors/i$*u", "robot/1/sensors/imu"},
	{"miss", "robot/*/sensors/gps", "robot/1/sensors/imu"},
	{"wild-wild", "robot/**/imu", "robot/*/sensors/**"},
	// Hostile declarations: exponential without the failure memo.
	{"hostile-doublestar", "**/a/**/a/**/a/**/a/**/a/**/a/**/b", strings.TrimSuffix(strings.Repeat("a/", 40), "/")},
	{"hostile-subchunk", "$*a$*a$*a$*a$*a$*a$*b", strings.Repeat("a", 40) + "c"},
}

var sink bool

func BenchmarkIntersects(b *testing.B) {
	for _, p := range benchPairs {
		sub, key := strings.Clone(p.sub), strings.Clone(p.key)
		b.Run(p.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sink = Intersects(sub, key)
			}
		})
	}
}

func BenchmarkIncludes(b *testing.B) {
	for _, p := range benchPairs {
		sub, key := strings.Clone(p.sub), strings.Clone(p.key)
		b.Run(p.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sink = Includes(sub, key)
			}
		})
	}
}

// BenchmarkStringEqual is the floor: comparing two equal, distinct strings
// of the same length as the keys above.
func BenchmarkStringEqual(b *testing.B) {
	x, y := strings.Clone("robot/1/sensors/imu"), strings.Clone("robot/1/sensors/imu")
	b.ReportAllocs()
	for b.Loop() {
		sink = x == y
	}
}

func BenchmarkHasPrefix(b *testing.B) {
	x, y := strings.Clone("robot/1/sensors/imu"), strings.Clone("robot/")
	b.ReportAllocs()
	for b.Loop() {
		sink = strings.HasPrefix(x, y)
	}
}

func BenchmarkValid(b *testing.B) {
	s := strings.Clone("robot/*/sensors/i$*u/**")
	b.ReportAllocs()
	for b.Loop() {
		sink = Valid(s)
	}
}
