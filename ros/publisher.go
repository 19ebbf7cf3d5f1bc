package ros

import (
	"context"
	"fmt"
	"sync"

	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/internal/rmw"
)

// Publisher publishes messages of a generated type T on a topic. It is safe
// for concurrent use. Create one with [NewPublisher].
type Publisher[T any, PT interface {
	*T
	cdr.Message
}] struct {
	node    *Node
	topic   string
	pub     rmw.Publisher
	events  *publisherEvents
	untrack func()

	mu     sync.Mutex // guards buf and closed
	buf    []byte     // reused for every payload
	closed bool
}

// NewPublisher creates a publisher of messages of type T (a generated
// message such as std_msgs.String) on topic, a name resolved by the node
// (see [Node.ResolveTopicName]). An invalid topic name is an error matching
// ErrInvalidName, an invalid qos one matching ErrInvalidQoS.
//
//	pub, err := ros.NewPublisher[std_msgs.String](node, "chatter", ros.QoSDefault)
func NewPublisher[T any, PT interface {
	*T
	cdr.Message
}](n *Node, topic string, qos QoS) (*Publisher[T, PT], error) {
	var zero T
	full, rp, ev, err := createPublisher(n, topic, messageType(PT(&zero)), qos)
	if err != nil {
		return nil, err
	}
	p := &Publisher[T, PT]{node: n, topic: full, pub: rp, events: ev}
	p.mu.Lock() // Close waits for untrack to be set
	defer p.mu.Unlock()
	untrack, err := n.track(p.Close)
	if err != nil {
		ev.close()
		_ = rp.Close()
		return nil, err
	}
	p.untrack = untrack
	return p, nil
}

// Topic returns the fully qualified topic name.
func (p *Publisher[T, PT]) Topic() string { return p.topic }

// GID returns the publisher's GID, as subscribers see it in [MessageInfo].
func (p *Publisher[T, PT]) GID() GID { return GID(p.pub.GID()) }

// Publish encodes msg and publishes it. It does not keep msg. Encoding
// reuses one buffer per publisher, or on DDS the buffer of the message the
// writer's history let go of last (the history keeps the encoded message
// itself, not a copy), so publishing allocates nothing in the steady
// state.
func (p *Publisher[T, PT]) Publish(ctx context.Context, msg *T) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return fmt.Errorf("ros: publish on %s: %w", p.topic, ErrClosed)
	}
	buf, err := PT(msg).AppendCDR(p.buf[:0])
	if err != nil {
		return fmt.Errorf("ros: publish on %s: %w", p.topic, err)
	}
	if bp, ok := p.pub.(rmw.BufferPublisher); ok {
		// The middleware keeps buf rather than a copy of it and hands
		// back a buffer for the next message.
		p.buf, err = bp.PublishBuffer(ctx, buf)
	} else {
		p.buf = buf
		err = p.pub.Publish(ctx, buf)
	}
	if err != nil {
		return fmt.Errorf("ros: publish on %s: %w", p.topic, err)
	}
	p.events.published()
	return nil
}

// Events returns the publisher's QoS events: deadlines missed, liveliness
// lost, matched subscriptions, incompatible QoS.
func (p *Publisher[T, PT]) Events() *PublisherEvents { return &p.events.pub }

// Close removes the publisher from the graph and closes its events. Close
// is idempotent.
func (p *Publisher[T, PT]) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.mu.Unlock()
	p.untrack()
	err := p.pub.Close()
	p.events.close()
	return err
}

// createPublisher resolves topic and creates the middleware's publisher of
// type t on it and its events, for the typed publishers and the raw ones
// (raw.go).
func createPublisher(n *Node, topic string, t rmw.Type, qos QoS) (string, rmw.Publisher, *publisherEvents, error) {
	if err := n.checkOpen(); err != nil {
		return "", nil, nil, err
	}
	full, err := n.ResolveTopicName(topic)
	if err != nil {
		return "", nil, nil, err
	}
	if err := qos.Validate(); err != nil {
		return "", nil, nil, fmt.Errorf("ros: publisher on %s: %w", full, err)
	}
	n.warnOtherTypes(full, t.Name)
	rp, err := n.rn.CreatePublisher(full, t, qos.rmw())
	if err != nil {
		return "", nil, nil, fmt.Errorf("ros: publisher on %s: %w", full, err)
	}
	return full, rp, newPublisherEvents(n, full, t, qos, rp), nil
}
