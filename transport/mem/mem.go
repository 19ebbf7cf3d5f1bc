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

func parseKey(key string) (keyexpr.KeyExpr, error) {
	k, err := keyexpr.New(key)
	if err != nil {
		return keyexpr.KeyExpr{}, fmt.Errorf("mem: %w", err)
	}
	return k, nil
}

// Subscribe returns a sub that receives every value of type T published on a
// key intersecting key (a key expression, such as "robot/*/pose"). Closing
// the sub unsubscribes it.
func Subscribe[T any](b *Bus, key string, opts ...afor.Option) (*afor.Sub[T], error) {
	k, err := parseKey(key)
	if err != nil {
		return nil, err
	}
	opts = append([]afor.Option{afor.WithName("mem:" + k.String())}, opts...)
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
	bus   *Bus
	key   keyexpr.KeyExpr
	cache atomic.Pointer[route[T]]
	mu    sync.Mutex // serializes route rebuilds
}

// route is a publisher's cached list of matching subscribers.
type route[T any] struct {
	version uint64
	subs    []*afor.Sub[T]
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

// Publish delivers v to every matching subscriber and returns how many took
// it. It never blocks and does not allocate once the route is cached.
func (p *Publisher[T]) Publish(v T) int {
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
	return n
}

func (p *Publisher[T]) rebuild() *route[T] {
	p.mu.Lock()
	defer p.mu.Unlock()
	b := p.bus
	b.mu.Lock()
	r := &route[T]{version: b.version.Load()}
	for _, e := range b.subs {
		if s, ok := e.target.(*afor.Sub[T]); ok && e.key.Intersects(p.key) {
			r.subs = append(r.subs, s)
		}
	}
	b.mu.Unlock()
	p.cache.Store(r)
	return r
}

// Publish is a one-shot [Publisher.Publish] on key.
func Publish[T any](b *Bus, key string, v T) (int, error) {
	p, err := NewPublisher[T](b, key)
	if err != nil {
		return 0, err
	}
	return p.Publish(v), nil
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
