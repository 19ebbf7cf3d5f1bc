// Package mem is afor's in-process transport and its embedded default: a
// [Bus] carries typed values between publishers and subscribers on Zenoh key
// expressions (wildcards work), and requests from clients to servers, without
// serialization and without a goroutine per message.
//
// Buses are independent of each other; there is no global bus. A subscriber
// receives the values published, with the same Go type T, on every key that
// its key expression intersects.
package mem

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/keyexpr"
)

// ErrClosed is returned when using a closed [Bus].
var ErrClosed = errors.New("mem: bus closed")

// ErrTypeMismatch is returned by [Publish] when subscribers match the key
// but none of them takes values of the published type, so the value reached
// nobody.
var ErrTypeMismatch = errors.New("mem: no matching subscriber takes this type")

// Bus is an in-process message bus. The zero value is not usable; create one
// with [NewBus].
type Bus struct {
	logger  *slog.Logger
	version atomic.Uint64 // bumped on every (un)subscription

	mu      sync.Mutex
	subs    []*entry
	servers []*entry
	closed  bool
	changed chan struct{} // closed and replaced on every change
}

// entry is one subscriber or server: target is a *afor.Sub[T] or a
// *afor.Server[Req, Res].
type entry struct {
	key    keyexpr.KeyExpr
	target any
	close  func()
}

// Option configures a [Bus].
type Option func(*Bus)

// WithLogger sets the bus's logger (default [slog.Default]).
func WithLogger(l *slog.Logger) Option { return func(b *Bus) { b.logger = l } }

// NewBus returns an empty bus.
func NewBus(opts ...Option) *Bus {
	b := &Bus{logger: slog.Default(), changed: make(chan struct{})}
	for _, o := range opts {
		o(b)
	}
	return b
}

// Close closes every subscriber and server of the bus; later calls to
// Subscribe and NewServer fail with [ErrClosed] and publishing reaches
// nobody. Close is idempotent.
func (b *Bus) Close() {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.closed = true
	entries := append(slices.Clone(b.subs), b.servers...)
	b.mu.Unlock()
	for _, e := range entries {
		e.close()
	}
}

func (b *Bus) add(list *[]*entry, e *entry) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return ErrClosed
	}
	*list = append(*list, e)
	b.bump()
	return nil
}

func (b *Bus) remove(list *[]*entry, e *entry) {
	b.mu.Lock()
	defer b.mu.Unlock()
	*list = slices.DeleteFunc(*list, func(x *entry) bool { return x == e })
	b.bump()
}

// bump records a change (b.mu held).
func (b *Bus) bump() {
	b.version.Add(1)
	close(b.changed)
	b.changed = make(chan struct{})
}

// parseKey validates a canonical key expression; the error is keyexpr's,
// which names the canonical form of a non-canonical expression.
func parseKey(key string) (keyexpr.KeyExpr, error) {
	return keyexpr.New(key)
}

// Subscribe returns a sub that receives every value of type T published on a
// key intersecting key (a key expression, such as "robot/*/pose"). Closing
// the sub unsubscribes it. Until its first consumer, the sub keeps the last
// [afor.DefaultQueueSize] values for it ([afor.WithBacklog]; opts may
// change that).
func Subscribe[T any](b *Bus, key string, opts ...afor.Option) (*afor.Sub[T], error) {
	k, err := parseKey(key)
	if err != nil {
		return nil, err
	}
	opts = append([]afor.Option{afor.WithName("mem:" + k.String()), afor.WithBacklog(afor.DefaultQueueSize)}, opts...)
	s := afor.NewSub[T](opts...)
	e := &entry{key: k, target: s, close: s.Close}
	if err := b.add(&b.subs, e); err != nil {
		return nil, err
	}
	s.OnClose(func() { b.remove(&b.subs, e) })
	return s, nil
}

// Publisher publishes values of type T on one key expression.
type Publisher[T any] struct {
	bus    *Bus
	key    keyexpr.KeyExpr
	cache  atomic.Pointer[route[T]]
	mu     sync.Mutex // serializes route rebuilds
	warned atomic.Bool
}

// route is a publisher's cached list of matching subscribers.
type route[T any] struct {
	version uint64
	subs    []*afor.Sub[T]
	// others counts the subscribers on intersecting keys that take another
	// type than T.
	others int
}

// NewPublisher returns a publisher on key.
func NewPublisher[T any](b *Bus, key string) (*Publisher[T], error) {
	k, err := parseKey(key)
	if err != nil {
		return nil, err
	}
	return &Publisher[T]{bus: b, key: k}, nil
}

