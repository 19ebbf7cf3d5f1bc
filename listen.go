package afor

import (
	"context"
	"iter"
	"slices"
	"sync/atomic"
)

// ListenOption configures [Sub.Listen], [Sub.ListenReliable] and
// [Sub.Listener].
type ListenOption func(*listenOptions)

type listenOptions struct {
	fresh    bool
	latest   bool
	queue    int
	hasQueue bool
}

// Fresh makes a listener start empty: without it, a listener created on a
// sub that has a value yields that value first.
func Fresh() ListenOption { return func(o *listenOptions) { o.fresh = true } }

// QueueSize bounds a reliable listener's queue to n values; when a value
// arrives at a full queue the oldest queued value is dropped and counted.
// 0 means unbounded. It has no effect on [Sub.Listen], whose queue holds one.
// A negative n is a programming error: QueueSize panics.
func QueueSize(n int) ListenOption {
	checkQueueSize("QueueSize", n)
	return func(o *listenOptions) { o.queue, o.hasQueue = n, true }
}

// Listen returns a latest-value loop over the sub: each iteration yields the
// newest value, so a slow loop body skips what it missed. The listener is
// registered when Listen is called (values arriving before the first
// iteration are kept) and unregistered when the loop breaks, when ctx ends,
// or when the sub closes (after the queued value is yielded). A loop that is
// never started stays registered until ctx ends. The sequence can be ranged
// over once.
func (s *Sub[T]) Listen(ctx context.Context, opts ...ListenOption) iter.Seq[T] {
	o := listenOptions{}
	for _, opt := range opts {
		opt(&o)
	}
	o.queue, o.hasQueue, o.latest = 1, true, true
	return s.listener(ctx, o).All()
}

// ListenReliable returns a FIFO loop over the sub that yields every value in
// order. Its queue holds [DefaultQueueSize] values unless [QueueSize] says
// otherwise; on overflow the oldest queued value is dropped and counted in
// [Stats.Dropped]. Registration and ending are as for [Sub.Listen]; when the
// sub closes the loop first yields every value already queued.
func (s *Sub[T]) ListenReliable(ctx context.Context, opts ...ListenOption) iter.Seq[T] {
	return s.Listener(ctx, opts...).All()
}

// Listener registers, now, a reliable listener and returns it, for callers
// that want its drop counter or a pull-style [Listener.Next].
func (s *Sub[T]) Listener(ctx context.Context, opts ...ListenOption) *Listener[T] {
	o := listenOptions{}
	for _, opt := range opts {
		opt(&o)
	}
	if !o.hasQueue {
		o.queue = s.defaultQueue()
	}
	return s.listener(ctx, o)
}

func (s *Sub[T]) listener(ctx context.Context, o listenOptions) *Listener[T] {
	initial := 16
	if o.queue > 0 {
		initial = min(o.queue, initial)
	}
	l := &Listener[T]{
		sub:    s,
		ctx:    ctx,
		limit:  o.queue,
		latest: o.latest,
		buf:    make([]T, initial),
		notify: make(chan struct{}, 1),
	}
	s.mu.Lock()
	switch {
	case ctxDone(ctx) != nil:
		// A loop whose ctx already ended yields nothing and takes nothing
		// (a server's backlog stays for the next listener).
		l.ended, l.endErr = true, ctx.Err()
		s.mu.Unlock()
		return l
	case s.closed:
		l.ended, l.endErr = true, closedErr(s.err)
	default:
		// copy on write: Input wakes a snapshot of the list after unlocking
		s.listeners = append(slices.Clip(s.listeners), l)
	}
	var lost []T
	kept := s.endEarlyLocked()
	switch {
	case o.fresh:
	case len(kept) > 0 && !o.latest:
		for _, v := range kept {
			if _, dropped := l.push(v); dropped {
				s.dropped.Add(1)
			}
		}
	case s.keepBacklog:
		for _, v := range s.backlog {
			if old, dropped := l.push(v); dropped && s.onDrop != nil {
				lost = append(lost, old)
			}
		}
		s.backlog = nil
	case s.hasValue:
		l.push(s.value)
	}
	s.mu.Unlock()
	l.wake()
	for _, v := range lost {
		s.onDrop(v)
	}
	if ctx.Done() != nil {
		l.stopCtx = context.AfterFunc(ctx, func() { l.stop(ctx.Err()) })
	}
	return l
}

// Listener is one consumer's queue on a [Sub]. Use [Listener.All] to range
// over it or [Listener.Next] to pull values.
type Listener[T any] struct {
	sub     *Sub[T]
	ctx     context.Context
	limit   int  // 0: unbounded
	latest  bool // a Listen listener: drops are expected, not warned about
	notify  chan struct{}
	stopCtx func() bool
	used    atomic.Bool
	dropped atomic.Uint64

	// guarded by sub.mu
	buf     []T
	head, n int
	ended   bool
	endErr  error
	// A ctx other than the registration ctx that Next keeps being called
	// with is watched (an AfterFunc wakes the listener when it ends), so
	// that Next waits on one channel instead of a select.
	lastDone  <-chan struct{} // Done of the ctx of the previous wait
	watchDone <-chan struct{} // Done of the watched ctx
	watchStop func() bool
}

