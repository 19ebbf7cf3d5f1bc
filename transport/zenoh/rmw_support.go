package zenoh

import (
	"context"
	"fmt"
	"strings"
)

// GetFunc sends a query on selector like Get, but hands each reply to
// onReply as it arrives instead of queueing it for an iterator, and calls
// onDone once at the end (timedOut reports whether the query's timeout
// passed before every reached queryable finished). Both run on session
// goroutines, under the query's lock: they must not block and must not call
// cancel. The returned cancel abandons the query (onDone still runs once);
// it is idempotent. ctx ending abandons the query too.
//
// GetFunc is what middlewares built on this package (rmw_zenoh's
// conventions) use to send many concurrent requests without a goroutine
// per request.
func (s *Session) GetFunc(ctx context.Context, selector string, onReply func(Reply), onDone func(timedOut bool), opts ...GetOption) (cancel func(), err error) {
	g, err := s.get(ctx, selector, onReply, onDone, opts)
	if err != nil {
		return nil, err
	}
	return g.finish, nil
}

// AcceptsAnyKey reports whether the query's parameters hold "_anyke",
// Zenoh's reserved parameter by which a querier accepts replies on keys
// that do not intersect its key expression.
func (q *Query) AcceptsAnyKey() bool {
	for p := range strings.SplitSeq(q.Parameters, ";") {
		if k, _, _ := strings.Cut(p, "="); k == "_anyke" {
			return true
		}
	}
	return false
}

// ReplyAnyKey answers the query like Reply, but with a sample on a key that
// need not intersect the query's key expression, which Zenoh allows when
// the query accepts any key (see AcceptsAnyKey; zenoh-ext's advanced
// subscribers ask so in their history queries). It fails with
// ErrInvalidKeyExpr for a query that does not.
func (q *Query) ReplyAnyKey(ctx context.Context, key string, payload []byte, opts ...PutOption) error {
	if !q.AcceptsAnyKey() {
		return fmt.Errorf("%w: reply key %q: query %q does not accept any key", ErrInvalidKeyExpr, key, q.Selector())
	}
	k, err := checkKeyExpr(key)
	if err != nil {
		return err
	}
	var o putOptions
	for _, f := range opts {
		f(&o)
	}
	r := outReply{key: k, payload: payload, attachment: o.attachment, ts: o.ts, hasTS: o.hasTS}
	if o.encID != 0 || len(o.schema) != 0 {
		r.enc = encodingFromWire(o.encID, o.schema)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.finished {
		return ErrQueryFinished
	}
	return q.req.sink.reply(ctx, &r)
}
