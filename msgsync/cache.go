package msgsync

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/afor-go/afor"
)

// Cache keeps the latest messages of a sub by stamp, for lookups by time
// (ROS message_filters' Cache): the size messages with the latest stamps,
// in stamp order, messages of equal stamps in arrival order. A message
// arriving when the cache is full evicts the oldest, or is let go of
// itself if it is older than everything cached (message_filters' Cache
// evicts the oldest first, whatever the new message's stamp).
//
// The cache is fed from the sub's producer goroutine. Closing the cache
// detaches it from the sub; closing the sub closes the cache with the
// sub's error. All methods are safe for concurrent use. Create one with
// [NewCache].
type Cache[T any] struct {
	stamp func(T) time.Time
	size  int

	mu       sync.Mutex
	items    fifo[cached[T]] // by stamp
	waiters  []*cacheWaiter[T]
	closed   bool
	err      error
	done     chan struct{}
	inputs   uint64
	evicted  uint64
	rejected uint64
	detach   func()
}

type cached[T any] struct {
	stamp int64
	v     T
}

type cacheWaiter[T any] struct {
	at    int64
	ready chan T // buffered: the value, sent once
}

// CacheStats is a snapshot of a cache's counters.
type CacheStats struct {
	Inputs   uint64 // messages received
	Evicted  uint64 // messages let go of for a later one
	Rejected uint64 // messages let go of on arrival, older than a full cache
	Len      int    // messages cached
	Waiters  int    // pending WaitFor calls
}

// NewCache returns a cache of the size latest messages of in. A size below
// 1, or an Input without Sub or Stamp, is a programming error: NewCache
// panics.
func NewCache[T any](in Input[T], size int) *Cache[T] {
	in.check(0)
	if size < 1 {
		panic(fmt.Sprintf("msgsync: NewCache(..., %d): the size must be at least 1", size))
	}
	c := &Cache[T]{stamp: in.Stamp, size: size, done: make(chan struct{})}
	removeInput := in.Sub.OnInput(c.add)
	removeHook := in.Sub.OnClose(func() { c.closeWithError(in.Sub.Err()) })
	c.mu.Lock()
	c.detach = func() {
		removeInput()
		removeHook()
	}
	closed := c.closed
	c.mu.Unlock()
	if closed { // the sub was closed already
		c.detach()
	}
	return c
}

