package tf2

import "testing"

// BenchmarkFloorChain10 is the arithmetic of a 10-link interpolated lookup
// with nothing else: 10 lerps, slerps and compositions, then the inverse
// of one side (the floor BenchmarkLookupChain10 compares with).
func BenchmarkFloorChain10(b *testing.B) {
	var links [10][2]xform
	for i := range links {
		links[i][0] = xform{t: vec3{float64(i), 1, 0}, q: normalized(quat{0, 0, 0.1 * float64(i), 1})}
		links[i][1] = xform{t: vec3{float64(i) + 0.1, 1, 0}, q: normalized(quat{0, 0, 0.1*float64(i) + 0.01, 1})}
	}
	var sink xform
	for b.Loop() {
		acc := identity
		for i := range links {
			acc = xform{t: lerp(links[i][0].t, links[i][1].t, 0.5), q: slerp(links[i][0].q, links[i][1].q, 0.5)}.mul(acc)
		}
		sink = identity.inverse().mul(acc)
	}
	_ = sink
}
