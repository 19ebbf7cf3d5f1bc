package msgsync

import (
	"math"
	"math/bits"
)

// approximate is the approximate-time policy of ROS's message_filters
// (sync_policies::ApproximateTime), on stamps in nanoseconds.
//
// Every input keeps the messages it still may use in arrival order. The
// oldest of them may have been set aside during the search for the next set
// (they are "past"); the rest form the input's deque, whose front is its
// head. A set is built around a pivot: when every deque has a head, the
// latest head becomes the pivot, which the next set must contain. The search
// then slides over the inputs by setting aside the earliest head, one at a
// time, and keeps the candidate set (the heads at one step) whose span is
// the smallest, later candidates paying the age penalty. The candidate is
// published when the pivot itself would be set aside (every set holding the
// pivot has been seen), or as soon as no later set can beat it: a later set
// spans at least from its start to the current end, and the inter-message
// lower bounds tell how early a message not yet received can be.
//
// Publishing keeps every message after the candidate's in each input; the
// ones before it are dropped. An input whose queue goes over the queue size
// drops its oldest message, restarts the search, and cannot be the next
// pivot until another input's head has been the latest.
//
// Not safe for concurrent use: the synchronizer serialises calls.
type approximate struct {
	n           int
	queueSize   int
	maxInterval int64   // nanoseconds
	scale       float64 // 1 + age penalty
	lowerBounds []int64 // nanoseconds, per input

	stamps []fifo[int64] // per input: the stamps of the messages kept
	past   []int         // per input: how many of them are set aside
	// nonEmpty counts the inputs whose deque (kept minus set aside) is
	// not empty.
	nonEmpty int

	pivot      int // -1 when there is no candidate
	pivotTime  int64
	candStart  int64
	candEnd    int64
	hadDropped []bool // per input: dropped a message since it was last not the latest head

	moves []int   // scratch: messages set aside per input by the virtual search
	times []int64 // scratch: virtual times

	cols []column
	emit func(at int)   // publishes the candidate: the front of every column
	drop func(i, k int) // counts k messages of input i dropped
}

const noPivot = -1

func newApproximate(n int, c *config, cols []column, emit func(int), drop func(i, k int)) *approximate {
	p := &approximate{
		n:           n,
		queueSize:   c.queueSize,
		maxInterval: math.MaxInt64,
		scale:       1 + c.agePenalty,
		lowerBounds: make([]int64, n),
		stamps:      make([]fifo[int64], n),
		past:        make([]int, n),
		pivot:       noPivot,
		hadDropped:  make([]bool, n),
		moves:       make([]int, n),
		times:       make([]int64, n),
		cols:        cols,
		emit:        emit,
		drop:        drop,
	}
	if c.hasMaxInterval {
		p.maxInterval = int64(c.maxInterval)
	}
	for i, d := range c.lowerBounds {
		p.lowerBounds[i] = int64(d)
	}
	return p
}

// place: every message goes to the back of its input's queue.
func (p *approximate) place(int, int64) (int, bool) { return -1, true }

func (p *approximate) pending(i int) int { return p.stamps[i].len() }

func (p *approximate) reset() {
	for i := range p.n {
		if k := p.stamps[i].len(); k > 0 {
			p.drop(i, k)
		}
		p.stamps[i].clear()
		p.past[i] = 0
		p.hadDropped[i] = false
		p.cols[i].reset()
	}
	p.nonEmpty, p.pivot = 0, noPivot
}

// dequeLen is the number of messages of input i not set aside.
func (p *approximate) dequeLen(i int) int { return p.stamps[i].len() - p.past[i] }

// head is the stamp at the front of input i's deque (not empty).
func (p *approximate) head(i int) int64 { return p.stamps[i].at(p.past[i]) }

