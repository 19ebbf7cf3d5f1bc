package zenoh

import (
	"context"
	"errors"
	"fmt"

	"github.com/afor-go/afor"
)

// Subscribe feeds an afor.Sub with every sample on key expressions
// intersecting key. Closing the Sub undeclares the subscriber; closing the
// session closes the Sub with ErrSessionClosed. Until its first consumer,
// the sub keeps the last [afor.DefaultQueueSize] samples for it
// ([afor.WithBacklog]; opts may change that).
func Subscribe(s *Session, key string, opts ...afor.Option) (*afor.Sub[Sample], error) {
	sub := afor.NewSub[Sample](withBacklog(opts)...)
	zs, err := s.declareSubscriber(key, func(k string, d dataMsg) {
		sub.Input(toSample(k, &d))
	}, endSub(sub))
	if err != nil {
		sub.CloseWithError(err)
		return nil, err
	}
	sub.OnClose(func() { _ = zs.Undeclare() })
	return sub, nil
}

// SubscribeCodec feeds an afor.Sub with the payloads of samples on key
// expressions intersecting key, decoded by codec straight from the received
// bytes, which the session reuses once Decode returns (as afor.Codec
// allows) — unless codec is a PayloadKeeper, whose Decode gets bytes of
// its own. Deletions and payloads that fail to decode are skipped (the
// latter logged at debug level).
func SubscribeCodec[T any](s *Session, key string, codec afor.Codec[T], opts ...afor.Option) (*afor.Sub[T], error) {
	if codec == nil {
		return nil, fmt.Errorf("zenoh: SubscribeCodec: nil codec")
	}
	sub := afor.NewSub[T](withBacklog(opts)...)
	log := s.log
	keeps := keepsPayload(codec)
	zs, err := s.declareSubscriber(key, func(k string, d dataMsg) {
		if d.del {
			return
		}
		payload := d.payload
		if keeps {
			payload = d.take() // the codec's own bytes
		}
		v, err := codec.Decode(payload)
		if err != nil {
			log.Debug("zenoh: payload decode failed", "key", k, "err", err)
			return
		}
		sub.Input(v)
	}, endSub(sub))
	if err != nil {
		sub.CloseWithError(err)
		return nil, err
	}
	sub.OnClose(func() { _ = zs.Undeclare() })
	return sub, nil
}

// endSub closes an afor sub when its subscriber ends for any reason other
// than its own undeclaration.
func endSub[T any](sub *afor.Sub[T]) func(error) {
	return func(err error) {
		if !errors.Is(err, ErrUndeclared) {
			sub.CloseWithError(err)
		}
	}
}

// NewServer declares a queryable on key whose queries feed an afor.Server:
// each query's payload is decoded by reqCodec into a Responder's Request,
// and the response is encoded by resCodec and sent as the query's only
// reply (Fail sends an error reply); the query is finished after it. A
// query whose payload does not decode is answered with an error reply.
// Closing the server undeclares the queryable and fails the requests not
// yet answered; closing the session closes the server with
// ErrSessionClosed.
func NewServer[Req, Res any](s *Session, key string, reqCodec afor.Codec[Req], resCodec afor.Codec[Res], opts ...afor.Option) (*afor.Server[Req, Res], error) {
	if reqCodec == nil || resCodec == nil {
		return nil, fmt.Errorf("zenoh: NewServer: nil codec")
	}
	srv := afor.NewServer[Req, Res](opts...)
	handler := func(q *Query) {
		ctx, cancel := context.WithDeadline(context.Background(), q.Deadline())
		req, err := reqCodec.Decode(q.Payload)
		if err != nil {
			_ = q.ReplyErr(ctx, []byte("zenoh: request does not decode: "+err.Error()))
			cancel()
			q.Finish()
			return
		}
		r := afor.NewResponder(req, func(res Res, rerr error) error {
			defer cancel()
			if rerr != nil {
				return q.replyFinish(ctx, "", true, []byte(rerr.Error()))
			}
			b, err := resCodec.Append(nil, res)
			if err != nil {
				_ = q.replyFinish(ctx, "", true, []byte("zenoh: response does not encode: "+err.Error()))
				return err
			}
			return q.replyFinish(ctx, q.KeyExpr, false, b)
		})
		if !srv.Input(r) {
			_ = r.Fail(afor.ErrClosed)
		}
	}
	qa, err := s.declareQueryable(key, handler, func(err error) {
		if !errors.Is(err, ErrUndeclared) {
			srv.CloseWithError(err)
		}
	}, nil)
	if err != nil {
		srv.CloseWithError(err)
		return nil, err
	}
	srv.OnClose(func() { _ = qa.Undeclare() })
	return srv, nil
}

// NewClient returns an afor.Client whose calls are queries on key: the
// request is encoded by reqCodec as the query's payload and the first reply
// decoded by resCodec (an error reply becomes an error matching
// ErrReplyError). A call that reaches no queryable, or whose queryables all
// finish without replying, fails with an error matching afor.ErrNoServer;
// one whose query times out (opts may set WithTimeout; the call's context
// deadline applies too) with ErrQueryTimeout. WaitForServer waits until a
// queryable intersecting key is known.
func NewClient[Req, Res any](s *Session, key string, reqCodec afor.Codec[Req], resCodec afor.Codec[Res], opts ...GetOption) (*afor.Client[Req, Res], error) {
	if reqCodec == nil || resCodec == nil {
		return nil, fmt.Errorf("zenoh: NewClient: nil codec")
	}
	key, err := checkKeyExpr(key)
	if err != nil {
		return nil, err
	}
	if s.ctx.Err() != nil {
		return nil, ErrSessionClosed
	}
	all := append([]GetOption{WithConsolidation(ConsolidationNone)}, opts...)
	return afor.NewClient[Req, Res](&requester[Req, Res]{s: s, key: key, req: reqCodec, res: resCodec, opts: all}), nil
}

// requester carries an afor.Client's calls as queries.
type requester[Req, Res any] struct {
	s    *Session
	key  string
	req  afor.Codec[Req]
	res  afor.Codec[Res]
	opts []GetOption
}

// Send starts a query carrying req; reply gets the first answer.
func (r *requester[Req, Res]) Send(ctx context.Context, req Req, reply func(Res, error)) (func(), error) {
	b, err := r.req.Append(nil, req)
	if err != nil {
		return nil, fmt.Errorf("zenoh: request does not encode: %w", err)
	}
	opts := append(r.opts[:len(r.opts):len(r.opts)], WithQueryPayload(b))
	var answered bool
	var zero Res
	g, err := r.s.get(ctx, r.key, func(rp Reply) {
		if answered {
			return
		}
		answered = true
		if rp.Err != nil {
			reply(zero, rp.Err)
			return
		}
		v, err := r.res.Decode(rp.Sample.Payload)
		reply(v, err)
	}, func(timedOut bool) {
		if answered {
			return
		}
		answered = true
		if timedOut {
			reply(zero, ErrQueryTimeout)
			return
		}
		reply(zero, fmt.Errorf("%w: no queryable replied on %q", afor.ErrNoServer, r.key))
	}, opts)
	if err != nil {
		return nil, err
	}
	return g.finish, nil
}

// WaitReady waits for a queryable intersecting the client's key.
func (r *requester[Req, Res]) WaitReady(ctx context.Context) error {
	return r.s.waitQueryable(ctx, r.key)
}

// withBacklog puts the default backlog of a subscriber's sub before opts.
func withBacklog(opts []afor.Option) []afor.Option {
	return append([]afor.Option{afor.WithBacklog(afor.DefaultQueueSize)}, opts...)
}
