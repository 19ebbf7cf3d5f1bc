package ros

import (
	"context"
	"fmt"

	"github.com/afor-go/afor/ros/internal/rmw"
)

// SubscriptionCount returns how many subscriptions the publisher reaches
// now, as rclpy's Publisher.get_subscription_count does: over DDS the
// subscriptions its writer has matched (compatible QoS, discovery done on
// both sides), over Zenoh and in memory the graph's subscriptions of the
// topic.
func (p *Publisher[T, PT]) SubscriptionCount() int {
	return subscriptionCount(p.node, p.topic, p.pub)
}

// WaitForSubscriptions waits until the publisher reaches at least n
// subscriptions (see [Publisher.SubscriptionCount]), or ctx ends. Unlike
// [Graph.WaitForSubscriber], which returns as soon as the graph lists a
// subscription, over DDS it also waits for the middleware to match the
// subscription's reader, so that a message published right after it
// returns is delivered to a volatile subscription.
func (p *Publisher[T, PT]) WaitForSubscriptions(ctx context.Context, n int) error {
	if err := waitSubscriptions(ctx, p.node, p.topic, p.pub, n); err != nil {
		return fmt.Errorf("ros: wait for %d subscriptions of %s: %w", n, p.topic, err)
	}
	return nil
}

// subscriptionCount counts the subscriptions reached by pub on topic.
func subscriptionCount(n *Node, topic string, pub rmw.Publisher) int {
	if m, ok := pub.(rmw.Matcher); ok {
		return m.Matched()
	}
	return len(n.Graph().Snapshot().Subscriptions(topic))
}

// waitSubscriptions waits until pub on topic reaches k subscriptions.
func waitSubscriptions(ctx context.Context, n *Node, topic string, pub rmw.Publisher, k int) error {
	if m, ok := pub.(rmw.Matcher); ok {
		return m.WaitMatched(ctx, k)
	}
	_, err := n.Graph().WaitFor(ctx, func(s *GraphSnapshot) bool { return len(s.Subscriptions(topic)) >= k })
	return err
}

// SubscriptionCount returns how many subscriptions the publisher reaches
// now (see [Publisher.SubscriptionCount]).
func (p *RawPublisher) SubscriptionCount() int {
	return subscriptionCount(p.node, p.topic, p.pub)
}

// WaitForSubscriptions waits until the publisher reaches at least n
// subscriptions, or ctx ends (see [Publisher.WaitForSubscriptions]).
func (p *RawPublisher) WaitForSubscriptions(ctx context.Context, n int) error {
	if err := waitSubscriptions(ctx, p.node, p.topic, p.pub, n); err != nil {
		return fmt.Errorf("ros: wait for %d subscriptions of %s: %w", n, p.topic, err)
	}
	return nil
}

// WaitForAllAcked waits until every reliable subscription the publisher
// reaches has acknowledged every message published before the call, or ctx
// ends, as rclpy's Publisher.wait_for_all_acked does. Over DDS the writer
// asks its readers at once; over Zenoh and in memory there is nothing to
// wait for. Call it before closing a publisher (or ending the program)
// right after its last messages: a reader that lost a datagram asks the
// writer to send it again, and a closed writer cannot.
func (p *Publisher[T, PT]) WaitForAllAcked(ctx context.Context) error {
	return waitAcked(ctx, p.topic, p.pub)
}

// WaitForAllAcked waits until the publisher's reliable subscriptions
// acknowledged everything published (see [Publisher.WaitForAllAcked]).
func (p *RawPublisher) WaitForAllAcked(ctx context.Context) error {
	return waitAcked(ctx, p.topic, p.pub)
}

// waitAcked waits for pub's acknowledgments when its middleware has any.
func waitAcked(ctx context.Context, topic string, pub rmw.Publisher) error {
	a, ok := pub.(rmw.AckWaiter)
	if !ok {
		return ctx.Err()
	}
	if err := a.WaitAcknowledged(ctx); err != nil {
		return fmt.Errorf("ros: wait for the acknowledgments of %s: %w", topic, err)
	}
	return nil
}
