package msgsync_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/afor-go/afor/msgsync"
)

// TestExact: a set comes out when every input has the stamp; older
// incomplete sets are dropped then and counted; the queue size bounds the
// stamps waiting.
func TestExact(t *testing.T) {
	cases := []struct {
		name        string
		n, queue    int
		in          []in
		want        [][]int64
		dropped     []uint64
		droppedSets uint64
		pending     []int
	}{
		{
			name: "in step", n: 2, queue: 10,
			in:      []in{{0, 1}, {1, 1}, {1, 2}, {0, 2}, {0, 3}},
			want:    [][]int64{{1, 1}, {2, 2}},
			dropped: []uint64{0, 0}, pending: []int{1, 0},
		},
		{
			name: "lost messages", n: 2, queue: 10,
			// 2 lost on input 1, 4 on input 0: dropped when 3 and 5 come out.
			in:      []in{{0, 1}, {0, 2}, {1, 1}, {0, 3}, {1, 3}, {1, 4}, {1, 5}, {0, 5}},
			want:    [][]int64{{1, 1}, {3, 3}, {5, 5}},
			dropped: []uint64{1, 1}, droppedSets: 2, pending: []int{0, 0},
		},
		{
			name: "one input late", n: 2, queue: 10,
			in:      []in{{0, 1}, {0, 2}, {0, 3}, {1, 1}, {1, 2}, {1, 3}},
			want:    [][]int64{{1, 1}, {2, 2}, {3, 3}},
			dropped: []uint64{0, 0}, pending: []int{0, 0},
		},
		{
			name: "queue overflow", n: 2, queue: 2,
			// Stamps 1 and 2 wait; 3 drops 1; the late 1 on input 1 makes
			// a new oldest set, dropped at once; 3 completes and drops 2.
			in:      []in{{0, 1}, {0, 2}, {0, 3}, {1, 1}, {1, 3}},
			want:    [][]int64{{3, 3}},
			dropped: []uint64{2, 1}, droppedSets: 3, pending: []int{0, 0},
		},
		{
			name: "stamp at or before the last set", n: 2, queue: 10,
			in:      []in{{0, 5}, {1, 5}, {0, 4}, {1, 5}, {1, 4}},
			want:    [][]int64{{5, 5}},
			dropped: []uint64{1, 2}, pending: []int{0, 0},
		},
		{
			name: "same stamp twice on an input", n: 2, queue: 10,
			in:      []in{{0, 7}, {0, 7}, {1, 7}},
			want:    [][]int64{{7, 7}},
			dropped: []uint64{1, 0}, pending: []int{0, 0},
		},
		{
			name: "three inputs", n: 3, queue: 10,
			in:      []in{{0, 1}, {1, 1}, {0, 2}, {2, 2}, {1, 2}, {2, 1}},
			want:    [][]int64{{2, 2, 2}},
			dropped: []uint64{1, 1, 1}, droppedSets: 1, pending: []int{0, 0, 0},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, false, c.n, msgsync.QueueSize(c.queue))
			h.feed(c.in...)
			if got := h.stamps(); !slices.EqualFunc(got, c.want, slices.Equal) {
				t.Errorf("sets %v, want %v", fmtSets(got), fmtSets(c.want))
			}
			st := h.checkStats()
			if !slices.Equal(st.Dropped, c.dropped) || st.DroppedSets != c.droppedSets || !slices.Equal(st.Pending, c.pending) {
				t.Errorf("stats %+v, want dropped %v, dropped sets %d, pending %v", st, c.dropped, c.droppedSets, c.pending)
			}
		})
	}
}

// TestExactRandom: on random streams with losses and delays, the exact
// synchronizer emits, in stamp order, exactly the stamps that every input
// has, when the queue is large enough for the delays.
func TestExactRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for it := range 500 {
		n := 2 + it%3
		have := map[int64]int{}
		var arrivals []in
		next := make([]int, n)
		stamps := make([][]int64, n)
		for i := range n {
			for st := int64(0); st < 40; st++ {
				if r.IntN(4) != 0 {
					stamps[i] = append(stamps[i], st)
					have[st]++
				}
			}
		}
		for {
			i := r.IntN(n)
			if next[i] == len(stamps[i]) {
				done := true
				for j := range n {
					done = done && next[j] == len(stamps[j])
				}
				if done {
					break
				}
				continue
			}
			arrivals = append(arrivals, in{i, stamps[i][next[i]]})
			next[i]++
		}
		var want [][]int64
		for st := int64(0); st < 40; st++ {
			if have[st] == n {
				want = append(want, slices.Repeat([]int64{st}, n))
			}
		}
		h := newHarness(t, false, n, msgsync.QueueSize(100))
		h.feed(arrivals...)
		if got := h.stamps(); !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("iteration %d: sets %v, want %v", it, fmtSets(got), fmtSets(want))
		}
		h.checkStats()
	}
}

// TestExactTyped: Exact and Exact3 pair typed values.
func TestExactTyped(t *testing.T) {
	h := newHarness(t, false, 3)
	var pairs []msgsync.Pair[msg, msg]
	p := msgsync.Exact(msgsync.In(h.subs[0], msgStamp), msgsync.In(h.subs[1], msgStamp))
	defer p.Close()
	p.OnInput(func(v msgsync.Pair[msg, msg]) { pairs = append(pairs, v) })
	var triples []msgsync.Triple[msg, msg, msg]
	tr := msgsync.Exact3(msgsync.In(h.subs[0], msgStamp), msgsync.In(h.subs[1], msgStamp), msgsync.In(h.subs[2], msgStamp))
	defer tr.Close()
	tr.OnInput(func(v msgsync.Triple[msg, msg, msg]) { triples = append(triples, v) })
	h.feed(in{0, 1}, in{1, 1}, in{2, 2}, in{1, 2}, in{0, 2})
	if len(pairs) != 2 || pairs[0].A.stamp != 1 || pairs[1].B.stamp != 2 || pairs[1].A.topic != 0 || pairs[1].B.topic != 1 {
		t.Errorf("pairs %v", pairs)
	}
	if len(triples) != 1 || triples[0].C.stamp != 2 || triples[0].C.topic != 2 {
		t.Errorf("triples %v", triples)
	}
}