// Key returns the publisher's key expression.
func (p *Publisher[T]) Key() string { return p.key.String() }

// Publish delivers v to every matching subscriber of type T and returns how
// many took it. It never blocks and does not allocate once the route is
// cached. Subscribers of another type on intersecting keys do not take v: if
// they are the only ones, v reaches nobody, and the publisher logs a warning
// the first time ([Publish] returns [ErrTypeMismatch] instead).
func (p *Publisher[T]) Publish(v T) int {
	n, err := p.publish(v)
	if err != nil && !p.warned.Swap(true) {
		p.bus.logger.Warn("mem: published value reached nobody", "err", err)
	}
	return n
}

// publish is Publish, reporting a value lost to a type mismatch as an error
// matching ErrTypeMismatch.
func (p *Publisher[T]) publish(v T) (int, error) {
	r := p.cache.Load()
	if r == nil || r.version != p.bus.version.Load() {
		r = p.rebuild()
	}
	n := 0
	for _, s := range r.subs {
		if s.Input(v) {
			n++
		}
	}
	if n == 0 && r.others > 0 {
		return 0, fmt.Errorf("%w: %d subscriber(s) intersecting %s take another type than %T", ErrTypeMismatch, r.others, p.key, v)
	}
	return n, nil
}

func (p *Publisher[T]) rebuild() *route[T] {
	p.mu.Lock()
	defer p.mu.Unlock()
	b := p.bus
	b.mu.Lock()
	r := &route[T]{version: b.version.Load()}
	for _, e := range b.subs {
		if !e.key.Intersects(p.key) {
			continue
		}
		if s, ok := e.target.(*afor.Sub[T]); ok {
			r.subs = append(r.subs, s)
		} else {
			r.others++
		}
	}
	b.mu.Unlock()
	p.cache.Store(r)
	return r
}

// Publish is a one-shot [Publisher.Publish] on key. When subscribers match
// key but none of them takes T (a mem.Subscribe[float64] beside a Publish of
// the int 1, say), v reaches nobody and the error matches [ErrTypeMismatch].
func Publish[T any](b *Bus, key string, v T) (int, error) {
	p, err := NewPublisher[T](b, key)
	if err != nil {
		return 0, err
	}
	return p.publish(v)
}

// NewServer returns a server for requests of type Req sent by clients whose
// key intersects key. Closing it unregisters it.
func NewServer[Req, Res any](b *Bus, key string, opts ...afor.Option) (*afor.Server[Req, Res], error) {
	k, err := parseKey(key)
	if err != nil {
		return nil, err
	}
	opts = append([]afor.Option{afor.WithName("mem server:" + k.String())}, opts...)
	s := afor.NewServer[Req, Res](opts...)
	e := &entry{key: k, target: s, close: s.Close}
	if err := b.add(&b.servers, e); err != nil {
		return nil, err
	}
	s.OnClose(func() { b.remove(&b.servers, e) })
	return s, nil
}

// NewClient returns a client whose calls go to a server of the same types
// on a key intersecting key.
func NewClient[Req, Res any](b *Bus, key string) (*afor.Client[Req, Res], error) {
	k, err := parseKey(key)
	if err != nil {
		return nil, err
	}
	return afor.NewClient[Req, Res](&requester[Req, Res]{bus: b, key: k}), nil
}

type requester[Req, Res any] struct {
	bus *Bus
	key keyexpr.KeyExpr
}

// find returns a matching server and the channel closed on the next change.
func (r *requester[Req, Res]) find() (*afor.Server[Req, Res], <-chan struct{}) {
	b := r.bus
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range b.servers {
		if s, ok := e.target.(*afor.Server[Req, Res]); ok && e.key.Intersects(r.key) {
			return s, b.changed
		}
	}
	return nil, b.changed
}

func (r *requester[Req, Res]) Send(ctx context.Context, req Req, reply func(Res, error)) (func(), error) {
	srv, _ := r.find()
	if srv == nil {
		return nil, fmt.Errorf("mem: %s: %w", r.key, afor.ErrNoServer)
	}
	resp := afor.NewResponder(req, func(res Res, err error) error {
		reply(res, err)
		return nil
	})
	if !srv.Input(resp) {
		return nil, fmt.Errorf("mem: %s: %w", r.key, afor.ErrNoServer)
	}
	return func() {}, nil
}

func (r *requester[Req, Res]) WaitReady(ctx context.Context) error {
	if done := ctx.Done(); done != nil {
		select {
		case <-done:
			return ctx.Err() // a ctx that already ended means no more work
		default:
		}
	}
	for {
		srv, changed := r.find()
		if srv != nil {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
