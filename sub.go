package afor

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
)

// Sub is a typed stream of values with a memory of the latest one.
//
// A transport (or any goroutine) feeds it with [Sub.Input]; consumers wait for
// single values or range over it. Input never blocks: every consumer has its
// own bounded queue, so a slow consumer loses values (counted) instead of
// slowing the producer or the other consumers.
//
// The zero value is an open Sub with no value and default options, ready to
// use; [NewSub] creates one with options. A Sub must not be copied after
// first use. All methods are safe for concurrent use.
type Sub[T any] struct {
	name   string
	logger *slog.Logger
	onDrop func(T) // called outside the lock for every value a consumer lost
	// keepBacklog keeps the values that arrive while no consumer is
	// registered, for the first listener (servers must not lose requests).
	keepBacklog bool
	// earlyLimit bounds the values kept for the first consumer
	// (WithBacklog); early is set while they are kept, that is until a
	// consumer registers.
	earlyLimit int
	early      atomic.Bool
	// replaying is set while the first OnInput callback is given the
	// values kept for it; cbMu orders Input's callbacks after that replay.
	replaying atomic.Bool
	cbMu      sync.Mutex
	defQueue  int  // default ListenReliable queue size, if queueSet
	queueSet  bool // false in the zero value: DefaultQueueSize

	closedFlag atomic.Bool
	callbacks  atomic.Pointer[[]*callback[T]]
	inputs     atomic.Uint64
	dropped    atomic.Uint64

	mu       sync.Mutex
	value    T
	hasValue bool
	// backlog holds, with keepBacklog, the values that arrived while
	// nobody listened, and while early, those that arrived before the
	// first consumer.
	backlog   []T
	listeners []*Listener[T]
	waiters   []*Waiter[T]
	closed    bool
	err       error
	hooks     []*hook
	done      chan struct{} // made on first use, so that the zero value works
}

type callback[T any] struct{ f func(T) }

type hook struct{ f func() }

// Option configures a [Sub] (and the subs that transports create).
type Option func(*options)

type options struct {
	name     string
	logger   *slog.Logger
	defQueue int
	hasQueue bool
	onDrop   any
	backlog  bool
	early    int
}

// WithName names the sub in logs and in [Sub.String].
func WithName(name string) Option { return func(o *options) { o.name = name } }

// WithLogger sets the logger for warnings such as a first queue overflow.
// The default is [slog.Default].
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithDefaultQueueSize sets the queue size that [Sub.ListenReliable] uses when
// the caller gives no [QueueSize]. The default is [DefaultQueueSize]; 0 means
// unbounded. A negative n is a programming error: WithDefaultQueueSize panics.
func WithDefaultQueueSize(n int) Option {
	checkQueueSize("WithDefaultQueueSize", n)
	return func(o *options) { o.defQueue, o.hasQueue = n, true }
}

func checkQueueSize(fn string, n int) {
	if n < 0 {
		panic(fmt.Sprintf("afor: %s(%d): negative queue size (0 means unbounded)", fn, n))
	}
}

// withOnDrop registers f for values a consumer lost (used by Server).
func withOnDrop[T any](f func(T)) Option { return func(o *options) { o.onDrop = f } }

// withServerBacklog keeps values that arrive while no consumer is
// registered (a server's requests).
func withServerBacklog() Option { return func(o *options) { o.backlog = true } }

// WithBacklog makes the sub keep up to n values that arrive before its
// first consumer registers, so that a consumer created after the sub loses
// nothing: the first non-[Fresh] reliable listener ([Sub.ListenReliable],
// [Sub.Listener]) starts with all of them, in order, and the first
// [Sub.OnInput] callback is called with each of them before any later
// value. Any other first consumer ends the backlog: a [Sub.Listen] loop
// starts with the latest value as usual, a waiter or a Fresh listener with
// nothing. From then on the sub keeps only its latest value between
// consumers. When more than n values arrive first, the oldest are dropped
// and counted in [Stats.Dropped].
//
// Transports give their subs a backlog (a ROS subscription as deep as its
// QoS history), so that "subscribe, then listen" never loses a message, as
// a transient-local topic's history that arrives at once. n <= 0 keeps
// none.
func WithBacklog(n int) Option { return func(o *options) { o.early = n } }