// commit adds the message of input i just queued, stamped st, and runs
// the search.
func (p *approximate) commit(i int, st int64, _ int) {
	p.stamps[i].push(st)
	if p.dequeLen(i) == 1 {
		p.nonEmpty++
		if p.nonEmpty == p.n {
			p.process()
		}
	}
	// The search above may leave one message more than the queue size.
	if p.stamps[i].len() > p.queueSize {
		// Give up the search in progress, drop the oldest message of the
		// input, and start again.
		p.recoverAll()
		p.stamps[i].popFront(1)
		p.cols[i].popFront(1)
		p.drop(i, 1)
		p.hadDropped[i] = true
		if p.pivot != noPivot {
			p.pivot = noPivot
			p.process()
		}
	}
}

// recoverAll puts every message set aside back in its deque.
func (p *approximate) recoverAll() {
	p.nonEmpty = 0
	for i := range p.n {
		p.past[i] = 0
		if p.stamps[i].len() > 0 {
			p.nonEmpty++
		}
	}
}

// deleteHead drops the head of input i; only without a candidate, when
// nothing is set aside.
func (p *approximate) deleteHead(i int) {
	if p.past[i] != 0 {
		panic("msgsync: internal error: deleting a head with messages set aside")
	}
	p.stamps[i].popFront(1)
	p.cols[i].popFront(1)
	p.drop(i, 1)
	if p.dequeLen(i) == 0 {
		p.nonEmpty--
	}
}

// setAside moves the head of input i out of its deque.
func (p *approximate) setAside(i int) {
	p.past[i]++
	if p.dequeLen(i) == 0 {
		p.nonEmpty--
	}
}

// makeCandidate makes the current heads the candidate: the messages set
// aside before them can no longer be used and are dropped, so that the
// candidate is the front of every input's queue.
func (p *approximate) makeCandidate(start, end int64) {
	for i := range p.n {
		if k := p.past[i]; k > 0 {
			p.stamps[i].popFront(k)
			p.cols[i].popFront(k)
			p.drop(i, k)
			p.past[i] = 0
		}
	}
	p.candStart, p.candEnd = start, end
}

// publish emits the candidate and drops it from the queues, putting back
// the messages set aside after it.
func (p *approximate) publish() {
	p.emit(-1)
	p.pivot = noPivot
	p.nonEmpty = 0
	for i := range p.n {
		p.past[i] = 0
		p.stamps[i].popFront(1)
		p.cols[i].popFront(1)
		if p.stamps[i].len() > 0 {
			p.nonEmpty++
		}
	}
}

// bounds returns the input with the earliest of times (the first on a tie)
// and the input with the latest (the last on a tie), with their times.
func bounds(times []int64) (startIdx int, start int64, endIdx int, end int64) {
	start, end = times[0], times[0]
	for i, t := range times {
		if t < start {
			startIdx, start = i, t
		}
		if t >= end {
			endIdx, end = i, t
		}
	}
	return startIdx, start, endIdx, end
}

// heads fills p.times with the heads (every deque not empty).
func (p *approximate) heads() []int64 {
	for i := range p.n {
		p.times[i] = p.head(i)
	}
	return p.times
}

// virtualTimes fills p.times with the heads, where an empty deque counts
// as the earliest a next message of that input can be stamped: its last
// message plus its lower bound, and no earlier than the pivot.
func (p *approximate) virtualTimes() []int64 {
	for i := range p.n {
		if p.dequeLen(i) > 0 {
			p.times[i] = p.head(i)
			continue
		}
		t := addSat(p.stamps[i].back(), p.lowerBounds[i])
		p.times[i] = max(t, p.pivotTime)
	}
	return p.times
}

