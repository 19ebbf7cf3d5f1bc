//go:build linux

package hosts

import (
	"container/heap"
	"math/rand/v2"
	"sync"
	"time"
)

// Faults are what a link does to the frames that cross it, in one
// direction. The zero value passes every frame at once.
type Faults struct {
	// Loss is the probability that a frame is dropped, 0 to 1.
	Loss float64
	// Duplicate is the probability that a frame is delivered twice.
	Duplicate float64
	// Reorder is the probability that a frame is held back ReorderBy, so
	// that the frames after it overtake it.
	Reorder float64
	// ReorderBy is how long a reordered frame is held. Default 2 ms.
	ReorderBy time.Duration
	// Delay is added to every frame.
	Delay time.Duration
	// Jitter adds to each frame's delay a random extra in [0, Jitter);
	// frames keep their order.
	Jitter time.Duration
	// Rate caps the link's throughput, in bits per second (0: no cap),
	// with the kernel's token bucket filter (tc tbf) on the sending end:
	// frames beyond it wait in a queue of Queue worth of traffic, and are
	// dropped when it is full.
	Rate int64
	// Queue is how long a frame may wait for the Rate. Default 100 ms.
	Queue time.Duration
	// Cut drops every frame: the link is broken (its interfaces stay up).
	Cut bool
}

// delays reports whether f holds frames back.
func (f Faults) delays() bool { return f.Delay > 0 || f.Jitter > 0 || f.Reorder > 0 }

// Stats count what a link did to the frames of one direction.
type Stats struct {
	// Frames counts the frames that entered the link.
	Frames uint64
	// Lost counts frames dropped by Faults.Loss, Cut those dropped while
	// the link was cut.
	Lost, Cut uint64
	// Duplicated and Reordered count the frames delivered twice and those
	// held back to be overtaken.
	Duplicated, Reordered uint64
	// Delivered counts the frames handed to the receiving end (twice for
	// a duplicate).
	Delivered uint64
	// Overrun counts frames the kernel dropped on the way: the switch's
	// receive buffer overflowed, or the cap's queue (Faults.Rate) was
	// full.
	Overrun uint64
}

// add returns s plus o.
func (s Stats) add(o Stats) Stats {
	return Stats{
		Frames: s.Frames + o.Frames, Lost: s.Lost + o.Lost, Cut: s.Cut + o.Cut,
		Duplicated: s.Duplicated + o.Duplicated, Reordered: s.Reordered + o.Reordered,
		Delivered: s.Delivered + o.Delivered, Overrun: s.Overrun + o.Overrun,
	}
}

// maxHeld bounds the frames a pipe holds back (delay, reordering); the
// frames beyond are dropped and counted as overruns.
const maxHeld = 1 << 16

// pipe applies Faults to a stream of frames and hands the survivors, in
// due time, to out. Frames held back wait in a heap ordered by release
// time, emptied by the pipe's goroutine.
type pipe struct {
	mu    sync.Mutex
	f     Faults
	rng   *rand.Rand
	held  frameHeap
	seq   uint64
	last  time.Time // release time of the last frame not reordered
	st    Stats
	out   func(b []byte) error
	wake  chan struct{}
	done  chan struct{}
	ended chan struct{}
}

// newPipe starts a pipe delivering to out, with randomness from seed.
func newPipe(seed uint64, out func([]byte) error) *pipe {
	p := &pipe{
		rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), out: out,
		wake: make(chan struct{}, 1), done: make(chan struct{}), ended: make(chan struct{}),
	}
	go p.run()
	return p
}

// set replaces the faults.
func (p *pipe) set(f Faults) {
	if f.ReorderBy == 0 {
		f.ReorderBy = 2 * time.Millisecond
	}
	p.mu.Lock()
	p.f = f
	p.mu.Unlock()
}

// stats returns the counts so far.
func (p *pipe) stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.st
}

// overrun counts n frames the kernel dropped.
func (p *pipe) overrun(n uint64) {
	p.mu.Lock()
	p.st.Overrun += n
	p.mu.Unlock()
}

// push takes a frame; the pipe owns b from then on.
func (p *pipe) push(b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.st.Frames++
	f := p.f
	switch {
	case f.Cut:
		p.st.Cut++
		return
	case f.Loss > 0 && p.rng.Float64() < f.Loss:
		p.st.Lost++
		return
	}
	copies := 1
	if f.Duplicate > 0 && p.rng.Float64() < f.Duplicate {
		copies = 2
		p.st.Duplicated++
	}
	if !f.delays() && len(p.held) == 0 {
		for range copies {
			p.deliverLocked(b)
		}
		return
	}
	now := time.Now()
	for range copies {
		if len(p.held) >= maxHeld {
			p.st.Overrun++
			continue
		}
		at := now.Add(f.Delay)
		if f.Jitter > 0 {
			at = at.Add(time.Duration(p.rng.Int64N(int64(f.Jitter))))
		}
		if at.Before(p.last) {
			at = p.last
		}
		if f.Reorder > 0 && p.rng.Float64() < f.Reorder {
			p.st.Reordered++
			at = at.Add(f.ReorderBy)
		} else {
			p.last = at
		}
		p.seq++
		heap.Push(&p.held, heldFrame{b: b, at: at, seq: p.seq})
	}
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// deliverLocked hands b to out. Call with p.mu held: frames leave in
// order.
func (p *pipe) deliverLocked(b []byte) {
	if err := p.out(b); err != nil {
		p.st.Overrun++
		return
	}
	p.st.Delivered++
}

// run releases held frames when they are due, until close.
func (p *pipe) run() {
	defer close(p.ended)
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		p.mu.Lock()
		now := time.Now()
		for len(p.held) > 0 && !p.held[0].at.After(now) {
			hf := heap.Pop(&p.held).(heldFrame)
			p.deliverLocked(hf.b)
		}
		next := time.Hour
		if len(p.held) > 0 {
			next = p.held[0].at.Sub(now)
		}
		p.mu.Unlock()
		t.Reset(next)
		select {
		case <-p.done:
			return
		case <-p.wake:
		case <-t.C:
		}
	}
}

// close stops the pipe; held frames are dropped.
func (p *pipe) close() {
	close(p.done)
	<-p.ended
}

// heldFrame is a frame waiting for its release time.
type heldFrame struct {
	b   []byte
	at  time.Time
	seq uint64
}

// frameHeap orders held frames by release time, then arrival.
type frameHeap []heldFrame

func (h frameHeap) Len() int { return len(h) }
func (h frameHeap) Less(i, j int) bool {
	if !h[i].at.Equal(h[j].at) {
		return h[i].at.Before(h[j].at)
	}
	return h[i].seq < h[j].seq
}
func (h frameHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *frameHeap) Push(x any)   { *h = append(*h, x.(heldFrame)) }
func (h *frameHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = heldFrame{}
	*h = old[:len(old)-1]
	return x
}
