package rmwzenoh

import (
	"context"
	"strings"
	"sync/atomic"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/transport/zenoh"
)

// Query timeouts of rmw_zenoh's clients: the session's
// queries_default_timeout, and no timeout for an action's get_result.
const (
	ServiceTimeout   = 600 * time.Second
	GetResultTimeout = time.Duration(1<<63 - 1)
)

// service is an rmw.Service: a complete Zenoh queryable on the service's
// data key.
type service struct {
	entityBase
	key    string
	qa     *zenoh.Queryable
	closed atomic.Bool
}

var _ rmw.Service = (*service)(nil)

func newService(n *node, name string, t rmw.ServiceType, q rmw.QoS, handle func(rmw.Request)) (*service, error) {
	if err := checkEntity(name, t.Service); err != nil {
		return nil, err
	}
	if handle == nil {
		return nil, errorf(ErrInvalid, "nil handle function")
	}
	q, err := adaptQoS(q)
	if err != nil {
		return nil, err
	}
	e, tok := n.newEntity(kindService, name, t.Service.DDSName, t.Service.Hash, q)
	sess := n.s
	s := &service{entityBase: e, key: dataKey(sess.domain, name, t.Service.DDSName, t.Service.Hash)}
	s.qa, err = sess.z.DeclareQueryable(s.key, func(zq *zenoh.Query) {
		if s.closed.Load() {
			zq.Finish()
			return
		}
		a, err := parseAttachment(zq.Attachment)
		if err != nil {
			sess.droppedRequests.Add(1)
			sess.log.Debug("rmw_zenoh: request dropped", "key", zq.KeyExpr, "err", err)
			ctx, cancel := context.WithDeadline(context.Background(), zq.Deadline())
			_ = zq.ReplyErr(ctx, []byte("rmw_zenoh: request without a valid attachment"))
			cancel()
			zq.Finish()
			return
		}
		handle(rmw.Request{Payload: zq.Payload, Info: a.info(), Reply: s.replier(zq, a)})
	}, zenoh.Complete())
	if err != nil {
		return nil, err
	}
	if err := n.add(&s.entityBase, s, tok); err != nil {
		return nil, err
	}
	return s, nil
}

// replier returns the Reply function of one request: it answers once on
// the service key, with the request's sequence number and the client's GID
// in the attachment, and finishes the query.
func (s *service) replier(zq *zenoh.Query, req attachment) func([]byte, error) error {
	var done atomic.Bool
	return func(payload []byte, rerr error) error {
		if done.Swap(true) {
			return ErrAlreadyReplied
		}
		ctx, cancel := context.WithDeadline(context.Background(), zq.Deadline())
		defer cancel()
		if rerr != nil {
			err := zq.ReplyErr(ctx, []byte(rerr.Error()))
			zq.Finish()
			return err
		}
		att := appendAttachment(make([]byte, 0, attachmentSize),
			attachment{Seq: req.Seq, SourceTime: time.Now().UnixNano(), GID: req.GID})
		return zq.ReplyAndFinish(ctx, s.key, payload, zenoh.WithAttachment(att))
	}
}

// Close withdraws the token and the queryable (which finishes the queries
// not answered yet).
func (s *service) Close() error {
	_ = s.close()
	s.n.remove(s)
	return nil
}

func (s *service) close() error {
	if s.closed.Swap(true) {
		return nil
	}
	s.undeclareToken()
	_ = s.qa.Undeclare()
	return nil
}

// client is an rmw.Client: each request is a query on the service's data
// key, matched with its reply by sequence number.
type client struct {
	entityBase
	key     string
	name    string
	hash    string
	timeout time.Duration
	seq     atomic.Int64
	closed  atomic.Bool
}

var _ rmw.Client = (*client)(nil)

func newClient(n *node, name string, t rmw.ServiceType, q rmw.QoS) (*client, error) {
	if err := checkEntity(name, t.Service); err != nil {
		return nil, err
	}
	q, err := adaptQoS(q)
	if err != nil {
		return nil, err
	}
	e, tok := n.newEntity(kindClient, name, t.Service.DDSName, t.Service.Hash, q)
	c := &client{entityBase: e, key: dataKey(n.s.domain, name, t.Service.DDSName, t.Service.Hash),
		name: name, hash: t.Service.Hash, timeout: ServiceTimeout}
	if strings.Contains(name, "/_action/get_result") {
		c.timeout = GetResultTimeout
	}
	if err := n.add(&c.entityBase, c, tok); err != nil {
		return nil, err
	}
	return c, nil
}

// Send queries the service (target all complete, no consolidation) with
// payload and the next sequence number; reply gets the reply carrying that
// number, an error reply, or the reason none came.
func (c *client) Send(ctx context.Context, payload []byte, reply func([]byte, error)) (func(), error) {
	if c.closed.Load() {
		return nil, ErrClosed
	}
	sess := c.n.s
	seq := c.seq.Add(1)
	att := appendAttachment(make([]byte, 0, attachmentSize),
		attachment{Seq: seq, SourceTime: time.Now().UnixNano(), GID: c.gid})
	var done bool // guarded by the query's lock, under which both callbacks run
	return sess.z.GetFunc(ctx, c.key, func(r zenoh.Reply) {
		if done {
			return
		}
		if r.Err != nil {
			done = true
			reply(nil, r.Err)
			return
		}
		a, err := parseAttachment(r.Sample.Attachment)
		if err != nil || a.Seq != seq || a.GID != c.gid {
			sess.droppedReplies.Add(1)
			sess.log.Debug("rmw_zenoh: reply dropped", "key", r.Sample.KeyExpr, "err", err, "seq", a.Seq, "want", seq)
			return
		}
		done = true
		reply(r.Sample.Payload, nil)
	}, func(timedOut bool) {
		if done {
			return
		}
		done = true
		switch {
		case ctx.Err() != nil:
			reply(nil, context.Cause(ctx))
		case timedOut:
			reply(nil, zenoh.ErrQueryTimeout)
		default:
			reply(nil, errorf(afor.ErrNoServer, "no server answered on %q", c.name))
		}
	}, zenoh.WithQueryPayload(payload), zenoh.WithQueryAttachment(att),
		zenoh.WithTarget(zenoh.TargetAllComplete), zenoh.WithConsolidation(zenoh.ConsolidationNone),
		zenoh.WithTimeout(c.timeout))
}

// WaitReady waits until the graph has a server of the service (its name
// and type hash).
func (c *client) WaitReady(ctx context.Context) error {
	if c.closed.Load() {
		return ErrClosed
	}
	return c.n.s.graph.wait(ctx, func(g *rmw.Graph) bool {
		for i := range g.Endpoints {
			e := &g.Endpoints[i]
			if e.Kind == rmw.KindService && e.Name == c.name && e.TypeHash == c.hash {
				return true
			}
		}
		return false
	})
}

// Close withdraws the client's token; requests in flight run their course.
func (c *client) Close() error {
	_ = c.close()
	c.n.remove(c)
	return nil
}

func (c *client) close() error {
	if c.closed.Swap(true) {
		return nil
	}
	c.undeclareToken()
	return nil
}
