package msgsync_test

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/msgsync"
)

// quiet is a logger that drops everything.
var quiet = slog.New(slog.DiscardHandler)

// msg is a test message: the seq-th message of input topic.
type msg struct {
	topic int
	seq   int
	stamp int64 // nanoseconds
}

func (m msg) String() string { return fmt.Sprintf("%d:%d@%d", m.topic, m.seq, m.stamp) }

func msgStamp(m msg) time.Time { return time.Unix(0, m.stamp) }

// in is an arrival: a message of input topic stamped stamp.
type in struct {
	topic int
	stamp int64
}

// harness feeds arrivals to a synchronizer of n inputs of msg and
// records the sets it emits, and after which arrival.
type harness struct {
	t      testing.TB
	subs   []*afor.Sub[msg]
	sync   *msgsync.Sync[[]any]
	seqs   []int
	fed    int
	sets   [][]msg
	whenAt []int // whenAt[k]: arrivals fed when set k came out
}

func newHarness(t testing.TB, approximate bool, n int, opts ...msgsync.Option) *harness {
	h := &harness{t: t, seqs: make([]int, n)}
	opts = append([]msgsync.Option{msgsync.WithLogger(quiet)}, opts...)
	srcs := make([]msgsync.Source, n)
	for i := range n {
		s := afor.NewSub[msg]()
		h.subs = append(h.subs, s)
		srcs[i] = msgsync.In(s, msgStamp)
	}
	if approximate {
		h.sync = msgsync.ApproximateN(srcs, opts...)
	} else {
		h.sync = msgsync.ExactN(srcs, opts...)
	}
	h.sync.OnInput(func(set []any) {
		ms := make([]msg, len(set))
		for i, v := range set {
			ms[i] = v.(msg)
		}
		h.sets = append(h.sets, ms)
		h.whenAt = append(h.whenAt, h.fed)
	})
	t.Cleanup(h.sync.Close)
	return h
}

func (h *harness) feed(arrivals ...in) {
	for _, a := range arrivals {
		m := msg{topic: a.topic, seq: h.seqs[a.topic], stamp: a.stamp}
		h.seqs[a.topic]++
		h.fed++
		if !h.subs[a.topic].Input(m) {
			h.t.Fatalf("input %d closed", a.topic)
		}
	}
}

// stamps returns the sets as lists of stamps.
func (h *harness) stamps() [][]int64 { return setStamps(h.sets) }

func setStamps(sets [][]msg) [][]int64 {
	out := make([][]int64, len(sets))
	for k, set := range sets {
		out[k] = make([]int64, len(set))
		for i, m := range set {
			out[k][i] = m.stamp
		}
	}
	return out
}

// checkStats asserts that every message is in a set, dropped or pending.
func (h *harness) checkStats() msgsync.Stats {
	h.t.Helper()
	st := h.sync.Stats()
	if st.Sets != uint64(len(h.sets)) {
		h.t.Errorf("Stats().Sets = %d, %d sets seen", st.Sets, len(h.sets))
	}
	for i := range h.subs {
		if st.Inputs[i] != uint64(h.seqs[i]) {
			h.t.Errorf("input %d: Stats().Inputs = %d, fed %d", i, st.Inputs[i], h.seqs[i])
		}
		if st.Inputs[i] != st.Sets+st.Dropped[i]+uint64(st.Pending[i]) {
			h.t.Errorf("input %d: %d inputs != %d sets + %d dropped + %d pending", i, st.Inputs[i], st.Sets, st.Dropped[i], st.Pending[i])
		}
	}
	return st
}

func fmtSets(sets [][]int64) string {
	var b strings.Builder
	for _, s := range sets {
		fmt.Fprint(&b, s, " ")
	}
	return b.String()
}
