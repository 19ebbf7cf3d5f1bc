package msgsync

import (
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"github.com/afor-go/afor"
)

// Sync is a synchronizer: a sub of the sets of messages it matched on its
// inputs, with the counters of what it dropped. Its sets arrive in the
// producer goroutine of the input whose message completed them, like the
// values of [afor.Map]; a callback on the sub ([afor.Sub.OnInput]) must not
// feed one of the synchronizer's inputs.
//
// Closing the sub detaches the synchronizer from its inputs and lets go of
// the messages it held; closing an input closes the sub with the input's
// error. Create one with [Exact], [Approximate] and their variants.
type Sync[T any] struct {
	*afor.Sub[T]
	c *core
}

// Stats is a snapshot of a synchronizer's counters. Every message received
// is, at any time, either in an emitted set, dropped or pending:
// Inputs[i] == Sets + Dropped[i] + Pending[i].
type Stats struct {
	Inputs     []uint64 // messages received, per input
	Dropped    []uint64 // messages let go of without being in a set, per input
	Pending    []int    // messages waiting now, per input
	OutOfOrder []uint64 // messages stamped earlier than the previous one of their input, per input
	Sets       uint64   // sets emitted
	// DroppedSets counts, for the exact policy, the sets dropped before
	// they were complete.
	DroppedSets uint64
}

// Stats returns the synchronizer's counters; those of its output sub are
// in s.Sub.Stats().
func (s *Sync[T]) Stats() Stats {
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	st := Stats{
		Inputs:      slices.Clone(c.inputs),
		Dropped:     slices.Clone(c.dropped),
		Pending:     make([]int, c.n),
		OutOfOrder:  slices.Clone(c.outOfOrder),
		Sets:        c.sets,
		DroppedSets: c.droppedSets,
	}
	for i := range c.n {
		st.Pending[i] = c.pol.pending(i)
	}
	return st
}

// policy is a synchronization policy working on stamps; the columns keep
// the values.
type policy interface {
	// place says where the value of a message of input i stamped st goes
	// (at < 0: the back of the input's queue; else a slot), or that the
	// message is dropped.
	place(i int, st int64) (at int, ok bool)
	// commit runs the policy once the value is stored.
	commit(i int, st int64, at int)
	// pending is the number of messages of input i waiting.
	pending(i int) int
	// reset drops every waiting message.
	reset()
}

// core is the state a synchronizer shares with its input callbacks.
type core struct {
	mu     sync.Mutex
	n      int
	pol    policy
	closed bool
	logger *slog.Logger
	name   string // of the output sub, for logs

	inputs      []uint64
	dropped     []uint64
	outOfOrder  []uint64
	sets        uint64
	droppedSets uint64
	loggedDrop  bool

	last        []int64 // stamp of the previous message, per input
	seen        []bool
	lowerBounds []int64 // approximate policy, for the warning
	warnedOrder []bool
	warnedBound []bool
}

func newCore(n int, cfg *config) *core {
	if n < 2 {
		panic(fmt.Sprintf("msgsync: a synchronizer needs at least 2 inputs, not %d", n))
	}
	for i := range cfg.lowerBounds {
		if i >= n {
			panic(fmt.Sprintf("msgsync: InterMessageLowerBound(%d, ...) with %d inputs", i, n))
		}
	}
	c := &core{
		n:           n,
		logger:      cfg.logger,
		inputs:      make([]uint64, n),
		dropped:     make([]uint64, n),
		outOfOrder:  make([]uint64, n),
		last:        make([]int64, n),
		seen:        make([]bool, n),
		lowerBounds: make([]int64, n),
		warnedOrder: make([]bool, n),
		warnedBound: make([]bool, n),
	}
	for i, d := range cfg.lowerBounds {
		c.lowerBounds[i] = int64(d)
	}
	if c.logger == nil {
		c.logger = slog.Default()
	}
	return c
}

