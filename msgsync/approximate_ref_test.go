package msgsync_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/afor-go/afor/msgsync"
	"github.com/afor-go/afor/msgsync/internal/ref"
)

// sequence is a recorded-style input: per-input stamps in order, and the
// order in which the messages arrive.
type sequence struct {
	topics   [][]int64
	arrivals []in
}

// genSequence makes a sequence of n inputs: sensors at their own period
// and phase, with stamp jitter, lost messages, and per-input transport
// delays with jitter, so that inputs interleave out of stamp order (each
// input's messages still arrive in their order). One sequence in three
// uses small integer stamps, where equal stamps (within an input too) are
// common. Every input ends with a message at the same, far later stamp.
func genSequence(r *rand.Rand, n, perInput int) sequence {
	small := r.IntN(3) == 0
	type timed struct {
		at  float64
		in  in
		idx int
	}
	var all []timed
	topics := make([][]int64, n)
	var last int64
	for i := range n {
		period := 5 + r.Float64()*40
		phase := r.Float64() * period
		jitter := r.Float64() * period / 3
		loss := r.Float64() * 0.3
		delay := r.Float64() * 60
		delayJitter := r.Float64() * 30
		count := 1 + r.IntN(perInput)
		var stamps []int64
		for k := 0; len(stamps) < count; k++ {
			if r.Float64() < loss {
				continue
			}
			var st int64
			if small {
				st = int64(r.IntN(4*perInput + 1))
			} else {
				st = int64(phase + float64(k)*period + (r.Float64()-0.5)*jitter)
			}
			stamps = append(stamps, st)
		}
		slices.Sort(stamps)
		topics[i] = stamps
		at := 0.0
		for k, st := range stamps {
			at = max(at, float64(st)+delay+r.Float64()*delayJitter)
			all = append(all, timed{at: at, in: in{i, st}, idx: k})
			last = max(last, st)
		}
	}
	sort.SliceStable(all, func(a, b int) bool {
		if all[a].at != all[b].at {
			return all[a].at < all[b].at
		}
		return all[a].in.topic < all[b].in.topic
	})
	seq := sequence{topics: topics}
	for _, a := range all {
		seq.arrivals = append(seq.arrivals, a.in)
	}
	end := last + 1000
	for i := range n {
		seq.topics[i] = append(seq.topics[i], end)
		seq.arrivals = append(seq.arrivals, in{i, end})
	}
	return seq
}

// reshuffle returns another arrival order of seq: each input's messages
// keep their order.
func (seq sequence) reshuffle(r *rand.Rand) []in {
	next := make([]int, len(seq.topics))
	var out []in
	for len(out) < len(seq.arrivals) {
		i := r.IntN(len(seq.topics))
		if next[i] == len(seq.topics[i]) {
			continue
		}
		out = append(out, in{i, seq.topics[i][next[i]]})
		next[i]++
	}
	return out
}

func refStamps(topics [][]int64, sets [][]int) [][]int64 {
	out := make([][]int64, len(sets))
	for k, set := range sets {
		for i, idx := range set {
			out[k] = append(out[k], topics[i][idx])
		}
	}
	return out
}

// refIndices returns the message indices (seq) of the synchronizer's sets.
func refIndices(sets [][]msg) [][]int {
	out := make([][]int, len(sets))
	for k, set := range sets {
		for _, m := range set {
			out[k] = append(out[k], m.seq)
		}
	}
	return out
}