// process searches while every deque has a head.
func (p *approximate) process() {
	for p.nonEmpty == p.n {
		startIdx, start, endIdx, end := bounds(p.heads())
		for i := range p.n {
			if i != endIdx {
				// No message dropped on input i could have been better
				// than what it has now: it may be the pivot again.
				p.hadDropped[i] = false
			}
		}
		if p.pivot == noPivot {
			if subSat(end, start) > p.maxInterval {
				// Too wide to be a set: the earliest head cannot be used.
				p.deleteHead(startIdx)
				continue
			}
			if p.hadDropped[endIdx] {
				// The would-be pivot's input dropped messages, one of
				// which may have made a better set: do not pivot on it.
				p.deleteHead(startIdx)
				continue
			}
			p.makeCandidate(start, end)
			p.pivot, p.pivotTime = endIdx, end
			p.setAside(startIdx)
		} else {
			if !p.better(start, end) {
				p.setAside(startIdx)
			} else {
				p.makeCandidate(start, end) // same pivot
				p.setAside(startIdx)
			}
		}
		switch {
		case startIdx == p.pivot:
			// Every set holding the pivot has been seen.
			p.publish()
		case p.provablyBest(end):
			// Any later set spans at least from the pivot to end.
			p.publish()
		case p.nonEmpty < p.n:
			p.virtualSearch()
		}
	}
}

// better reports whether the set [start, end] beats the candidate: its
// growth at the end, with the age penalty, is smaller than at the start.
func (p *approximate) better(start, end int64) bool {
	return scaleTrunc(subSat(end, p.candEnd), p.scale) < subSat(start, p.candStart)
}

// provablyBest reports whether no set ending at end or later, and starting
// at the pivot or earlier, can beat the candidate.
func (p *approximate) provablyBest(end int64) bool {
	return scaleTrunc(subSat(end, p.candEnd), p.scale) >= subSat(p.pivotTime, p.candStart)
}

// virtualSearch tries, when a deque ran empty, to prove the candidate best
// all the same, by going on with the earliest time each missing message
// may have (see virtualTimes). It publishes the candidate if that proves
// it, and otherwise puts back what it set aside and waits for messages.
func (p *approximate) virtualSearch() {
	clear(p.moves)
	for {
		startIdx, start, _, end := bounds(p.virtualTimes())
		if p.provablyBest(end) {
			p.publish()
			return
		}
		if p.better(start, end) {
			// An optimistic future set beats the candidate: wait.
			p.nonEmpty = 0
			for i := range p.n {
				p.past[i] -= p.moves[i]
				if p.dequeLen(i) > 0 {
					p.nonEmpty++
				}
			}
			return
		}
		// startIdx is not the pivot and has a head: with start equal to
		// the pivot's time one of the two tests above holds.
		p.setAside(startIdx)
		p.moves[startIdx]++
	}
}

// scaleTrunc returns d*s rounded toward zero, computed exactly, saturating
// at the int64 range (s is positive and finite).
func scaleTrunc(d int64, s float64) int64 {
	if s == 1 || d == 0 {
		return d
	}
	neg := d < 0
	u := uint64(d)
	if neg {
		u = -u
	}
	// s = mant * 2^exp exactly, mant < 2^53.
	frac, exp := math.Frexp(s)
	mant := uint64(frac * (1 << 53))
	exp -= 53
	hi, lo := bits.Mul64(u, mant)
	var r uint64
	switch {
	case exp >= 0:
		if hi != 0 || exp >= 64 || lo>>(63-uint(exp)) != 0 {
			r = math.MaxInt64
		} else {
			r = lo << uint(exp)
		}
	case exp <= -128:
		r = 0
	case exp <= -64:
		r = hi >> uint(-exp-64)
	default:
		sh := uint(-exp)
		if hi>>sh != 0 {
			r = math.MaxInt64
		} else {
			r = lo>>sh | hi<<(64-sh)
		}
	}
	if r > math.MaxInt64 {
		r = math.MaxInt64
	}
	if neg {
		return -int64(r)
	}
	return int64(r)
}

// subSat returns a-b, saturating at the int64 range.
func subSat(a, b int64) int64 {
	d := a - b
	if (a >= 0) != (b >= 0) && (d >= 0) != (a >= 0) {
		if a >= 0 {
			return math.MaxInt64
		}
		return math.MinInt64
	}
	return d
}

// addSat returns a+b (b >= 0), saturating at the int64 maximum.
func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
