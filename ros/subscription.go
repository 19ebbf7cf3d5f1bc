package ros

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/internal/rmw"
)

// Subscribe subscribes to topic (a name resolved by the node, see
// [Node.ResolveTopicName]) and returns the messages of type T as an
// [afor.Sub]: wait on it, range over it, test against it. opts configure
// the sub (queue size, name, logger).
//
// Nothing is lost between Subscribe and the sub's first consumer: the sub
// keeps as many messages as the QoS history depth for it (KEEP_ALL:
// [afor.MaxBacklog]), such as a transient-local topic's history, which may
// arrive before Subscribe returns, and its first [afor.Sub.ListenReliable]
// or [afor.Sub.OnInput] starts with them, in order (see [afor.WithBacklog]).
// A ListenReliable queue is as deep as the history too, unless
// [afor.QueueSize] says otherwise.
//
// Closing the sub removes the subscription from the graph; closing the node
// closes the sub. A payload that does not decode as T is dropped, counted in
// [Node.Stats] and logged; the subscription goes on.
//
// Received messages are read-only and yours to keep: afor never writes or
// reuses a message, or a buffer one points into, once it is handed out. To
// spare large messages a copy, their byte and numeric sequences (an Image's
// or a PointCloud2's Data, float arrays) may be views of the buffer the
// middleware received them in, when it hands that buffer over (Zenoh and
// DDS do; see "Aliasing and ownership" in package cdr). Those bytes are
// shared with every consumer of the sub, and may be with other
// subscriptions of the context to the same topic: clone a slice
// (slices.Clone) before modifying it. Keeping a small slice of such a
// message keeps the whole received buffer alive.
//
//	sub, err := ros.Subscribe[std_msgs.String](node, "chatter", ros.QoSDefault)
//	msg, err := sub.WaitForNext(ctx)
func Subscribe[T any, PT interface {
	*T
	cdr.Message
}](n *Node, topic string, qos QoS, opts ...afor.Option) (*afor.Sub[T], error) {
	var d decoder[T, PT]
	return subscribe[T, PT](n, topic, qos, opts, func(s *afor.Sub[T], m rmw.Message) error {
		v, err := d.decode(m)
		if err != nil {
			return err
		}
		s.Input(v)
		return nil
	})
}

// SubscribeInfo is [Subscribe] with each message's [MessageInfo]
// (publisher GID, sequence number, timestamps).
func SubscribeInfo[T any, PT interface {
	*T
	cdr.Message
}](n *Node, topic string, qos QoS, opts ...afor.Option) (*afor.Sub[Received[T]], error) {
	var d decoder[T, PT]
	return subscribe[T, PT](n, topic, qos, opts, func(s *afor.Sub[Received[T]], m rmw.Message) error {
		v, err := d.decode(m)
		if err != nil {
			return err
		}
		s.Input(Received[T]{Msg: v, Info: infoFromRMW(m.Info)})
		return nil
	})
}

// subscribe creates the subscription for a sub of V; input decodes a
// message into the sub.
func subscribe[T any, PT interface {
	*T
	cdr.Message
}, V any](n *Node, topic string, qos QoS, opts []afor.Option, input func(*afor.Sub[V], rmw.Message) error) (*afor.Sub[V], error) {
	var zero T
	return subscribeType(n, topic, messageType(PT(&zero)), qos, opts, input)
}

// subscribeType creates the subscription of type t for a sub of V, as
// subscribe does; the raw subscriptions (raw.go) name their type at run
// time.
func subscribeType[V any](n *Node, topic string, t rmw.Type, qos QoS, opts []afor.Option, input func(*afor.Sub[V], rmw.Message) error) (*afor.Sub[V], error) {
	if err := n.checkOpen(); err != nil {
		return nil, err
	}
	full, err := n.ResolveTopicName(topic)
	if err != nil {
		return nil, err
	}
	if err := qos.Validate(); err != nil {
		return nil, fmt.Errorf("ros: subscription to %s: %w", full, err)
	}
	depth := qos.queueDepth()
	opts = append([]afor.Option{afor.WithName("ros:" + full), afor.WithLogger(n.logger),
		afor.WithDefaultQueueSize(depth), afor.WithBacklog(depth)}, opts...)
	s := afor.NewSub[V](opts...)
	n.warnOtherTypes(full, t.Name)
	var warned atomic.Bool
	ev := newSubscriptionEvents(n, full, t, qos)
	rs, err := n.rn.CreateSubscription(full, t, qos.rmw(), func(m rmw.Message) {
		ev.received(m.Info)
		if err := input(s, m); err != nil {
			n.malformedInput("message", full, &warned, err)
		}
	})
	if err != nil {
		ev.close()
		s.Close()
		return nil, fmt.Errorf("ros: subscription to %s: %w", full, err)
	}
	ev.watch(n, full, t, rs)
	untrack, err := n.track(func() error { s.Close(); return nil })
	if err != nil {
		ev.close()
		s.Close()
		_ = rs.Close()
		return nil, err
	}
	n.subEvents.Store(s, ev)
	s.OnClose(func() {
		untrack()
		n.subEvents.Delete(s)
		if err := rs.Close(); err != nil {
			n.logger.Warn("ros: closing a subscription", "topic", full, "err", err)
		}
		ev.close()
	})
	return s, nil
}

// decoder decodes payloads into a value it reuses, so that decoding does
// not allocate the T itself (a T on the stack escapes through the method
// call on PT). The value is zeroed first: what it held was handed out.
//
// A payload the middleware hands over (rmw.Message.Stable) is decoded with
// cdr.Options.Alias: the message's byte and numeric sequences are views of
// the received buffer, which nothing writes again, so a camera image is not
// copied once more. Any other payload is copied, since the middleware
// reuses its buffer once deliver returns.
type decoder[T any, PT interface {
	*T
	cdr.Message
}] struct {
	mu sync.Mutex
	v  *T
}

func (d *decoder[T, PT]) decode(m rmw.Message) (T, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.v == nil {
		d.v = new(T)
	}
	var zero T
	*d.v = zero
	var err error
	if m.Stable {
		err = cdr.UnmarshalAlias(m.Payload, PT(d.v))
	} else {
		err = PT(d.v).UnmarshalCDR(m.Payload)
	}
	return *d.v, err
}
