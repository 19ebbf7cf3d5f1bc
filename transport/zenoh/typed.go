package zenoh

import (
	"context"
	"fmt"
	"sync"

	"github.com/afor-go/afor"
)

// TypedPublisher publishes values of type T on one key expression, each
// encoded by its codec into a buffer the publisher reuses: the Zenoh
// counterpart of mem.Publisher and of [SubscribeCodec]. Create one with
// [NewPublisher]. Its methods are safe for concurrent use.
type TypedPublisher[T any] struct {
	pub   *Publisher
	codec afor.Codec[T]
	mu    sync.Mutex // guards buf
	buf   []byte
}

// NewPublisher declares a publisher on key whose values are encoded by
// codec; opts apply to every Put (WithEncoding, say).
func NewPublisher[T any](s *Session, key string, codec afor.Codec[T], opts ...PutOption) (*TypedPublisher[T], error) {
	if codec == nil {
		return nil, fmt.Errorf("zenoh: NewPublisher: nil codec")
	}
	pub, err := s.DeclarePublisher(key, opts...)
	if err != nil {
		return nil, err
	}
	return &TypedPublisher[T]{pub: pub, codec: codec}, nil
}

// Put encodes v and publishes it, as [Publisher.Put] does with bytes. An
// encoding failure is returned and nothing is sent.
func (p *TypedPublisher[T]) Put(ctx context.Context, v T, opts ...PutOption) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	b, err := p.codec.Append(p.buf[:0], v)
	if err != nil {
		return fmt.Errorf("zenoh: encode %T for %s: %w", v, p.pub.key, err)
	}
	p.buf = b
	return p.pub.Put(ctx, b, opts...)
}

// Publisher returns the byte publisher underneath, for Delete and
// HasMatchingSubscribers.
func (p *TypedPublisher[T]) Publisher() *Publisher { return p.pub }

// KeyExpr returns the publisher's key expression.
func (p *TypedPublisher[T]) KeyExpr() string { return p.pub.key }

// WaitMatching waits until a subscriber would receive the publisher's
// values; see [Publisher.WaitMatching].
func (p *TypedPublisher[T]) WaitMatching(ctx context.Context) error { return p.pub.WaitMatching(ctx) }

// Undeclare ends the publisher; later Puts return ErrUndeclared.
func (p *TypedPublisher[T]) Undeclare() error { return p.pub.Undeclare() }