// observe counts a message of input i stamped st and warns, once per
// input, of one stamped before the previous or closer to it than the
// lower bound (c.mu held).
func (c *core) observe(i int, st int64) {
	c.inputs[i]++
	if c.seen[i] {
		prev := c.last[i]
		switch {
		case st < prev:
			c.outOfOrder[i]++
			if !c.warnedOrder[i] {
				c.warnedOrder[i] = true
				c.logger.Warn("msgsync: messages of an input arrived out of stamp order (warning once)",
					"sync", c.name, "input", i, "stamp_ns", st, "previous_ns", prev)
			}
		case c.lowerBounds[i] > 0 && subSat(st, prev) < c.lowerBounds[i] && !c.warnedBound[i]:
			c.warnedBound[i] = true
			c.logger.Warn("msgsync: messages of an input closer than its inter-message lower bound (warning once)",
				"sync", c.name, "input", i, "gap_ns", st-prev, "bound_ns", c.lowerBounds[i])
		}
	}
	c.last[i], c.seen[i] = st, true
}

// drop counts k messages of input i dropped (c.mu held).
func (c *core) drop(i, k int) {
	if k == 0 {
		return
	}
	c.dropped[i] += uint64(k)
	if !c.loggedDrop {
		c.loggedDrop = true
		c.logger.Debug("msgsync: first message dropped", "sync", c.name, "input", i)
	}
}

func (c *core) dropSet() { c.droppedSets++ }

// close stops the policy and lets go of what it held.
func (c *core) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.closed = true
	c.pol.reset()
}

// kind is a synchronization policy.
type kind int

const (
	exactKind kind = iota
	approximateKind
)

// newSync makes the output sub and the core of a synchronizer of n inputs
// whose values cols keep; tuple builds a set from the values at `at`.
// The caller then hooks the inputs and calls finish.
func newSync[T any](k kind, n int, opts []Option, cols []column, tuple func(at int) T) *Sync[T] {
	cfg := collect(opts)
	c := newCore(n, cfg)
	out := afor.NewSub[T](cfg.subOpts...)
	c.name = out.String()
	emit := func(at int) {
		c.sets++
		out.Input(tuple(at))
	}
	switch k {
	case exactKind:
		if cfg.approxOnly != "" {
			panic("msgsync: " + cfg.approxOnly + " applies to the approximate policy only, not to Exact")
		}
		c.pol = newExact(n, cfg, cols, emit, c.drop, c.dropSet)
	case approximateKind:
		c.pol = newApproximate(n, cfg, cols, emit, c.drop)
	}
	return &Sync[T]{Sub: out, c: c}
}

// finish ties the synchronizer's lifetime to its output sub: closing it
// runs removes (detaching from the inputs) and lets go of the messages.
func (s *Sync[T]) finish(removes []func()) *Sync[T] {
	s.OnClose(func() {
		for _, r := range removes {
			r()
		}
		s.c.close()
	})
	return s
}

// Exact returns the exact-time synchronizer of two inputs (ROS
// message_filters' ExactTime policy): it emits a pair once both inputs
// have a message with the same stamp, and drops the older pairs still
// incomplete then. [QueueSize] bounds how many stamps wait for their pair;
// beyond, the oldest is dropped. A message stamped at or before the last
// pair emitted is dropped (message_filters would keep it). A second
// message of an input with a stamp already waiting replaces the first.
func Exact[A, B any](a Input[A], b Input[B], opts ...Option) *Sync[Pair[A, B]] {
	return sync2(exactKind, a, b, opts)
}

// Exact3 is [Exact] for three inputs.
func Exact3[A, B, C any](a Input[A], b Input[B], c Input[C], opts ...Option) *Sync[Triple[A, B, C]] {
	return sync3(exactKind, a, b, c, opts)
}

// ExactN is [Exact] for any number (2 or more) of inputs of any types:
// each set is a new slice holding the value of input i at index i.
func ExactN(inputs []Source, opts ...Option) *Sync[[]any] {
	return syncN(exactKind, inputs, opts)
}

