package ref

import (
	"math"
	"slices"
	"testing"
)

// TestApproximateByHand checks the oracle on sets worked out by hand.
func TestApproximateByHand(t *testing.T) {
	cases := []struct {
		name   string
		topics [][]int64
		maxInt int64
		want   [][]int
	}{
		// Heads 0 and 1: pivot 1 (input 1), best set with it (0, 1).
		// Then heads 2 and 5: pivot 5, sets (2,5) (3,5) (6,5): 6 is
		// closest; 2 and 3 are dropped.
		{"imperfect", [][]int64{{0, 2, 3, 6}, {1, 5}}, math.MaxInt64, [][]int{{0, 0}, {3, 1}}},
		// The second input's 7 pivots; (12, 7) beats (0, 7).
		{"acceleration", [][]int64{{0, 12, 17}, {7, 15, 18}}, math.MaxInt64, [][]int{{1, 0}, {2, 2}}},
		// Heads 0 and 100 are 100 apart: 0 is dropped, then 101 pairs.
		{"max interval", [][]int64{{0, 101}, {100}}, 5, [][]int{{1, 0}}},
		// Equal spans: the earlier set wins.
		{"tie", [][]int64{{0, 2}, {1}}, math.MaxInt64, [][]int{{0, 0}}},
	}
	for _, c := range cases {
		if got := Approximate(c.topics, c.maxInt, 0, 1); !slices.EqualFunc(got, c.want, slices.Equal) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
