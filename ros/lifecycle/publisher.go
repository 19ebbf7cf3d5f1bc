package lifecycle

import (
	"context"
	"sync/atomic"

	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/cdr"
)

// Publisher is a lifecycle publisher: a publisher of a managed node that
// publishes only while the node is activating or active, as rclpy's and
// rclcpp's LifecyclePublisher. It is safe for concurrent use. Create one
// with [NewPublisher].
type Publisher[T any, PT interface {
	*T
	cdr.Message
}] struct {
	node   *Node
	pub    *ros.Publisher[T, PT]
	warned atomic.Uint64 // the activation epoch whose inactive period was warned of, plus one
}

// NewPublisher creates a lifecycle publisher of messages of type T on
// topic, as [ros.NewPublisher] does. It is in the graph from the start (a
// subscription matches it whatever the state), but its messages go out
// only while the node is activating or active.
func NewPublisher[T any, PT interface {
	*T
	cdr.Message
}](n *Node, topic string, qos ros.QoS) (*Publisher[T, PT], error) {
	pub, err := ros.NewPublisher[T, PT](n.Node, topic, qos)
	if err != nil {
		return nil, err
	}
	return &Publisher[T, PT]{node: n, pub: pub}, nil
}

// Publish publishes msg while the node is activating or active. At any
// other time it publishes nothing and returns nil, and the first such call
// after each activation (or since the start) logs the warning rclcpp
// logs: "Trying to publish message on the topic '/x', but the publisher is
// not activated". Errors are those of [ros.Publisher.Publish].
func (p *Publisher[T, PT]) Publish(ctx context.Context, msg *T) error {
	if !p.node.enabled.Load() {
		epoch := p.node.epoch.Load()
		if p.warned.Swap(epoch+1) != epoch+1 {
			p.node.logger.Warn("Trying to publish message on the topic '" + p.pub.Topic() + "', but the publisher is not activated")
		}
		return nil
	}
	return p.pub.Publish(ctx, msg)
}

// IsActivated reports whether messages go out now: the node is activating
// or active.
func (p *Publisher[T, PT]) IsActivated() bool { return p.node.enabled.Load() }

// Topic returns the fully qualified topic name.
func (p *Publisher[T, PT]) Topic() string { return p.pub.Topic() }

// GID returns the publisher's GID.
func (p *Publisher[T, PT]) GID() ros.GID { return p.pub.GID() }

// Close removes the publisher from the graph. Close is idempotent.
func (p *Publisher[T, PT]) Close() error { return p.pub.Close() }

// SubscriptionCount returns how many subscriptions the publisher matches,
// as [ros.Publisher.SubscriptionCount].
func (p *Publisher[T, PT]) SubscriptionCount() int { return p.pub.SubscriptionCount() }

// WaitForSubscriptions waits until the publisher matches at least n
// subscriptions, as [ros.Publisher.WaitForSubscriptions].
func (p *Publisher[T, PT]) WaitForSubscriptions(ctx context.Context, n int) error {
	return p.pub.WaitForSubscriptions(ctx, n)
}

// Events returns the publisher's QoS events (see [ros.Publisher.Events]).
// A deadline counts only what went out: an inactive lifecycle publisher
// misses its deadline.
func (p *Publisher[T, PT]) Events() *ros.PublisherEvents { return p.pub.Events() }
