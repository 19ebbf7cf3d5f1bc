package rmwdds

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/transport/dds"
)

// serviceTopics returns the DDS topics and QoS of a service's requests and
// replies.
func serviceTopics(name string, t rmw.ServiceType, q rmw.QoS) (req, rep dds.Topic, reqQ, repQ dds.QoS, err error) {
	rq, err := RequestTopic(name)
	if err != nil {
		return
	}
	rr, err := ReplyTopic(name)
	if err != nil {
		return
	}
	if t.Request.DDSName == "" || t.Response.DDSName == "" {
		err = errorf(ErrInvalid, "service type %q without DDS names", t.Service.Name)
		return
	}
	if reqQ, err = DDSQoS(q, t.Request.Hash); err != nil {
		return
	}
	if repQ, err = DDSQoS(q, t.Response.Hash); err != nil {
		return
	}
	return dds.Topic{Name: rq, TypeName: t.Request.DDSName}, dds.Topic{Name: rr, TypeName: t.Response.DDSName}, reqQ, repQ, nil
}

// usesHeader reports whether requests and replies exchanged with a
// participant of vendor v carry rmw_cyclonedds's header. Fast DDS's form
// needs inline QoS, which transport/dds does not expose yet, so between
// Go sessions the header is used too.
func usesHeader(v [2]byte) bool {
	return CorrelationFor(v) == CorrelationHeader || v == vendorAfor
}

// service is an rmw.Service: a request reader and a reply writer.
type service struct {
	n    *node
	rq   *dds.Reader
	rr   *dds.Writer
	once sync.Once
}

// CreateService creates the service's request reader and reply writer and
// calls handle for every request, on the participant's receive goroutine.
// Requests in Cyclone's form (from Cyclone DDS and Go peers) are answered
// in that form; requests from Fast DDS peers are dropped and counted until
// transport/dds exposes inline QoS.
func (n *node) CreateService(name string, t rmw.ServiceType, q rmw.QoS, handle func(rmw.Request)) (rmw.Service, error) {
	reqT, repT, reqQ, repQ, err := serviceTopics(name, t, q)
	if err != nil {
		return nil, err
	}
	rr, err := dds.NewWriter(n.s.p, repT, repQ)
	if err != nil {
		return nil, err
	}
	rq, err := dds.NewReader(n.s.p, reqT, reqQ)
	if err != nil {
		_ = rr.Close()
		return nil, err
	}
	s := &service{n: n, rq: rq, rr: rr}
	rq.Sub().OnInput(func(smp dds.Sample) { s.onRequest(smp, handle) })
	if err := n.register(s, localEndpoint{rq.GUID(), reqT, reqQ}, localEndpoint{rr.GUID(), repT, repQ}); err != nil {
		_ = rq.Close()
		_ = rr.Close()
		return nil, err
	}
	return s, nil
}

// onRequest hands a request to handle with its Reply function.
func (s *service) onRequest(smp dds.Sample, handle func(rmw.Request)) {
	sess := s.n.s
	if v, ok := sess.vendorOf(smp.Writer); !ok || !usesHeader(v) {
		sess.droppedRequests.Add(1)
		sess.log.Debug("rmwdds: request in Fast DDS's form dropped (no inline QoS yet)", "writer", smp.Writer)
		return
	}
	h, body, err := CutCyclone(smp.Payload)
	if err != nil {
		sess.droppedRequests.Add(1)
		sess.log.Debug("rmwdds: request dropped", "writer", smp.Writer, "err", err)
		return
	}
	info := messageInfo(smp)
	info.PublisherGID = h.GID()
	info.Sequence = h.Seq
	var replied atomic.Bool
	handle(rmw.Request{Payload: body, Info: info, Reply: func(payload []byte, err error) error {
		if replied.Swap(true) {
			return ErrAlreadyReplied
		}
		if err != nil {
			return nil // DDS has no error reply
		}
		out, err := AppendCyclone(make([]byte, 0, len(payload)+cycloneHeaderSize), payload, h)
		if err != nil {
			return err
		}
		return s.rr.Write(context.Background(), out)
	}})
}

// GID returns the request reader's GUID.
func (s *service) GID() rmw.GID { return GIDOf(s.rq.GUID()) }

// Close closes the request reader and the reply writer.
func (s *service) Close() error {
	s.once.Do(func() {
		_ = s.rq.Close()
		_ = s.rr.Close()
		s.n.unregister(s, s.rq.GUID(), s.rr.GUID())
	})
	return nil
}