// Approximate returns the approximate-time synchronizer of two inputs:
// ROS message_filters' ApproximateTime policy, which pairs messages whose
// stamps differ by finding the best pairs rather than by a tolerance. Its
// guarantees, from message_filters' documentation:
//
//   - a message is in at most one set; some are dropped;
//   - sets do not cross: of two sets, one has, on every input, a message
//     stamped no later than the other's;
//   - sets are contiguous: between two sets there is an input with no
//     message dropped, so the dropped messages could not make a set;
//   - each set is, among the sets that follow the previous one this way
//     and contain the pivot, the one of smallest span (stamp of its latest
//     message minus that of its earliest), later sets paying [AgePenalty];
//   - the sets depend on the stamps only, not on when messages arrive, as
//     long as each input's messages arrive in stamp order and the queues
//     are large enough to hold the difference in delays.
//
// [QueueSize] bounds the messages kept per input (dropping the oldest);
// [MaxInterval], [AgePenalty] and [InterMessageLowerBound] are the policy's
// optional parameters. A set is emitted once no later message can improve
// it, so it waits for at least one later message on some input.
func Approximate[A, B any](a Input[A], b Input[B], opts ...Option) *Sync[Pair[A, B]] {
	return sync2(approximateKind, a, b, opts)
}

// Approximate3 is [Approximate] for three inputs.
func Approximate3[A, B, C any](a Input[A], b Input[B], c Input[C], opts ...Option) *Sync[Triple[A, B, C]] {
	return sync3(approximateKind, a, b, c, opts)
}

// ApproximateN is [Approximate] for any number (2 or more) of inputs of any
// types: each set is a new slice holding the value of input i at index i.
func ApproximateN(inputs []Source, opts ...Option) *Sync[[]any] {
	return syncN(approximateKind, inputs, opts)
}

// sync2 makes a synchronizer of kind k of two typed inputs.
func sync2[A, B any](k kind, a Input[A], b Input[B], opts []Option) *Sync[Pair[A, B]] {
	a.check(0)
	b.check(1)
	var ca col[A]
	var cb col[B]
	s := newSync(k, 2, opts, []column{&ca, &cb}, func(at int) Pair[A, B] {
		return Pair[A, B]{A: ca.get(at), B: cb.get(at)}
	})
	return s.finish([]func(){
		hook(s.c, s.Sub, a.Sub, a.Stamp, 0, ca.put),
		hook(s.c, s.Sub, b.Sub, b.Stamp, 1, cb.put),
	})
}

// sync3 makes a synchronizer of kind k of three typed inputs.
func sync3[A, B, C any](k kind, a Input[A], b Input[B], c Input[C], opts []Option) *Sync[Triple[A, B, C]] {
	a.check(0)
	b.check(1)
	c.check(2)
	var ca col[A]
	var cb col[B]
	var cc col[C]
	s := newSync(k, 3, opts, []column{&ca, &cb, &cc}, func(at int) Triple[A, B, C] {
		return Triple[A, B, C]{A: ca.get(at), B: cb.get(at), C: cc.get(at)}
	})
	return s.finish([]func(){
		hook(s.c, s.Sub, a.Sub, a.Stamp, 0, ca.put),
		hook(s.c, s.Sub, b.Sub, b.Stamp, 1, cb.put),
		hook(s.c, s.Sub, c.Sub, c.Stamp, 2, cc.put),
	})
}

func syncN(k kind, inputs []Source, opts []Option) *Sync[[]any] {
	for i, in := range inputs {
		if in == nil {
			panic(fmt.Sprintf("msgsync: input %d is nil", i))
		}
		in.check(i)
	}
	n := len(inputs)
	cs := make([]col[any], n)
	cols := make([]column, n)
	for i := range cs {
		cols[i] = &cs[i]
	}
	s := newSync(k, n, opts, cols, func(at int) []any {
		set := make([]any, n)
		for i := range cs {
			set[i] = cs[i].get(at)
		}
		return set
	})
	removes := make([]func(), n)
	for i, in := range inputs {
		removes[i] = in.hookAny(s.c, s.Sub, i, &cs[i])
	}
	return s.finish(removes)
}