// push appends v (sub.mu held), dropping the oldest value when full. The
// caller wakes the listener after releasing the lock.
func (l *Listener[T]) push(v T) (old T, dropped bool) {
	if l.n == len(l.buf) {
		if l.limit > 0 && l.n >= l.limit {
			old = l.buf[l.head]
			l.buf[l.head] = v
			if l.head++; l.head == len(l.buf) {
				l.head = 0
			}
			if l.dropped.Add(1) == 1 && !l.latest {
				l.sub.log().Warn("afor: listener queue full, dropping oldest values", "sub", l.sub.String(), "queue", l.limit)
			}
			return old, true
		}
		l.grow()
	}
	i := l.head + l.n
	if i >= len(l.buf) {
		i -= len(l.buf)
	}
	l.buf[i] = v
	l.n++
	return old, false
}

func (l *Listener[T]) grow() {
	size := max(2*len(l.buf), 4)
	if l.limit > 0 {
		size = min(size, l.limit)
	}
	buf := make([]T, size)
	for i := range l.n {
		buf[i] = l.buf[(l.head+i)%len(l.buf)]
	}
	l.buf, l.head = buf, 0
}

func (l *Listener[T]) pop() T {
	var zero T
	v := l.buf[l.head]
	l.buf[l.head] = zero
	if l.head++; l.head == len(l.buf) {
		l.head = 0
	}
	l.n--
	return v
}

func (l *Listener[T]) wake() {
	select {
	case l.notify <- struct{}{}:
	default:
	}
}

// end marks the listener ended with err (sub.mu held); queued values stay
// available to Next.
func (l *Listener[T]) end(err error) {
	if l.ended {
		return
	}
	l.ended, l.endErr = true, err
	if l.watchStop != nil {
		l.watchStop()
		l.watchStop, l.watchDone = nil, nil
	}
	l.wake()
}

// stop unregisters the listener and discards its queue.
func (l *Listener[T]) stop(err error) {
	s := l.sub
	s.mu.Lock()
	if !l.ended {
		s.listeners = slices.DeleteFunc(slices.Clone(s.listeners), func(x *Listener[T]) bool { return x == l })
		l.end(err)
	}
	var lost []T
	for l.n > 0 {
		v := l.pop()
		if s.onDrop != nil {
			lost = append(lost, v)
		}
	}
	s.mu.Unlock()
	for _, v := range lost {
		s.onDrop(v)
	}
}

// Next returns the next queued value, waiting for one if needed. It returns
// ctx's error when ctx ends or had ended (taking nothing from the queue), the
// registration ctx's error when that ended, and an error matching
// [ErrClosed] once the listener was stopped or its sub closed and the queue
// is empty.
func (l *Listener[T]) Next(ctx context.Context) (T, error) {
	s := l.sub
	done := ctx.Done()
	if done != nil {
		select {
		case <-done:
			var zero T
			return zero, ctx.Err()
		default:
		}
	}
	for {
		s.mu.Lock()
		if l.n > 0 {
			v := l.pop()
			s.mu.Unlock()
			return v, nil
		}
		if l.ended {
			err := l.endErr
			s.mu.Unlock()
			var zero T
			return zero, err
		}
		// The end of the registration ctx ends the listener and wakes it;
		// the end of a watched ctx wakes it: then one channel to wait on
		// is enough, which is cheaper than a select.
		oneChan := done == nil || done == l.ctx.Done() || l.watch(ctx, done)
		if oneChan && done != nil && ctx.Err() != nil {
			s.mu.Unlock()
			var zero T
			return zero, ctx.Err()
		}
		s.mu.Unlock()
		if oneChan {
			<-l.notify
			continue
		}
		select {
		case <-l.notify:
		case <-ctx.Done():
			var zero T
			return zero, ctx.Err()
		}
	}
}

// watch reports whether the end of ctx wakes the listener (sub.mu held).
// A ctx is watched from the second wait in a row with it on, so that a
// loop that calls Next with the same ctx allocates once, and one that
// passes a new ctx every time allocates nothing.
func (l *Listener[T]) watch(ctx context.Context, done <-chan struct{}) bool {
	if done == l.watchDone {
		return true
	}
	if done != l.lastDone {
		l.lastDone = done
		return false
	}
	if l.watchStop != nil {
		l.watchStop()
	}
	l.watchDone, l.watchStop = done, context.AfterFunc(ctx, l.wake)
	return true
}

// All returns the listener as a loop that ends when the body breaks, when
// the registration ctx ends, or when the sub closes and the queue is empty.
// Leaving the loop stops the listener. It can be ranged over once; later
// loops yield nothing.
func (l *Listener[T]) All() iter.Seq[T] {
	return func(yield func(T) bool) {
		if !l.used.CompareAndSwap(false, true) {
			return
		}
		defer l.Stop()
		for {
			v, err := l.Next(l.ctx)
			if err != nil || !yield(v) {
				return
			}
		}
	}
}

// Stop unregisters the listener and discards the values still queued. It is
// idempotent.
func (l *Listener[T]) Stop() {
	l.stop(ErrClosed)
	if l.stopCtx != nil {
		l.stopCtx()
	}
}

// Dropped returns how many values this listener lost to a full queue.
func (l *Listener[T]) Dropped() uint64 { return l.dropped.Load() }

// Len returns how many values are queued.
func (l *Listener[T]) Len() int {
	l.sub.mu.Lock()
	defer l.sub.mu.Unlock()
	return l.n
}
