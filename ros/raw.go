package ros

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/ros/internal/rmwdds"
)

// RawType names a message type at run time, for the raw (untyped) API:
// publishers, subscriptions and clients of CDR payloads whose type is not a
// generated Go type, as tools such as a command line need. Hash is the
// type's RIHS01 hash ("RIHS01_" and 64 hex digits): the graph gives it for
// a topic's type ([Endpoint].TypeHash), package ros/dynmsg computes it from
// the type's definition.
//
//	t := ros.RawType{Name: "std_msgs/msg/String", Hash: "RIHS01_df66…"}
type RawType struct {
	Name string // "std_msgs/msg/String"
	Hash string // "RIHS01_" and 64 hex digits
}

// RawServiceType names a service type and the types of its request and
// response, for [NewRawClient].
type RawServiceType struct {
	Service  RawType // "std_srvs/srv/SetBool"
	Request  RawType // "std_srvs/srv/SetBool_Request"
	Response RawType // "std_srvs/srv/SetBool_Response"
}

// RawMessage is a received CDR payload (encapsulation header included) and
// its [MessageInfo]. The payload is read-only and the receiver may keep it:
// nothing writes to it after delivery.
type RawMessage struct {
	Payload []byte
	Info    MessageInfo
}

// rmw converts t to the middleware's type, with the DDS name derived from
// the ROS name.
func (t RawType) rmw() (rmw.Type, error) {
	dds, err := rmwdds.DDSTypeName(t.Name)
	if err != nil {
		return rmw.Type{}, fmt.Errorf("%w: %w", ErrInvalidType, err)
	}
	return rmw.Type{Name: t.Name, DDSName: dds, Hash: t.Hash}, nil
}

func (t RawServiceType) rmw() (rmw.ServiceType, error) {
	var st rmw.ServiceType
	var err error
	if st.Service, err = t.Service.rmw(); err != nil {
		return st, err
	}
	if st.Request, err = t.Request.rmw(); err != nil {
		return st, err
	}
	st.Response, err = t.Response.rmw()
	return st, err
}

// ErrInvalidType is matched by the error for a [RawType] whose name is not
// in the form "pkg/ns/Name".
var ErrInvalidType = errors.New("ros: invalid type name")

// RawPublisher publishes CDR payloads of a type named at run time. It is
// safe for concurrent use. Create one with [NewRawPublisher].
type RawPublisher struct {
	node    *Node
	topic   string
	pub     rmw.Publisher
	events  *publisherEvents
	untrack func()

	mu     sync.Mutex // guards closed
	closed bool
}

// NewRawPublisher creates a publisher of CDR payloads of type t on topic,
// a name resolved by the node as for [NewPublisher].
func NewRawPublisher(n *Node, topic string, t RawType, qos QoS) (*RawPublisher, error) {
	rt, err := t.rmw()
	if err != nil {
		return nil, fmt.Errorf("ros: publisher on %s: %w", topic, err)
	}
	full, rp, ev, err := createPublisher(n, topic, rt, qos)
	if err != nil {
		return nil, err
	}
	p := &RawPublisher{node: n, topic: full, pub: rp, events: ev}
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
func (p *RawPublisher) Topic() string { return p.topic }

// GID returns the publisher's GID.
func (p *RawPublisher) GID() GID { return GID(p.pub.GID()) }

// Publish publishes payload, a complete CDR payload (encapsulation header
// included) of the publisher's type, as it is: it is not checked against
// the type. Publish does not keep payload.
func (p *RawPublisher) Publish(ctx context.Context, payload []byte) error {
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		return fmt.Errorf("ros: publish on %s: %w", p.topic, ErrClosed)
	}
	if err := p.pub.Publish(ctx, payload); err != nil {
		return fmt.Errorf("ros: publish on %s: %w", p.topic, err)
	}
	p.events.published()
	return nil
}

