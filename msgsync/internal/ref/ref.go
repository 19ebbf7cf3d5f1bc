// Package ref is the test oracle of the approximate policy: an
// exhaustive search written from the policy's documented rule, which the
// tests of msgsync and of its ROS helpers compare the synchronizer with.
package ref

import (
	"math"
	"slices"
)

// Approximate is an independent, exhaustive reference of the
// approximate policy with unbounded queues, written from its documented
// rule rather than from its incremental search: topics[i] are the stamps
// of input i in order; the result is the sets, as message indices.
//
// After the previous set, every input's remaining messages are those after
// its message in that set. While the remaining heads (first remaining
// message of each input) span more than maxInterval, the earliest head
// (the lowest input on a tie) is dropped. Then the next set is, among all
// sets of remaining messages that are contiguous to the previous one (hold
// at least one head), the one of least cost, end*(1+p) - start with
// p = penNum/penDen, computed exactly in integers; ties go to the earliest
// start, then to the earliest messages. The search is a brute force over
// every combination.
func Approximate(topics [][]int64, maxInterval int64, penNum, penDen int64) [][]int {
	n := len(topics)
	pos := make([]int, n)
	var out [][]int
	for {
		for i := range n {
			if pos[i] >= len(topics[i]) {
				return out
			}
		}
		startIdx, endIdx := 0, 0
		for i := range n {
			if topics[i][pos[i]] < topics[startIdx][pos[startIdx]] {
				startIdx = i
			}
			if topics[i][pos[i]] > topics[endIdx][pos[endIdx]] {
				endIdx = i
			}
		}
		if topics[endIdx][pos[endIdx]]-topics[startIdx][pos[startIdx]] > maxInterval {
			pos[startIdx]++
			continue
		}
		var best []int
		var bestCost, bestStart int64
		cur := make([]int, n)
		var rec func(i int)
		rec = func(i int) {
			if i < n {
				for k := pos[i]; k < len(topics[i]); k++ {
					cur[i] = k
					rec(i + 1)
				}
				return
			}
			contiguous := false
			start, end := int64(math.MaxInt64), int64(math.MinInt64)
			for j := range n {
				if cur[j] == pos[j] {
					contiguous = true
				}
				start = min(start, topics[j][cur[j]])
				end = max(end, topics[j][cur[j]])
			}
			if !contiguous {
				return
			}
			cost := end*(penDen+penNum) - start*penDen
			switch {
			case best == nil, cost < bestCost,
				cost == bestCost && start < bestStart,
				cost == bestCost && start == bestStart && slices.Compare(cur, best) < 0:
				best, bestCost, bestStart = slices.Clone(cur), cost, start
			}
		}
		rec(0)
		out = append(out, best)
		for i := range n {
			pos[i] = best[i] + 1
		}
	}
}
