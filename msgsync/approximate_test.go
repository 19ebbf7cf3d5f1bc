package msgsync_test

import (
	"slices"
	"testing"
	"time"

	"github.com/afor-go/afor/msgsync"
)

const sec = int64(time.Second)

// TestApproximatePublished runs the scenarios of message_filters' own
// ApproximateTime tests (test/test_approximate_time_policy.cpp in
// ros2/message_filters: stamps in seconds, arrival order, queue size,
// bounds, and the sets the C++ policy emits), plus, where worked out by
// hand from the algorithm, after which arrival each set comes out.
func TestApproximatePublished(t *testing.T) {
	type lb struct {
		input int
		d     time.Duration
	}
	cases := []struct {
		name   string
		n      int
		queue  int
		bounds []lb
		in     []in // stamps in seconds
		want   [][]int64
		whenAt []int // arrivals fed when each set came out (nil: not checked)
	}{
		{
			name: "exact match", n: 2, queue: 10,
			in:     []in{{0, 0}, {1, 0}, {0, 3}, {1, 3}, {0, 6}, {1, 6}},
			want:   [][]int64{{0, 0}, {3, 3}, {6, 6}},
			whenAt: []int{2, 4, 6},
		},
		{
			name: "perfect match", n: 2, queue: 10,
			in:     []in{{0, 0}, {1, 1}, {0, 3}, {1, 4}, {0, 6}, {1, 7}},
			want:   [][]int64{{0, 1}, {3, 4}},
			whenAt: []int{3, 5},
		},
		{
			name: "imperfect match", n: 2, queue: 10,
			in:   []in{{0, 0}, {1, 1}, {0, 2}, {0, 3}, {1, 5}, {0, 6}, {1, 7}},
			want: [][]int64{{0, 1}, {6, 5}},
		},
		{
			name: "acceleration", n: 2, queue: 10,
			in:   []in{{0, 0}, {1, 7}, {0, 12}, {1, 15}, {0, 17}, {1, 18}},
			want: [][]int64{{12, 7}, {17, 18}},
		},
		{
			name: "dropped messages, queue too small", n: 2, queue: 1,
			in:   []in{{0, 0}, {1, 1}, {1, 3}, {0, 4}, {1, 7}, {0, 8}, {0, 10}, {1, 11}, {0, 13}, {1, 14}},
			want: [][]int64{{4, 3}, {10, 11}},
		},
		{
			name: "dropped messages, queue just enough", n: 2, queue: 2,
			in:   []in{{0, 0}, {1, 1}, {1, 3}, {0, 4}, {1, 7}, {0, 8}, {0, 10}, {1, 11}, {0, 13}, {1, 14}},
			want: [][]int64{{0, 1}, {4, 3}, {8, 7}, {10, 11}},
		},
		{
			name: "long queue", n: 2, queue: 5,
			in: []in{{0, 0}, {0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {0, 6}, {0, 7}, {0, 8}, {1, 3},
				{0, 9}, {0, 10}, {0, 11}, {0, 12}, {1, 10}, {0, 13}},
			want: [][]int64{{10, 10}},
		},
		{
			name: "double publish", n: 2, queue: 10,
			in:     []in{{0, 0}, {1, 1}, {1, 3}, {0, 3}},
			want:   [][]int64{{0, 1}, {3, 3}},
			whenAt: []int{4, 4},
		},
		{
			name: "four topics", n: 4, queue: 10,
			in: []in{{0, 0}, {1, 1}, {2, 2}, {3, 3}, {0, 5}, {3, 5}, {1, 6}, {2, 6}, {0, 8}, {1, 9}, {2, 10},
				{3, 11}, {0, 10}, {0, 13}, {1, 14}},
			want: [][]int64{{0, 1, 2, 3}, {5, 6, 6, 5}, {10, 9, 10, 11}},
		},
		{
			name: "early publish", n: 4, queue: 10,
			in:     []in{{0, 0}, {1, 1}, {2, 2}, {3, 3}, {0, 7}},
			want:   [][]int64{{0, 1, 2, 3}},
			whenAt: []int{5},
		},
		{
			name: "rate bound 1.5 s", n: 2, queue: 10, bounds: []lb{{0, 1500 * time.Millisecond}},
			in:     []in{{0, 0}, {1, 1}, {0, 3}, {1, 4}, {0, 6}, {1, 7}},
			want:   [][]int64{{0, 1}, {3, 4}},
			whenAt: []int{3, 5},
		},
		{
			name: "rate bound 2 s", n: 2, queue: 10, bounds: []lb{{0, 2 * time.Second}},
			in:     []in{{0, 0}, {1, 1}, {0, 3}, {1, 4}, {0, 6}, {1, 7}},
			want:   [][]int64{{0, 1}, {3, 4}, {6, 7}},
			whenAt: []int{2, 4, 6},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := []msgsync.Option{msgsync.QueueSize(c.queue)}
			for _, b := range c.bounds {
				opts = append(opts, msgsync.InterMessageLowerBound(b.input, b.d))
			}
			h := newHarness(t, true, c.n, opts...)
			for _, a := range c.in {
				h.feed(in{a.topic, a.stamp * sec})
			}
			want := make([][]int64, len(c.want))
			for k, set := range c.want {
				for _, s := range set {
					want[k] = append(want[k], s*sec)
				}
			}
			if got := h.stamps(); !slices.EqualFunc(got, want, slices.Equal) {
				t.Errorf("sets %v, want %v", fmtSets(got), fmtSets(want))
			}
			if c.whenAt != nil && !slices.Equal(h.whenAt, c.whenAt) {
				t.Errorf("sets came out after arrivals %v, want %v", h.whenAt, c.whenAt)
			}
			h.checkStats()
		})
	}
}