// MaxBacklog bounds how many requests a [Server] keeps while nobody consumes
// it (no listener, waiter or OnInput callback); beyond it the oldest is
// dropped and answered with an error.
const MaxBacklog = 1024

func hasCallbacks[T any](cbs *[]*callback[T]) bool { return cbs != nil && len(*cbs) > 0 }

// DefaultQueueSize is the queue size of [Sub.ListenReliable] unless
// configured otherwise.
const DefaultQueueSize = 10

// NewSub returns an open Sub with no value.
func NewSub[T any](opts ...Option) *Sub[T] {
	o := options{defQueue: DefaultQueueSize}
	for _, opt := range opts {
		opt(&o)
	}
	s := &Sub[T]{
		name:     o.name,
		logger:   o.logger,
		defQueue: o.defQueue,
		queueSet: true,
		done:     make(chan struct{}),
	}
	if f, ok := o.onDrop.(func(T)); ok {
		s.onDrop = f
	}
	s.keepBacklog = o.backlog
	if o.early > 0 && !o.backlog {
		s.earlyLimit = o.early
		s.early.Store(true)
	}
	return s
}

// log returns the sub's logger: the one given with [WithLogger], or
// [slog.Default] (looked up when used, so that the zero value logs too).
func (s *Sub[T]) log() *slog.Logger {
	if s.logger == nil {
		return slog.Default()
	}
	return s.logger
}

// defaultQueue returns the queue size of a ListenReliable without QueueSize.
func (s *Sub[T]) defaultQueue() int {
	if !s.queueSet {
		return DefaultQueueSize
	}
	return s.defQueue
}

// doneLocked returns the channel closed on Close (s.mu held), making it on
// first use.
func (s *Sub[T]) doneLocked() chan struct{} {
	if s.done == nil {
		s.done = make(chan struct{})
	}
	return s.done
}

// String returns the sub's name.
func (s *Sub[T]) String() string {
	if s.name == "" {
		return "afor.Sub"
	}
	return s.name
}

// Input offers v to the sub: it runs the [Sub.OnInput] callbacks in the
// calling goroutine, then hands v to every waiter and listener and makes it
// the latest value. It never blocks on a consumer. It returns false, and
// delivers nothing, once the sub is closed. The zero value of T is a valid
// value.
func (s *Sub[T]) Input(v T) bool {
	if s.closedFlag.Load() {
		return false
	}
	if s.early.Load() {
		if kept, ok := s.inputEarly(v); kept {
			return ok
		}
	}
	if cbs := s.callbacks.Load(); cbs != nil && len(*cbs) > 0 {
		if s.replaying.Load() {
			// The first callback is being given the values kept for it:
			// this one comes after them.
			s.cbMu.Lock()
			ok := s.runCallbacks(*cbs, v)
			s.cbMu.Unlock()
			if !ok {
				return false
			}
		} else if !s.runCallbacks(*cbs, v) {
			return false
		}
	}
	var lost []T
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return false
	}
	s.value, s.hasValue = v, true
	if s.keepBacklog && len(s.listeners)+len(s.waiters) == 0 && !hasCallbacks(s.callbacks.Load()) {
		if len(s.backlog) >= MaxBacklog {
			lost = append(lost, s.backlog[0])
			s.backlog = slices.Delete(s.backlog, 0, 1)
			s.dropped.Add(1)
		}
		s.backlog = append(s.backlog, v)
	}
	listeners := s.listeners // copy on write: safe to range after Unlock
	for _, l := range listeners {
		if old, dropped := l.push(v); dropped {
			s.dropped.Add(1)
			if s.onDrop != nil {
				lost = append(lost, old)
			}
		}
	}
	if len(s.waiters) > 0 {
		s.waiters = slices.DeleteFunc(s.waiters, func(w *Waiter[T]) bool { return w.offer(v) })
	}
	s.mu.Unlock()
	// Wake outside the lock, so that a woken consumer does not block on it.
	for _, l := range listeners {
		l.wake()
	}
	s.inputs.Add(1)
	for _, x := range lost {
		s.onDrop(x)
	}
	return true
}