// add caches v.
func (c *Cache[T]) add(v T) {
	st, err := stampOf(c.stamp, v)
	if err != nil {
		c.closeWithError(fmt.Errorf("msgsync: cache: %w", err))
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.inputs++
	// Hand v to the waiters for a stamp it reaches, even if it is not kept.
	c.waiters = slices.DeleteFunc(c.waiters, func(w *cacheWaiter[T]) bool {
		if st < w.at {
			return false
		}
		w.ready <- v
		return true
	})
	if c.items.len() == c.size {
		if st < c.items.front().stamp {
			c.rejected++
			return
		}
		c.items.popFront(1)
		c.evicted++
	}
	// After every message stamped at or before st: a search from the back,
	// where a message in order goes.
	k := c.items.len()
	for k > 0 && c.items.at(k-1).stamp > st {
		k--
	}
	c.items.insert(k, cached[T]{stamp: st, v: v})
}

// search returns the index of the first cached message whose stamp is not
// below t (strict false) or above t (strict true) (c.mu held).
func (c *Cache[T]) search(t int64, strict bool) int {
	lo, hi := 0, c.items.len()
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		s := c.items.at(m).stamp
		if s < t || (strict && s == t) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// Interval returns the cached messages stamped from from to to, both
// included, oldest first (message_filters' getInterval). It does not wait.
func (c *Cache[T]) Interval(from, to time.Time) []T {
	c.mu.Lock()
	defer c.mu.Unlock()
	lo, hi := c.search(from.UnixNano(), false), c.search(to.UnixNano(), true)
	var out []T
	for k := lo; k < hi; k++ {
		out = append(out, c.items.at(k).v)
	}
	return out
}

// Surrounding returns the smallest run of cached messages that covers
// from to to: from the latest message stamped at or before from to the
// earliest stamped at or after to, or as close to that as the cache
// goes (message_filters' getSurroundingInterval). It returns nil when the
// cache is empty.
func (c *Cache[T]) Surrounding(from, to time.Time) []T {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.items.len()
	if n == 0 {
		return nil
	}
	// The latest message at or before from (the first if none).
	lo := max(c.search(from.UnixNano(), true)-1, 0)
	// The earliest message at or after to, from lo on (the last if none).
	hi := min(max(c.search(to.UnixNano(), false), lo), n-1)
	out := make([]T, 0, hi-lo+1)
	for k := lo; k <= hi; k++ {
		out = append(out, c.items.at(k).v)
	}
	return out
}

// Before returns the latest cached message stamped strictly before t
// (message_filters' getElemBeforeTime), and false if there is none.
func (c *Cache[T]) Before(t time.Time) (T, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := c.search(t.UnixNano(), false) - 1
	if k < 0 {
		var zero T
		return zero, false
	}
	return c.items.at(k).v, true
}

// After returns the earliest cached message stamped strictly after t
// (message_filters' getElemAfterTime), and false if there is none.
func (c *Cache[T]) After(t time.Time) (T, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := c.search(t.UnixNano(), true)
	if k == c.items.len() {
		var zero T
		return zero, false
	}
	return c.items.at(k).v, true
}

// Oldest returns the cached message of the earliest stamp, and false if the
// cache is empty.
func (c *Cache[T]) Oldest() (T, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.items.len() == 0 {
		var zero T
		return zero, false
	}
	return c.items.front().v, true
}

// Latest returns the cached message of the latest stamp (the last to
// arrive of those), and false if the cache is empty.
func (c *Cache[T]) Latest() (T, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.items.len() == 0 {
		var zero T
		return zero, false
	}
	return c.items.back().v, true
}

// Len returns the number of cached messages.
func (c *Cache[T]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.items.len()
}

// Stats returns the cache's counters.
func (c *Cache[T]) Stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{Inputs: c.inputs, Evicted: c.evicted, Rejected: c.rejected, Len: c.items.len(), Waiters: len(c.waiters)}
}

// WaitFor returns the earliest cached message stamped at or after t, or,
// if there is none, waits for the first message to arrive stamped at or
// after t. It returns ctx's error when ctx ends first (or had ended), and
// an error matching [afor.ErrClosed] (and the sub's error, if any) when the
// cache closes first.
func (c *Cache[T]) WaitFor(ctx context.Context, t time.Time) (T, error) {
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	at := t.UnixNano()
	c.mu.Lock()
	if c.closed {
		err := c.closedErr()
		c.mu.Unlock()
		return zero, err
	}
	if k := c.search(at, false); k < c.items.len() {
		v := c.items.at(k).v
		c.mu.Unlock()
		return v, nil
	}
	w := &cacheWaiter[T]{at: at, ready: make(chan T, 1)}
	c.waiters = append(c.waiters, w)
	c.mu.Unlock()
	select {
	case v := <-w.ready:
		return v, nil
	case <-c.done:
		select {
		case v := <-w.ready: // delivered before the close
			return v, nil
		default:
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		return zero, c.closedErr()
	case <-ctx.Done():
		c.mu.Lock()
		c.waiters = slices.DeleteFunc(c.waiters, func(x *cacheWaiter[T]) bool { return x == w })
		c.mu.Unlock()
		return zero, ctx.Err()
	}
}

// closedErr is the error of a wait on the closed cache (c.mu held).
func (c *Cache[T]) closedErr() error {
	if c.err == nil {
		return afor.ErrClosed
	}
	return fmt.Errorf("%w: %w", afor.ErrClosed, c.err)
}

// Close detaches the cache from its sub and empties it; pending and later
// waits return an error matching [afor.ErrClosed]. Lookups find nothing.
// Close is idempotent.
func (c *Cache[T]) Close() { c.closeWithError(nil) }

func (c *Cache[T]) closeWithError(err error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed, c.err = true, err
	c.items.clear()
	c.waiters = nil
	close(c.done)
	detach := c.detach
	c.mu.Unlock()
	if detach != nil {
		detach()
	}
}

// Done returns a channel closed when the cache closes.
func (c *Cache[T]) Done() <-chan struct{} { return c.done }

// Err returns nil while the cache is open or after [Cache.Close], and why
// it closed otherwise (its sub's error, a panicking stamp function).
func (c *Cache[T]) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}
