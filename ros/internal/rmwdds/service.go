package rmwdds

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

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

// service is an rmw.Service: a request reader and a reply writer.
type service struct {
	n    *node
	rq   *dds.Reader
	rr   *dds.Writer
	once sync.Once
}

// CreateService creates the service's request reader and reply writer and
// calls handle for every request, on the participant's receive goroutine.
// Each request is answered in the form it came in: rmw_cyclonedds's header
// from Cyclone DDS peers, the inline sample identity of rmw_fastrtps from
// every other peer (Fast DDS, and other Go sessions).
func (n *node) CreateService(name string, t rmw.ServiceType, q rmw.QoS, handle func(rmw.Request)) (rmw.Service, error) {
	reqT, repT, reqQ, repQ, err := serviceTopics(name, t, q)
	if err != nil {
		return nil, err
	}
	rr, err := dds.NewWriter(n.s.p, repT, repQ)
	if err != nil {
		return nil, err
	}
	s := &service{n: n, rr: rr}
	rq, err := dds.NewReaderFunc(n.s.p, reqT, reqQ, func(smp dds.Sample) { s.onRequest(smp, handle) })
	if err != nil {
		_ = rr.Close()
		return nil, err
	}
	s.rq = rq
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
	v, ok := sess.vendorOf(smp.Writer)
	if ok && CorrelationFor(v) == CorrelationHeader {
		s.onHeaderRequest(smp, handle)
		return
	}
	errorReplies := ok && v == vendorAfor
	related := SampleIdentity{GUID: smp.Related.Writer, SN: smp.Related.SN}
	id := RequestID(smp.Writer, smp.SN, related, !smp.Related.IsZero())
	info := messageInfo(smp)
	var replied atomic.Bool
	handle(rmw.Request{Payload: smp.Payload, Info: info, Reply: func(payload []byte, err error) error {
		if replied.Swap(true) {
			return ErrAlreadyReplied
		}
		if err != nil {
			if !errorReplies {
				return nil // DDS has no error reply
			}
			payload = appendErrorReply(nil, err)
		}
		return s.replyIdentity(id, payload)
	}})
}

// replyMatchWait is how long a reply waits at least for the client's reply
// reader to match: rmw_fastrtps waits 100 ms (the reply writer's
// MaxBlocking), which a loaded machine overruns, losing the reply (a
// request from rclpy lost 1 in 20 under load); the reader is on its way,
// since its client's request writer matched already.
const replyMatchWait = time.Second

// replyIdentity writes the reply to request id with its inline sample
// identity. When id names the client's reply reader, it first waits for
// that reader to match, as a Fast DDS server does, up to the reply
// writer's MaxBlocking or replyMatchWait, whichever is longer, and drops
// the reply (counted) if it does not: the client could not receive it.
func (s *service) replyIdentity(id SampleIdentity, payload []byte) error {
	related, wait := ReplyIdentity(id)
	ctx := context.Background()
	if wait && !s.rr.MatchedReader(related.GUID) {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, max(s.rr.QoS().MaxBlocking, replyMatchWait))
		defer cancel()
		if err := s.rr.WaitMatchedReader(ctx, related.GUID); err != nil {
			s.n.s.droppedReplies.Add(1)
			s.n.s.log.Debug("rmwdds: reply dropped: the client's reply reader is not matched", "reader", related.GUID, "err", err)
			return nil
		}
	}
	_, err := s.rr.WriteRelated(ctx, payload, dds.SampleIdentity{Writer: related.GUID, SN: related.SN})
	return err
}