// client is an rmw.Client: a request writer and a reply reader, speaking
// Cyclone's form.
type client struct {
	n    *node
	name string
	rq   *dds.Writer
	rr   *dds.Reader
	id   uint64
	once sync.Once

	mu      sync.Mutex
	seq     int64
	pending map[int64]*pendingRequest
	closed  bool
}

// pendingRequest is a request waiting for its reply.
type pendingRequest struct {
	reply func([]byte, error)
	stop  func() bool // stops the ctx watch
}

// CreateClient creates the client's request writer and reply reader.
func (n *node) CreateClient(name string, t rmw.ServiceType, q rmw.QoS) (rmw.Client, error) {
	reqT, repT, reqQ, repQ, err := serviceTopics(name, t, q)
	if err != nil {
		return nil, err
	}
	rr, err := dds.NewReader(n.s.p, repT, repQ)
	if err != nil {
		return nil, err
	}
	rq, err := dds.NewWriter(n.s.p, reqT, reqQ)
	if err != nil {
		_ = rr.Close()
		return nil, err
	}
	c := &client{n: n, name: name, rq: rq, rr: rr, id: CycloneClientID(rq.GUID()), pending: make(map[int64]*pendingRequest)}
	rr.Sub().OnInput(c.onReply)
	if err := n.register(c, localEndpoint{rq.GUID(), reqT, reqQ}, localEndpoint{rr.GUID(), repT, repQ}); err != nil {
		_ = rq.Close()
		_ = rr.Close()
		return nil, err
	}
	return c, nil
}

// Send writes the request with the client's id and next sequence number;
// reply gets the reply that echoes them, or ctx's end. It fails with
// afor.ErrNoServer when no service's reader and writer are matched.
func (c *client) Send(ctx context.Context, payload []byte, reply func([]byte, error)) (func(), error) {
	if c.rq.Status().Matched == 0 || c.rr.Status().Matched == 0 {
		return nil, errorf(afor.ErrNoServer, "no server matched on %q", c.name)
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	c.seq++
	seq := c.seq
	pr := &pendingRequest{reply: reply}
	c.pending[seq] = pr
	// Set under c.mu, which the function takes first: it sees pr.stop set,
	// and so does onReply.
	pr.stop = context.AfterFunc(ctx, func() {
		if c.take(seq) != nil {
			reply(nil, context.Cause(ctx))
		}
	})
	c.mu.Unlock()
	out, err := AppendCyclone(make([]byte, 0, len(payload)+cycloneHeaderSize), payload, CycloneHeader{ClientID: c.id, Seq: seq})
	if err == nil {
		err = c.rq.Write(ctx, out)
	}
	if err != nil {
		if c.take(seq) != nil {
			pr.stop()
		}
		return nil, err
	}
	return func() {
		if c.take(seq) != nil {
			pr.stop()
		}
	}, nil
}

// take removes and returns the pending request seq, nil if it is gone.
func (c *client) take(seq int64) *pendingRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	pr := c.pending[seq]
	delete(c.pending, seq)
	return pr
}

// onReply delivers a reply to its request.
func (c *client) onReply(smp dds.Sample) {
	h, body, err := CutCyclone(smp.Payload)
	if err != nil {
		c.n.s.droppedReplies.Add(1)
		c.n.s.log.Debug("rmwdds: reply dropped", "writer", smp.Writer, "err", err)
		return
	}
	if h.ClientID != c.id {
		return // another client's
	}
	pr := c.take(h.Seq)
	if pr == nil {
		c.n.s.droppedReplies.Add(1)
		return
	}
	pr.stop()
	pr.reply(body, nil)
}

// WaitReady waits until a service's request reader and reply writer are
// matched.
func (c *client) WaitReady(ctx context.Context) error {
	if err := c.rq.WaitMatched(ctx, 1); err != nil {
		return err
	}
	return c.rr.WaitMatched(ctx, 1)
}

// GID returns the request writer's GUID.
func (c *client) GID() rmw.GID { return GIDOf(c.rq.GUID()) }

// Close closes the writer and the reader; requests in flight get ErrClosed.
func (c *client) Close() error {
	c.once.Do(func() {
		c.mu.Lock()
		c.closed = true
		pending := c.pending
		c.pending = make(map[int64]*pendingRequest)
		c.mu.Unlock()
		// Taken out of the map, they get no other reply: a ctx watch
		// that already fired finds nothing to answer.
		for _, pr := range pending {
			pr.stop()
			pr.reply(nil, ErrClosed)
		}
		_ = c.rq.Close()
		_ = c.rr.Close()
		c.n.unregister(c, c.rq.GUID(), c.rr.GUID())
	})
	return nil
}