// Events returns the publisher's QoS events (see [Publisher.Events]).
func (p *RawPublisher) Events() *PublisherEvents { return &p.events.pub }

// Close removes the publisher from the graph and closes its events. Close
// is idempotent.
func (p *RawPublisher) Close() error {
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

// SubscribeRaw subscribes to topic (resolved by the node) with type t and
// returns every message as its CDR payload and [MessageInfo], in an
// [afor.Sub]. Payloads are not decoded, nor copied when the middleware
// hands its receive buffer over: they are read-only, and may be shared
// with other subscriptions to the topic. Closing the sub removes the subscription from the graph; closing
// the node closes the sub.
//
// A topic's type and hash can be read from the graph before subscribing:
//
//	g, err := node.Graph().WaitFor(ctx, func(g *ros.GraphSnapshot) bool { return len(g.Publishers("/chatter")) > 0 })
//	e := g.Publishers("/chatter")[0]
//	sub, err := ros.SubscribeRaw(node, "/chatter", ros.RawType{Name: e.Type, Hash: e.TypeHash}, ros.QoSDefault)
func SubscribeRaw(n *Node, topic string, t RawType, qos QoS, opts ...afor.Option) (*afor.Sub[RawMessage], error) {
	rt, err := t.rmw()
	if err != nil {
		return nil, fmt.Errorf("ros: subscription to %s: %w", topic, err)
	}
	return subscribeType(n, topic, rt, qos, opts, func(s *afor.Sub[RawMessage], m rmw.Message) error {
		p := m.Payload
		if !m.Stable { // the middleware reuses it: copy
			p = append([]byte(nil), p...)
		}
		s.Input(RawMessage{Payload: p, Info: infoFromRMW(m.Info)})
		return nil
	})
}

// NewRawClient creates a client of the service name (resolved by the
// node) of type t, whose requests and replies are CDR payloads, with the
// QoSServices profile. It lives as long as the node, as with [NewClient].
// Replies are copies the caller owns; they are not checked against the
// response type.
func NewRawClient(n *Node, name string, t RawServiceType) (*afor.Client[[]byte, []byte], error) {
	r, err := newRawRequester(n, name, t)
	if err != nil {
		return nil, err
	}
	return afor.NewClient[[]byte, []byte](r), nil
}

func newRawRequester(n *Node, name string, t RawServiceType) (*rawRequester, error) {
	st, err := t.rmw()
	if err != nil {
		return nil, fmt.Errorf("ros: client of %s: %w", name, err)
	}
	r := &rawRequester{}
	r.name, r.rc, err = createClient(n, name, st, &r.closed)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// rawRequester carries a raw client's requests over the middleware.
type rawRequester struct {
	name   string
	rc     rmw.Client
	closed atomic.Bool
}

func (r *rawRequester) Send(ctx context.Context, req []byte, reply func([]byte, error)) (func(), error) {
	if r.closed.Load() {
		return nil, fmt.Errorf("ros: call %s: %w", r.name, ErrClosed)
	}
	cancel, err := r.rc.Send(ctx, req, func(p []byte, err error) {
		if err != nil {
			reply(nil, err)
			return
		}
		reply(append([]byte(nil), p...), nil)
	})
	if err != nil {
		if r.closed.Load() && !errors.Is(err, ErrClosed) {
			err = fmt.Errorf("%w: %w", ErrClosed, err)
		}
		return nil, fmt.Errorf("ros: call %s: %w", r.name, err)
	}
	return cancel, nil
}

func (r *rawRequester) WaitReady(ctx context.Context) error {
	if r.closed.Load() {
		return fmt.Errorf("ros: wait for %s: %w", r.name, ErrClosed)
	}
	if err := r.rc.WaitReady(ctx); err != nil {
		if r.closed.Load() {
			return fmt.Errorf("ros: wait for %s: %w: %w", r.name, ErrClosed, err)
		}
		return err
	}
	return nil
}
