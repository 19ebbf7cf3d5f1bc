package ros

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/internal/rmw"
)

// ServiceType is implemented by the generated service types (such as
// std_srvs.SetBool): it names the service and gives the codecs of its
// request and response. [NewServer] and [NewClient] infer Req and Res from
// it.
type ServiceType[Req, Res any, PReq interface {
	*Req
	cdr.Message
}, PRes interface {
	*Res
	cdr.Message
}] interface {
	cdr.Named
	RequestCodec() cdr.MessageCodec[Req, PReq]
	ResponseCodec() cdr.MessageCodec[Res, PRes]
}

func serviceType[Req, Res any, PReq interface {
	*Req
	cdr.Message
}, PRes interface {
	*Res
	cdr.Message
}](srv ServiceType[Req, Res, PReq, PRes]) rmw.ServiceType {
	var req Req
	var res Res
	return rmw.ServiceType{Service: messageType(srv), Request: messageType(PReq(&req)), Response: messageType(PRes(&res))}
}

// NewServer creates a server of the service name (resolved by the node, see
// [Node.ResolveServiceName]) of type srv, such as std_srvs.SetBool{}, with
// the QoSServices profile. Every request becomes an [afor.Responder] to
// answer now or later, from any goroutine; a request that is never answered
// gets an error reply when the server closes. opts configure the server's
// sub.
//
// A request that does not decode is dropped, counted in [Node.Stats],
// logged, and answered with an error where the middleware can. Closing the
// server removes the service from the graph; closing the node closes it.
//
//	srv, err := ros.NewServer(node, "set_flag", std_srvs.SetBool{})
//	for r := range srv.ListenReliable(ctx) {
//		r.Respond(std_srvs.SetBoolResponse{Success: true})
//	}
func NewServer[Req, Res any, PReq interface {
	*Req
	cdr.Message
}, PRes interface {
	*Res
	cdr.Message
}](n *Node, name string, srv ServiceType[Req, Res, PReq, PRes], opts ...afor.Option) (*afor.Server[Req, Res], error) {
	if err := n.checkOpen(); err != nil {
		return nil, err
	}
	full, err := n.ResolveServiceName(name)
	if err != nil {
		return nil, err
	}
	opts = append([]afor.Option{afor.WithName("ros service:" + full), afor.WithLogger(n.logger)}, opts...)
	s := afor.NewServer[Req, Res](opts...)
	var warned atomic.Bool
	rs, err := n.rn.CreateService(full, serviceType(srv), QoSServices.rmw(), func(r rmw.Request) {
		var req Req
		if err := PReq(&req).UnmarshalCDR(r.Payload); err != nil {
			n.malformedInput("request", full, &warned, err)
			_ = r.Reply(nil, fmt.Errorf("ros: malformed request: %w", err))
			return
		}
		resp := afor.NewResponder(req, func(res Res, err error) error {
			if err != nil {
				return r.Reply(nil, err)
			}
			payload, err := PRes(&res).AppendCDR(nil)
			if err != nil {
				_ = r.Reply(nil, fmt.Errorf("ros: encoding the response: %w", err))
				return err
			}
			return r.Reply(payload, nil)
		})
		if !s.Input(resp) {
			_ = resp.Fail(afor.ErrRequestDropped)
		}
	})
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("ros: service %s: %w", full, err)
	}
	untrack, err := n.track(func() error { s.Close(); return nil })
	if err != nil {
		s.Close()
		_ = rs.Close()
		return nil, err
	}
	untype := n.types.addService(serviceType(srv))
	s.OnClose(func() {
		untrack()
		untype()
		if err := rs.Close(); err != nil {
			n.logger.Warn("ros: closing a service", "service", full, "err", err)
		}
	})
	return s, nil
}

// NewClient creates a client of the service name (resolved by the node) of
// type srv, such as std_srvs.SetBool{}, with the QoSServices profile. Its
// Call sends a request and waits for the reply; WaitForServer waits until a
// server of the service is in the graph. The client lives as long as the
// node: closing the node removes it from the graph, and its calls then fail
// with an error matching ErrClosed.
func NewClient[Req, Res any, PReq interface {
	*Req
	cdr.Message
}, PRes interface {
	*Res
	cdr.Message
}](n *Node, name string, srv ServiceType[Req, Res, PReq, PRes]) (*afor.Client[Req, Res], error) {
	r, err := newRequester(n, name, srv)
	if err != nil {
		return nil, err
	}
	return afor.NewClient[Req, Res](r), nil
}

func newRequester[Req, Res any, PReq interface {
	*Req
	cdr.Message
}, PRes interface {
	*Res
	cdr.Message
}](n *Node, name string, srv ServiceType[Req, Res, PReq, PRes]) (*requester[Req, Res, PReq, PRes], error) {
	r := &requester[Req, Res, PReq, PRes]{node: n}
	var err error
	r.name, r.rc, err = createClient(n, name, serviceType(srv), &r.closed)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// createClient resolves name and creates the middleware's client of type
// t, which lives as long as the node: closing the node sets closed and
// closes the client. For the typed clients and the raw ones (raw.go).
func createClient(n *Node, name string, t rmw.ServiceType, closed *atomic.Bool) (string, rmw.Client, error) {
	if err := n.checkOpen(); err != nil {
		return "", nil, err
	}
	full, err := n.ResolveServiceName(name)
	if err != nil {
		return "", nil, err
	}
	rc, err := n.rn.CreateClient(full, t, QoSServices.rmw())
	if err != nil {
		return "", nil, fmt.Errorf("ros: client of %s: %w", full, err)
	}
	if _, err := n.track(func() error {
		closed.Store(true)
		return rc.Close()
	}); err != nil {
		_ = rc.Close()
		return "", nil, err
	}
	n.types.addService(t) // for the node's lifetime, as the client's
	return full, rc, nil
}

// requester carries a client's requests over the middleware.
type requester[Req, Res any, PReq interface {
	*Req
	cdr.Message
}, PRes interface {
	*Res
	cdr.Message
}] struct {
	node   *Node
	name   string
	rc     rmw.Client
	closed atomic.Bool
	warned atomic.Bool
}

func (r *requester[Req, Res, PReq, PRes]) Send(ctx context.Context, req Req, reply func(Res, error)) (func(), error) {
	if r.closed.Load() {
		return nil, fmt.Errorf("ros: call %s: %w", r.name, ErrClosed)
	}
	payload, err := PReq(&req).AppendCDR(nil)
	if err != nil {
		return nil, fmt.Errorf("ros: call %s: %w", r.name, err)
	}
	cancel, err := r.rc.Send(ctx, payload, func(p []byte, err error) {
		var res Res
		if err != nil {
			reply(res, err)
			return
		}
		if err := PRes(&res).UnmarshalCDR(p); err != nil {
			r.node.malformedInput("reply", r.name, &r.warned, err)
			reply(res, fmt.Errorf("ros: call %s: malformed reply: %w", r.name, err))
			return
		}
		reply(res, nil)
	})
	if err != nil {
		if r.closed.Load() && !errors.Is(err, ErrClosed) {
			err = fmt.Errorf("%w: %w", ErrClosed, err)
		}
		return nil, fmt.Errorf("ros: call %s: %w", r.name, err)
	}
	return cancel, nil
}

func (r *requester[Req, Res, PReq, PRes]) WaitReady(ctx context.Context) error {
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