// inputEarly keeps v for the first consumer while no consumer has
// registered. It reports whether it did (and whether the sub was open);
// when a consumer registered meanwhile, Input goes on as usual.
func (s *Sub[T]) inputEarly(v T) (kept, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return true, false
	}
	if !s.early.Load() {
		return false, false
	}
	s.value, s.hasValue = v, true
	if len(s.backlog) >= s.earlyLimit {
		var zero T
		s.backlog[0] = zero
		s.backlog = s.backlog[1:]
		s.dropped.Add(1)
	}
	s.backlog = append(s.backlog, v)
	s.inputs.Add(1)
	return true, true
}

// endEarlyLocked ends the backlog kept for the first consumer (s.mu held)
// and returns it.
func (s *Sub[T]) endEarlyLocked() []T {
	if !s.early.Load() {
		return nil
	}
	s.early.Store(false)
	kept := s.backlog
	s.backlog = nil
	return kept
}

func (s *Sub[T]) runCallbacks(cbs []*callback[T], v T) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			s.log().Error("afor: OnInput callback panicked; closing sub", "sub", s.String(), "panic", r)
			s.CloseWithError(&panicError{value: r})
			ok = false
		}
	}()
	for _, cb := range cbs {
		cb.f(v)
	}
	return true
}

// OnInput registers f to run synchronously, in the producer's goroutine, for
// every value given to Input, before any waiter or listener sees it. f must
// not block. A panic in f closes the sub with an error matching
// [ErrCallbackPanic] instead of crashing the process. The returned function
// removes the callback.
func (s *Sub[T]) OnInput(f func(T)) (remove func()) {
	cb := &callback[T]{f: f}
	early := s.early.Load()
	if early {
		s.cbMu.Lock()
		s.replaying.Store(true)
	}
	s.mu.Lock()
	old := s.callbacks.Load()
	var next []*callback[T]
	if old != nil {
		next = slices.Clone(*old)
	}
	next = append(next, cb)
	s.callbacks.Store(&next)
	var kept []T
	if !s.closed {
		kept = s.endEarlyLocked()
	}
	s.mu.Unlock()
	if early {
		// The first consumer is given what arrived before it, before any
		// later value: Input runs callbacks after this replay (cbMu).
		one := []*callback[T]{cb}
		for i, v := range kept {
			kept[i] = *new(T)
			if !s.runCallbacks(one, v) {
				break
			}
		}
		s.replaying.Store(false)
		s.cbMu.Unlock()
	}
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		cur := s.callbacks.Load()
		if cur == nil {
			return
		}
		next := slices.DeleteFunc(slices.Clone(*cur), func(c *callback[T]) bool { return c == cb })
		s.callbacks.Store(&next)
	}
}

// OnClose registers f to run once when the sub closes, in the goroutine that
// closes it, after every waiter and listener has been woken. Transports use it
// to release the entity that feeds the sub. If the sub is already closed, f
// runs at once. The returned function removes f if it has not run yet.
func (s *Sub[T]) OnClose(f func()) (remove func()) {
	h := &hook{f: f}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		f()
		return func() {}
	}
	s.hooks = append(s.hooks, h)
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		s.hooks = slices.DeleteFunc(s.hooks, func(x *hook) bool { return x == h })
		s.mu.Unlock()
	}
}

// Close closes the sub normally: pending waits return [ErrClosed], listeners
// yield what they already queued and then end, and Input returns false from
// now on. Close is idempotent.
func (s *Sub[T]) Close() { s.CloseWithError(nil) }

// CloseWithError closes the sub like [Sub.Close] and records err (if not nil)
// as the reason, reported by [Sub.Err] and wrapped in the errors of pending
// and later waits. Only the first close counts.
func (s *Sub[T]) CloseWithError(err error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.closedFlag.Store(true)
	s.err = err
	listeners, waiters, hooks := s.listeners, s.waiters, s.hooks
	s.listeners, s.waiters, s.hooks = nil, nil, nil
	var lost []T
	if s.onDrop != nil {
		lost = s.backlog
	}
	s.backlog = nil
	s.early.Store(false)
	endErr := closedErr(err)
	for _, l := range listeners {
		l.end(endErr)
	}
	for _, w := range waiters {
		w.end(endErr)
	}
	close(s.doneLocked())
	s.mu.Unlock()
	for _, x := range lost {
		s.onDrop(x)
	}
	for _, h := range hooks {
		h.f()
	}
}

