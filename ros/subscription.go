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
// Closing the sub removes the subscription from the graph; closing the node
// closes the sub. A payload that does not decode as T is dropped, counted in
// [Node.Stats] and logged; the subscription goes on.
//
//	sub, err := ros.Subscribe[std_msgs.String](node, "chatter", ros.QoSDefault)
//	msg, err := sub.WaitForNext(ctx)
func Subscribe[T any, PT interface {
	*T
	cdr.Message
}](n *Node, topic string, qos QoS, opts ...afor.Option) (*afor.Sub[T], error) {
	var d decoder[T, PT]
	return subscribe[T, PT](n, topic, qos, opts, func(s *afor.Sub[T], m rmw.Message) error {
		v, err := d.decode(m.Payload)
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
		v, err := d.decode(m.Payload)
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
	var zero T
	t := messageType(PT(&zero))
	opts = append([]afor.Option{afor.WithName("ros:" + full), afor.WithLogger(n.logger)}, opts...)
	s := afor.NewSub[V](opts...)
	n.warnOtherTypes(full, t.Name)
	var warned atomic.Bool
	rs, err := n.rn.CreateSubscription(full, t, qos.rmw(), func(m rmw.Message) {
		if err := input(s, m); err != nil {
			n.malformedInput("message", full, &warned, err)
		}
	})
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("ros: subscription to %s: %w", full, err)
	}
	untrack, err := n.track(func() error { s.Close(); return nil })
	if err != nil {
		s.Close()
		_ = rs.Close()
		return nil, err
	}
	s.OnClose(func() {
		untrack()
		if err := rs.Close(); err != nil {
			n.logger.Warn("ros: closing a subscription", "topic", full, "err", err)
		}
	})
	return s, nil
}

// decoder decodes payloads into a value it reuses, so that decoding does
// not allocate the T itself (a T on the stack escapes through the method
// call on PT). The value is zeroed first: what it held was handed out.
type decoder[T any, PT interface {
	*T
	cdr.Message
}] struct {
	mu sync.Mutex
	v  *T
}

func (d *decoder[T, PT]) decode(payload []byte) (T, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.v == nil {
		d.v = new(T)
	}
	var zero T
	*d.v = zero
	err := PT(d.v).UnmarshalCDR(payload)
	return *d.v, err
}