// onHeaderRequest handles a request in rmw_cyclonedds's form.
func (s *service) onHeaderRequest(smp dds.Sample, handle func(rmw.Request)) {
	sess := s.n.s
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

// client is an rmw.Client: a request writer and a reply reader. Each
// request takes the form of the service's participants (requestForm).
type client struct {
	n     *node
	name  string
	topic string // the request topic
	rq    *dds.Writer
	rr    *dds.Reader
	id    uint64 // Cyclone client id
	ident ClientIdentity
	once  sync.Once

	mu      sync.Mutex
	seq     int64
	pending map[pendingKey]*pendingRequest
	writing int                  // requests being written (sample identity form)
	early   map[int64]earlyReply // replies that came before their write returned
	closed  bool
}

// maxEarlyReplies bounds the replies a client keeps for requests still
// being written.
const maxEarlyReplies = 64

// earlyReply is a reply kept until its request's write returns.
type earlyReply struct {
	body []byte
	err  error
}

// pendingKey names a request in flight: by the Cyclone header's sequence
// number, or by the request's writer sequence number (sample identity).
type pendingKey struct {
	header bool
	n      int64
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
	c := &client{n: n, name: name, topic: reqT.Name, pending: make(map[pendingKey]*pendingRequest)}
	rr, err := dds.NewReaderFunc(n.s.p, repT, repQ, c.onReply)
	if err != nil {
		return nil, err
	}
	rq, err := dds.NewWriter(n.s.p, reqT, reqQ)
	if err != nil {
		_ = rr.Close()
		return nil, err
	}
	c.mu.Lock()
	c.rq, c.rr, c.id = rq, rr, CycloneClientID(rq.GUID())
	c.ident = ClientIdentity{RequestWriter: rq.GUID(), ReplyReader: rr.GUID()}
	c.mu.Unlock()
	if err := n.register(c, localEndpoint{rq.GUID(), reqT, reqQ}, localEndpoint{rr.GUID(), repT, repQ}); err != nil {
		_ = rq.Close()
		_ = rr.Close()
		return nil, err
	}
	return c, nil
}

// Send writes the request, in the form of the service's participants;
// reply gets the reply that answers it, or ctx's end. It fails with
// afor.ErrNoServer when no service's reader and writer are matched.
func (c *client) Send(ctx context.Context, payload []byte, reply func([]byte, error)) (func(), error) {
	if c.rq.Status().Matched == 0 || c.rr.Status().Matched == 0 {
		return nil, errorf(afor.ErrNoServer, "no server matched on %q", c.name)
	}
	if c.n.s.requestForm(c.topic) == CorrelationHeader {
		return c.sendHeader(ctx, payload, reply)
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	// The request's key, its sequence number, is known only once it is
	// written, and its reply may come first: onReply keeps such replies
	// while writes are in flight.
	c.writing++
	c.mu.Unlock()
	si, err := c.rq.WriteRelated(ctx, payload, dds.SampleIdentity{Writer: c.ident.ReplyReader, SN: dds.SNUnknown})
	c.mu.Lock()
	c.writing--
	early, isEarly := c.early[si.SN]
	delete(c.early, si.SN)
	if c.writing == 0 {
		clear(c.early)
	}
	if err != nil || c.closed {
		c.mu.Unlock()
		if err == nil {
			err = ErrClosed
		}
		return nil, err
	}
	if isEarly {
		// A server of this participant answered inside the write (its
		// callback ran there, see dds.Writer.Write): answer now, in the
		// caller's goroutine, as afor.Requester allows.
		c.mu.Unlock()
		reply(early.body, early.err)
		return func() {}, nil
	}
	return c.pendLocked(ctx, pendingKey{n: si.SN}, reply), nil
}

// sendHeader sends a request in rmw_cyclonedds's form.
func (c *client) sendHeader(ctx context.Context, payload []byte, reply func([]byte, error)) (func(), error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	c.seq++
	h := CycloneHeader{ClientID: c.id, Seq: c.seq}
	key := pendingKey{header: true, n: c.seq}
	cancel := c.pendLocked(ctx, key, reply)
	out, err := AppendCyclone(make([]byte, 0, len(payload)+cycloneHeaderSize), payload, h)
	if err == nil {
		err = c.rq.Write(ctx, out)
	}
	if err != nil {
		if pr := c.take(key); pr != nil {
			pr.stop()
		}
		return nil, err
	}
	return cancel, nil
}

// pendLocked records a request in flight and releases c.mu. It returns the
// request's cancel function.
func (c *client) pendLocked(ctx context.Context, key pendingKey, reply func([]byte, error)) func() {
	pr := &pendingRequest{reply: reply}
	c.pending[key] = pr
	// Set under c.mu, which the function takes first: it sees pr.stop set,
	// and so does onReply.
	pr.stop = context.AfterFunc(ctx, func() {
		if c.take(key) != nil {
			reply(nil, context.Cause(ctx))
		}
	})
	c.mu.Unlock()
	return func() {
		if c.take(key) != nil {
			pr.stop()
		}
	}
}

// take removes and returns the pending request key, nil if it is gone.
func (c *client) take(key pendingKey) *pendingRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	pr := c.pending[key]
	delete(c.pending, key)
	return pr
}

// onReply delivers a reply to its request: by its inline sample identity
// when it has one, else by its Cyclone header.
func (c *client) onReply(smp dds.Sample) {
	var key pendingKey
	body := smp.Payload
	c.mu.Lock()
	ident, id := c.ident, c.id
	c.mu.Unlock()
	if !smp.Related.IsZero() {
		sn, ok := ident.Accept(SampleIdentity{GUID: smp.Related.Writer, SN: smp.Related.SN})
		if !ok {
			return // another client's
		}
		key = pendingKey{n: sn}
	} else {
		h, b, err := CutCyclone(smp.Payload)
		if err != nil {
			c.n.s.droppedReplies.Add(1)
			c.n.s.log.Debug("rmwdds: reply dropped", "writer", smp.Writer, "err", err)
			return
		}
		if h.ClientID != id {
			return // another client's
		}
		key, body = pendingKey{header: true, n: h.Seq}, b
	}
	var rerr error
	if err, ok := parseErrorReply(body); ok {
		if v, known := c.n.s.vendorOf(smp.Writer); known && v == vendorAfor {
			body, rerr = nil, err
		}
	}
	c.mu.Lock()
	pr := c.pending[key]
	delete(c.pending, key)
	if pr == nil && !key.header && c.writing > 0 && len(c.early) < maxEarlyReplies {
		// The reply to a request whose write has not returned yet.
		if c.early == nil {
			c.early = make(map[int64]earlyReply)
		}
		c.early[key.n] = earlyReply{body: body, err: rerr}
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	if pr == nil {
		c.n.s.droppedReplies.Add(1)
		return
	}
	pr.stop()
	pr.reply(body, rerr)
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
		c.pending = make(map[pendingKey]*pendingRequest)
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