// Done returns a channel that is closed when the sub closes.
func (s *Sub[T]) Done() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.doneLocked()
}

// Err returns nil while the sub is open or after a plain [Sub.Close], and the
// reason it ended otherwise (a transport failure, a panicking callback, a
// mapping error).
func (s *Sub[T]) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Value returns the latest value without waiting, and whether there is one.
func (s *Sub[T]) Value() (T, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.value, s.hasValue
}

// Stats is a snapshot of a sub's counters.
type Stats struct {
	Inputs    uint64 // values accepted by Input
	Dropped   uint64 // values lost by full queues (listeners', or the backlog's)
	Listeners int    // registered listeners
	Waiters   int    // armed waiters
	// Backlog counts the values kept for the first consumer
	// ([WithBacklog]) or, on a [Server], the requests nobody took yet.
	Backlog int
}

// Stats returns the sub's counters.
func (s *Sub[T]) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Stats{
		Inputs:    s.inputs.Load(),
		Dropped:   s.dropped.Load(),
		Listeners: len(s.listeners),
		Waiters:   len(s.waiters),
		Backlog:   len(s.backlog),
	}
}

// WaitForValue returns the latest value at once if the sub ever received
// one, else waits for the first. It returns ctx's error when ctx ends first
// (or had ended: see "Cancellation" in the package doc), and an error
// matching [ErrClosed] when the sub closes first. On a [Server], it takes the
// oldest request that arrived while nobody listened, if any.
func (s *Sub[T]) WaitForValue(ctx context.Context) (T, error) {
	if err := ctxDone(ctx); err != nil {
		var zero T
		return zero, err
	}
	// Checking for a value and arming the waiter is one step under s.mu: an
	// Input landing between the two would be neither seen nor waited for.
	s.mu.Lock()
	if s.keepBacklog && len(s.backlog) > 0 {
		v := s.backlog[0]
		s.backlog = s.backlog[1:]
		s.mu.Unlock()
		return v, nil
	}
	if s.hasValue {
		v := s.value
		s.mu.Unlock()
		return v, nil
	}
	w := s.armLocked(ctx, false)
	registered := !w.ended
	s.mu.Unlock()
	w.watchArmCtx(ctx, registered)
	return w.Wait(ctx)
}

// WaitForNew returns the newest value received after the call: if several
// arrive before the caller runs, the latest of them wins.
func (s *Sub[T]) WaitForNew(ctx context.Context) (T, error) {
	return s.ArmNew(ctx).Wait(ctx)
}

// WaitForNext returns exactly the first value received after the call.
func (s *Sub[T]) WaitForNext(ctx context.Context) (T, error) {
	return s.ArmNext(ctx).Wait(ctx)
}

// ArmNext registers, now, a waiter for the first value received after the
// call, to be collected later with [Waiter.Wait]. This is the two-phase form
// a test needs to arm, publish, then wait without a race. The waiter
// unregisters when Wait returns, on [Waiter.Stop], and when ctx ends, so an
// abandoned waiter leaks nothing.
func (s *Sub[T]) ArmNext(ctx context.Context) *Waiter[T] { return s.arm(ctx, false) }

// ArmNew is like [Sub.ArmNext] for the newest value received after the call.
func (s *Sub[T]) ArmNew(ctx context.Context) *Waiter[T] { return s.arm(ctx, true) }

func (s *Sub[T]) arm(ctx context.Context, newest bool) *Waiter[T] {
	s.mu.Lock()
	w := s.armLocked(ctx, newest)
	registered := !w.ended
	s.mu.Unlock()
	w.watchArmCtx(ctx, registered)
	return w
}