// TestApproximateDropsCounted: a set's messages are taken from the front;
// the ones skipped are dropped and counted per input, and the queue bound
// drops the oldest.
func TestApproximateDropsCounted(t *testing.T) {
	h := newHarness(t, true, 2, msgsync.QueueSize(3))
	// Input 1 gets far ahead: its queue holds 3, the 4th arrival drops 10.
	h.feed(in{1, 10}, in{1, 20}, in{1, 30}, in{1, 40})
	st := h.checkStats()
	if st.Dropped[1] != 1 || st.Pending[1] != 3 {
		t.Fatalf("after 4 messages on a queue of 3: %+v", st)
	}
	// 29 pairs with 30; 20 cannot be used any more.
	h.feed(in{0, 29}, in{0, 50})
	if got, want := h.stamps(), [][]int64{{29, 30}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("sets %v, want %v", got, want)
	}
	st = h.checkStats()
	if st.Dropped[1] != 2 || st.Dropped[0] != 0 {
		t.Errorf("dropped %v, want [0 2]", st.Dropped)
	}
}

// TestApproximateMaxInterval: heads further apart than MaxInterval are not
// a set; the earliest is dropped.
func TestApproximateMaxInterval(t *testing.T) {
	h := newHarness(t, true, 2, msgsync.MaxInterval(5))
	h.feed(in{0, 0}, in{1, 100}, in{0, 101}, in{0, 200}, in{1, 300}, in{0, 400})
	want := [][]int64{{101, 100}}
	if got := h.stamps(); !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("sets %v, want %v", got, want)
	}
	st := h.checkStats()
	// 0 was dropped for being 100 from 100; 200 for being 100 from 300;
	// 300 for being 100 from 400.
	if !slices.Equal(st.Dropped, []uint64{2, 1}) {
		t.Errorf("dropped %v, want [2 1]", st.Dropped)
	}
}

// TestApproximateAgePenalty: with a penalty, an earlier set of larger span
// can win over a later, tighter one.
func TestApproximateAgePenalty(t *testing.T) {
	// Pivot b10. Candidates: (a4, b10), span 6, then (a12, b10), span 2,
	// whose start is b10 and end a12: it is better iff
	// (12-10)*(1+p) < 10-4, that is p < 2.
	for _, c := range []struct {
		p    float64
		want []int64
	}{{0, []int64{12, 10}}, {1.9, []int64{12, 10}}, {2, []int64{4, 10}}, {10, []int64{4, 10}}} {
		h := newHarness(t, true, 2, msgsync.AgePenalty(c.p))
		h.feed(in{0, 4}, in{1, 10}, in{0, 12})
		if got := h.stamps(); len(got) != 1 || !slices.Equal(got[0], c.want) {
			t.Errorf("penalty %v: sets %v, want %v", c.p, got, c.want)
		}
		h.checkStats()
	}
}

// TestApproximateOutOfOrder: a message stamped before the previous one of
// its input is counted and logged, and kept (as message_filters does).
func TestApproximateOutOfOrder(t *testing.T) {
	h := newHarness(t, true, 2)
	h.feed(in{0, 10}, in{0, 5}, in{1, 100}, in{1, 200}, in{0, 300})
	st := h.checkStats()
	if !slices.Equal(st.OutOfOrder, []uint64{1, 0}) {
		t.Errorf("out of order %v, want [1 0]", st.OutOfOrder)
	}
}

// TestApproximateTypedMatchesN: Approximate and Approximate3 emit what
// ApproximateN does.
func TestApproximateTypedMatchesN(t *testing.T) {
	arrivals := []in{{0, 0}, {1, 1}, {2, 2}, {0, 5}, {2, 5}, {1, 6}, {0, 8}, {1, 9}, {2, 10}, {0, 10}, {0, 13}, {1, 14}, {2, 15}}
	for _, n := range []int{2, 3} {
		h := newHarness(t, true, n, msgsync.QueueSize(4))
		var typed [][]int64
		subs := h.subs
		switch n {
		case 2:
			s := msgsync.Approximate(msgsync.In(subs[0], msgStamp), msgsync.In(subs[1], msgStamp), msgsync.QueueSize(4))
			defer s.Close()
			s.OnInput(func(p msgsync.Pair[msg, msg]) { typed = append(typed, []int64{p.A.stamp, p.B.stamp}) })
		case 3:
			s := msgsync.Approximate3(msgsync.In(subs[0], msgStamp), msgsync.In(subs[1], msgStamp), msgsync.In(subs[2], msgStamp), msgsync.QueueSize(4))
			defer s.Close()
			s.OnInput(func(p msgsync.Triple[msg, msg, msg]) {
				typed = append(typed, []int64{p.A.stamp, p.B.stamp, p.C.stamp})
			})
		}
		for _, a := range arrivals {
			if a.topic < n {
				h.feed(a)
			}
		}
		if got := h.stamps(); len(got) == 0 || !slices.EqualFunc(got, typed, slices.Equal) {
			t.Errorf("%d inputs: typed %v, N %v", n, fmtSets(typed), fmtSets(got))
		}
	}
}
