package msgsync

import "sort"

// exact is the exact-time policy of ROS's message_filters
// (sync_policies::ExactTime), on stamps in nanoseconds: messages wait in
// sets by stamp, a set is emitted once every input has a message with its
// stamp, and then every older set, still incomplete, is dropped. At most
// queue-size stamps wait; beyond, the oldest set is dropped.
//
// Unlike message_filters, a message stamped at or before the last emitted
// set is dropped at once (message_filters keeps it waiting, and may emit a
// set older than one it already emitted): sets come out in stamp order.
//
// Not safe for concurrent use: the synchronizer serialises calls.
type exact struct {
	n         int
	queueSize int
	sets      []exactSet // waiting, by increasing stamp
	free      []int      // free slots
	have      []bool     // slot*n + input: the slot holds a message of input
	last      int64      // stamp of the last emitted set
	emitted   bool       // last is set

	cols        []column
	emit        func(at int)
	drop        func(i, k int) // counts k messages of input i dropped
	dropSet     func()         // counts an incomplete set dropped
	pendingMsgs []int          // per input: messages waiting
}

// exactSet is a set waiting for messages.
type exactSet struct {
	stamp int64
	slot  int // where the columns keep its messages
	count int // inputs that have a message in it
}

func newExact(n int, c *config, cols []column, emit func(int), drop func(i, k int), dropSet func()) *exact {
	slots := c.queueSize + 1 // one more while a new set waits to be trimmed
	p := &exact{
		n:           n,
		queueSize:   c.queueSize,
		sets:        make([]exactSet, 0, slots),
		free:        make([]int, 0, slots),
		have:        make([]bool, slots*n),
		cols:        cols,
		emit:        emit,
		drop:        drop,
		dropSet:     dropSet,
		pendingMsgs: make([]int, n),
	}
	for s := slots - 1; s >= 0; s-- {
		p.free = append(p.free, s)
	}
	for _, c := range cols {
		c.initSlots(slots)
	}
	return p
}

func (p *exact) pending(i int) int { return p.pendingMsgs[i] }

func (p *exact) reset() {
	for len(p.sets) > 0 {
		p.forget(0)
	}
}

// place returns the slot of the set stamped st, making the set if needed.
// A message stamped at or before the last emitted set is dropped.
func (p *exact) place(i int, st int64) (int, bool) {
	if p.emitted && st <= p.last {
		p.drop(i, 1)
		return 0, false
	}
	k := sort.Search(len(p.sets), func(k int) bool { return p.sets[k].stamp >= st })
	if k == len(p.sets) || p.sets[k].stamp != st {
		slot := p.free[len(p.free)-1]
		p.free = p.free[:len(p.free)-1]
		p.sets = append(p.sets, exactSet{})
		copy(p.sets[k+1:], p.sets[k:])
		p.sets[k] = exactSet{stamp: st, slot: slot}
	}
	s := &p.sets[k]
	if p.have[s.slot*p.n+i] {
		// A second message of input i with the same stamp replaces the
		// first, as in message_filters.
		p.drop(i, 1)
	} else {
		p.have[s.slot*p.n+i] = true
		p.pendingMsgs[i]++
		s.count++
	}
	return s.slot, true
}

// commit emits the set of the message just stored if it is complete, then
// trims the waiting sets.
func (p *exact) commit(_ int, st int64, slot int) {
	k := sort.Search(len(p.sets), func(k int) bool { return p.sets[k].stamp >= st })
	if p.sets[k].count == p.n {
		p.emit(slot)
		p.last, p.emitted = st, true
		p.release(k)
		// Every older set can no longer complete.
		for range k {
			p.forget(0)
		}
	}
	for len(p.sets) > p.queueSize {
		p.forget(0)
	}
}

// forget drops the incomplete set k.
func (p *exact) forget(k int) {
	s := p.sets[k]
	for i := range p.n {
		if p.have[s.slot*p.n+i] {
			p.drop(i, 1)
		}
	}
	p.dropSet()
	p.release(k)
}

// release frees set k's slot and removes it.
func (p *exact) release(k int) {
	s := p.sets[k]
	for i, c := range p.cols {
		if p.have[s.slot*p.n+i] {
			p.have[s.slot*p.n+i] = false
			p.pendingMsgs[i]--
		}
		c.clearSlot(s.slot)
	}
	p.free = append(p.free, s.slot)
	p.sets = append(p.sets[:k], p.sets[k+1:]...)
}