// armLocked creates a waiter and registers it (s.mu held). A waiter armed
// with a ctx that already ended, or on a closed sub, is ended at once.
func (s *Sub[T]) armLocked(ctx context.Context, newest bool) *Waiter[T] {
	w := &Waiter[T]{sub: s, newest: newest, ready: make(chan struct{}, 1), armDone: ctx.Done()}
	switch {
	case ctxDone(ctx) != nil:
		w.ended, w.endErr = true, ctx.Err()
	case s.closed:
		w.ended, w.endErr = true, closedErr(s.err)
	default:
		s.waiters = append(s.waiters, w)
		s.endEarlyLocked() // a waiter wants what comes after it
	}
	return w
}

// watchArmCtx unregisters a registered waiter when its arming ctx ends
// (called without s.mu: AfterFunc may run the function at once).
func (w *Waiter[T]) watchArmCtx(ctx context.Context, registered bool) {
	if registered && ctx.Done() != nil {
		w.stopCtx = context.AfterFunc(ctx, func() { w.cancel(ctx.Err()) })
	}
}

// Waiter is an armed wait for one value; see [Sub.ArmNext].
type Waiter[T any] struct {
	sub     *Sub[T]
	newest  bool
	ready   chan struct{}
	armDone <-chan struct{} // the arming ctx's Done
	stopCtx func() bool

	// guarded by sub.mu
	value  T
	has    bool
	ended  bool
	endErr error
	taken  bool
}

// offer hands v to the waiter (sub.mu held); it reports whether the waiter
// is satisfied for good and can be removed from the sub.
func (w *Waiter[T]) offer(v T) (remove bool) {
	if w.has && !w.newest {
		return true
	}
	w.value, w.has = v, true
	select {
	case w.ready <- struct{}{}:
	default:
	}
	return !w.newest
}

// end wakes the waiter with err (sub.mu held).
func (w *Waiter[T]) end(err error) {
	if w.ended {
		return
	}
	w.ended, w.endErr = true, err
	select {
	case w.ready <- struct{}{}:
	default:
	}
}

func (w *Waiter[T]) unregister() {
	w.sub.waiters = slices.DeleteFunc(w.sub.waiters, func(x *Waiter[T]) bool { return x == w })
}

func (w *Waiter[T]) cancel(err error) {
	s := w.sub
	s.mu.Lock()
	w.unregister()
	if !w.has {
		w.end(err)
	}
	s.mu.Unlock()
}

// Wait blocks until the armed value is there, ctx ends, the waiter's arming
// ctx ends, or the sub closes. Called with a ctx that already ended, it
// returns ctx's error and takes nothing (see "Cancellation" in the package
// doc): the waiter stops waiting, but a value it already holds is returned by
// a later Wait with a live ctx. Otherwise, after Wait returns, the waiter is
// unregistered and later calls return the same result.
func (w *Waiter[T]) Wait(ctx context.Context) (T, error) {
	s := w.sub
	if err := ctxDone(ctx); err != nil {
		w.cancel(err)
		var zero T
		return zero, err
	}
	for {
		s.mu.Lock()
		if w.has {
			v := w.value
			if !w.taken {
				w.taken = true
				w.unregister()
				w.ended = true
			}
			s.mu.Unlock()
			w.release()
			return v, nil
		}
		if w.ended {
			err := w.endErr
			s.mu.Unlock()
			w.release()
			var zero T
			return zero, err
		}
		s.mu.Unlock()
		if done := ctx.Done(); done == nil || done == w.armDone {
			// The end of the arming ctx ends the waiter and wakes it: one
			// channel to wait on is cheaper than a select.
			<-w.ready
			continue
		}
		select {
		case <-w.ready:
		case <-ctx.Done():
			w.cancel(ctx.Err())
		}
	}
}

// Stop unregisters the waiter; a pending Wait returns [ErrClosed]. It
// reports whether the waiter was still pending.
func (w *Waiter[T]) Stop() bool {
	s := w.sub
	s.mu.Lock()
	pending := !w.has && !w.ended
	if !w.has {
		w.unregister()
		w.end(ErrClosed)
	} else if !w.taken {
		w.unregister()
	}
	s.mu.Unlock()
	w.release()
	return pending
}

func (w *Waiter[T]) release() {
	if w.stopCtx != nil {
		w.stopCtx()
	}
}