// TestApproximateAgainstReference compares the synchronizer with the
// exhaustive reference on thousands of random recorded-style sequences
// of 2 to 4 inputs, with queues large enough never to drop: the same sets
// of the same messages, whatever the arrival order; the same again with
// every input's true minimal stamp gap as its inter-message lower bound
// (which must change only how soon sets come out: never later); with an
// age penalty; and with a maximal interval.
func TestApproximateAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	iterations := 3000
	if testing.Short() {
		iterations = 300
	}
	for it := range iterations {
		n := 2 + it%3
		perInput := []int{12, 8, 6}[n-2]
		seq := genSequence(r, n, perInput)
		run := func(arrivals []in, opts ...msgsync.Option) *harness {
			h := newHarness(t, true, n, append([]msgsync.Option{msgsync.QueueSize(100)}, opts...)...)
			h.feed(arrivals...)
			return h
		}
		check := func(what string, h *harness, want [][]int) {
			t.Helper()
			if got := refIndices(h.sets); !slices.EqualFunc(got, want, slices.Equal) {
				t.Fatalf("iteration %d, %s: topics %v arrivals %v:\n got %v\nwant %v", it, what, seq.topics, seq.arrivals,
					fmtSets(setStamps(h.sets)), fmtSets(refStamps(seq.topics, want)))
			}
			st := h.checkStats()
			for i, p := range st.Pending {
				if p != 0 {
					t.Fatalf("iteration %d, %s: input %d still has %d pending after the final stamps", it, what, i, p)
				}
			}
		}

		want := ref.Approximate(seq.topics, math.MaxInt64, 0, 1)
		plain := run(seq.arrivals)
		check("in arrival order", plain, want)
		check("another arrival order", run(seq.reshuffle(r)), want)

		var bounds []msgsync.Option
		for i, stamps := range seq.topics {
			gap := int64(math.MaxInt64)
			for k := 1; k < len(stamps); k++ {
				gap = min(gap, stamps[k]-stamps[k-1])
			}
			if gap == math.MaxInt64 {
				continue
			}
			bounds = append(bounds, msgsync.InterMessageLowerBound(i, time.Duration(gap)))
		}
		bounded := run(seq.arrivals, bounds...)
		check("with lower bounds", bounded, want)
		for k := range want {
			if bounded.whenAt[k] > plain.whenAt[k] {
				t.Fatalf("iteration %d: with lower bounds, set %d came out after arrival %d, without after %d",
					it, k, bounded.whenAt[k], plain.whenAt[k])
			}
		}

		// A penalty whose binary value is exact, as the reference's is.
		penNum, penDen := int64(1+r.IntN(8)), int64(1)<<r.IntN(4)
		check("with an age penalty", run(seq.arrivals, msgsync.AgePenalty(float64(penNum)/float64(penDen))),
			ref.Approximate(seq.topics, math.MaxInt64, penNum, penDen))

		maxInterval := int64(r.IntN(30))
		check("with a max interval", run(seq.arrivals, msgsync.MaxInterval(time.Duration(maxInterval))),
			ref.Approximate(seq.topics, maxInterval, 0, 1))
	}
}

// TestApproximateGuarantees checks message_filters' documented guarantees
// where the reference does not apply (small queues that drop messages,
// inputs out of order): every message is in at most one set; sets do not
// cross; no set spans more than MaxInterval; no input keeps more than the
// queue size; and every message is counted as in a set, dropped or
// pending.
func TestApproximateGuarantees(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	iterations := 3000
	if testing.Short() {
		iterations = 300
	}
	for it := range iterations {
		n := 2 + it%3
		seq := genSequence(r, n, 12)
		arrivals := seq.arrivals
		if it%4 == 0 {
			// Swap a few neighbours of the same input: out of order.
			for range 3 {
				k := r.IntN(len(arrivals) - 1)
				for j := k + 1; j < len(arrivals); j++ {
					if arrivals[j].topic == arrivals[k].topic {
						arrivals[k].stamp, arrivals[j].stamp = arrivals[j].stamp, arrivals[k].stamp
						break
					}
				}
			}
		}
		queue := 1 + r.IntN(5)
		maxInterval := int64(5 + r.IntN(40))
		h := newHarness(t, true, n, msgsync.QueueSize(queue), msgsync.MaxInterval(time.Duration(maxInterval)),
			msgsync.AgePenalty(float64(r.IntN(3))/2))
		for _, a := range arrivals {
			h.feed(a)
			for i, p := range h.sync.Stats().Pending {
				if p > queue {
					t.Fatalf("iteration %d: input %d keeps %d messages, queue size %d", it, i, p, queue)
				}
			}
		}
		for k, set := range h.sets {
			lo, hi := set[0].stamp, set[0].stamp
			for i, m := range set {
				if m.topic != i {
					t.Fatalf("iteration %d: set %d has %v at input %d", it, k, m, i)
				}
				lo, hi = min(lo, m.stamp), max(hi, m.stamp)
				if k > 0 && m.seq <= h.sets[k-1][i].seq {
					t.Fatalf("iteration %d: sets %v then %v reuse or cross on input %d", it, h.sets[k-1], set, i)
				}
			}
			if hi-lo > maxInterval {
				t.Fatalf("iteration %d: set %v spans %d > max interval %d", it, set, hi-lo, maxInterval)
			}
		}
		h.checkStats()
	}
}
