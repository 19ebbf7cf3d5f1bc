package zenoh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// DefaultQueryTimeout bounds a query when no WithTimeout is given, and a
// received query when its REQUEST carries no timeout (Zenoh's default).
const DefaultQueryTimeout = 10 * time.Second

// maxQueuedReplies bounds the replies a Get stream holds for a consumer
// that does not iterate; later replies are dropped (and logged).
const maxQueuedReplies = 1 << 16

// localQueryGrace is how long after its Get's timeout a local query is
// finished, so that the Get reports a timeout rather than an empty answer.
const localQueryGrace = 100 * time.Millisecond

// QueryTarget selects the queryables a query reaches.
type QueryTarget uint8

// Query targets, as in Zenoh.
const (
	// TargetBestMatching sends the query to a complete queryable that
	// includes the queried key if there is one, else to every matching
	// queryable.
	TargetBestMatching QueryTarget = QueryTarget(wire.TargetBestMatching)
	// TargetAll sends the query to every matching queryable.
	TargetAll QueryTarget = QueryTarget(wire.TargetAll)
	// TargetAllComplete sends the query to every complete queryable that
	// includes the queried key.
	TargetAllComplete QueryTarget = QueryTarget(wire.TargetAllComplete)
)

// Consolidation tells how a querier merges replies on the same key.
type Consolidation uint8

// Consolidation modes, as in Zenoh.
const (
	// ConsolidationAuto is ConsolidationLatest.
	ConsolidationAuto Consolidation = Consolidation(wire.ConsolidationAuto)
	// ConsolidationNone delivers every reply as it arrives.
	ConsolidationNone Consolidation = Consolidation(wire.ConsolidationNone)
	// ConsolidationMonotonic delivers a reply unless a newer one (by
	// timestamp) on the same key was already delivered.
	ConsolidationMonotonic Consolidation = Consolidation(wire.ConsolidationMonotonic)
	// ConsolidationLatest keeps only the newest reply per key and delivers
	// them when the query ends.
	ConsolidationLatest Consolidation = Consolidation(wire.ConsolidationLatest)
)

// GetOption adjusts a query.
type GetOption func(*getOptions)

type getOptions struct {
	payload       []byte
	hasPayload    bool
	encoding      Encoding
	attachment    []byte
	target        QueryTarget
	consolidation Consolidation
	timeout       time.Duration
	relay         bool // a query forwarded for a remote node
}

// WithQueryPayload sends a value with the query.
func WithQueryPayload(p []byte) GetOption {
	return func(o *getOptions) { o.payload, o.hasPayload = p, true }
}

// WithQueryEncoding sets the encoding of the query's value.
func WithQueryEncoding(e Encoding) GetOption { return func(o *getOptions) { o.encoding = e } }

// WithQueryAttachment attaches user bytes to the query.
func WithQueryAttachment(a []byte) GetOption { return func(o *getOptions) { o.attachment = a } }

// WithTarget selects the queryables the query reaches (default
// TargetBestMatching).
func WithTarget(t QueryTarget) GetOption { return func(o *getOptions) { o.target = t } }

// WithConsolidation sets how replies on one key are merged (default
// ConsolidationAuto).
func WithConsolidation(c Consolidation) GetOption {
	return func(o *getOptions) { o.consolidation = c }
}

// WithTimeout bounds the query (default DefaultQueryTimeout). The stream
// of replies ends when it passes even if a queryable did not finish.
func WithTimeout(d time.Duration) GetOption { return func(o *getOptions) { o.timeout = d } }

// Reply is one answer to a query: a sample, or an error reply.
type Reply struct {
	// Sample is the answer when Err is nil.
	Sample Sample
	// Err is a *ReplyError for an error reply, nil otherwise.
	Err error
}

// ReplyError is an error reply sent by a queryable. It matches
// ErrReplyError with errors.Is.
type ReplyError struct {
	// Payload describes the error.
	Payload []byte
	// Encoding is the payload's encoding.
	Encoding Encoding
}

// Error returns the error's payload as text.
func (e *ReplyError) Error() string { return "zenoh: error reply: " + string(e.Payload) }

// Unwrap returns ErrReplyError.
func (e *ReplyError) Unwrap() error { return ErrReplyError }

// replySink is where the answers to one incoming request go: a link (the
// request came from a remote node) or a local Get.
type replySink interface {
	reply(ctx context.Context, r *outReply) error
	final()
}

// outReply is an answer on its way out.
type outReply struct {
	key        string
	isErr      bool
	del        bool
	payload    []byte
	enc        Encoding
	attachment []byte
	ts         Timestamp
	hasTS      bool
}

// inRequest is one request dispatched to n local queryables; RESPONSE_FINAL
// goes when the last of their queries finishes.
type inRequest struct {
	mu   sync.Mutex
	left int
	sink replySink
	qs   []*Query  // its queries, for a request from a link
	one  [1]*Query // qs's storage for one query
}

func (r *inRequest) done() {
	if r.take() {
		r.sink.final()
	}
}

// take counts one query finished and reports whether it was the last.
func (r *inRequest) take() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.left--
	return r.left == 0
}

// Query is a query received by a Queryable. It may be answered at any
// time, from any goroutine, with any number of Reply, ReplyDelete and
// ReplyErr calls, and ends with Finish. A query that is not finished is
// finished anyway when its timeout passes, when its queryable is
// undeclared and when the session closes, so that the querier always
// learns that no more replies will come.
type Query struct {
	// KeyExpr is the queried key expression.
	KeyExpr string
	// Parameters is the part of the selector after '?' ("" for none).
	Parameters string
	// Payload is the value sent with the query (nil for none).
	Payload []byte
	// Encoding is the payload's encoding.
	Encoding Encoding
	// Attachment is the query's attachment (nil for none).
	Attachment []byte

	qa       *Queryable
	req      *inRequest
	deadline time.Time

	mu       sync.Mutex
	finished bool
	timer    *time.Timer
}

// Selector returns the query's key expression and parameters as
// "key?parameters".
func (q *Query) Selector() string {
	if q.Parameters == "" {
		return q.KeyExpr
	}
	return q.KeyExpr + "?" + q.Parameters
}

// Deadline returns when the query times out and is finished.
func (q *Query) Deadline() time.Time { return q.deadline }

// Reply answers the query with a sample on key, which must intersect the
// query's key expression. It waits (within ctx) only if the link's
// transmit queue is full. After Finish it returns ErrQueryFinished.
func (q *Query) Reply(ctx context.Context, key string, payload []byte, opts ...PutOption) error {
	return q.send(ctx, key, false, false, payload, opts, false)
}

// ReplyDelete answers the query with a deletion of key.
func (q *Query) ReplyDelete(ctx context.Context, key string, opts ...PutOption) error {
	return q.send(ctx, key, true, false, nil, opts, false)
}

// ReplyErr answers the query with an error reply carrying payload
// (WithEncoding sets its encoding; other options are ignored).
func (q *Query) ReplyErr(ctx context.Context, payload []byte, opts ...PutOption) error {
	return q.send(ctx, "", false, true, payload, opts, false)
}

// ReplyAndFinish answers the query with a last sample on key and finishes
// it, like Reply then Finish, but sending the reply and the end of the
// query together. The query is finished even if the reply fails.
func (q *Query) ReplyAndFinish(ctx context.Context, key string, payload []byte, opts ...PutOption) error {
	return q.replyFinish(ctx, key, false, payload, opts...)
}

// replyFinish sends one reply (isErr: an error reply) and finishes the
// query, queueing the reply and RESPONSE_FINAL together when they go to the
// same link.
func (q *Query) replyFinish(ctx context.Context, key string, isErr bool, payload []byte, opts ...PutOption) error {
	err := q.send(ctx, key, false, isErr, payload, opts, true)
	if err != nil && !errors.Is(err, ErrQueryFinished) {
		q.Finish() // the reply was refused before finishing
	}
	return err
}

func (q *Query) send(ctx context.Context, key string, del, isErr bool, payload []byte, opts []PutOption, finish bool) error {
	if err := ctxDone(ctx); err != nil {
		return err
	}
	var o putOptions
	for _, f := range opts {
		f(&o)
	}
	if err := q.qa.s.checkSampleSize(key, payload, o.attachment, o.schema); err != nil {
		return err // a receiver would drop it (limits.go)
	}
	r := outReply{isErr: isErr, del: del, payload: payload, enc: encodingFromWire(o.encID, o.schema),
		attachment: o.attachment, ts: o.ts, hasTS: o.hasTS}
	if o.encID == 0 && len(o.schema) == 0 {
		r.enc = ""
	}
	if !isErr {
		k, err := checkKeyExpr(key)
		if err != nil {
			return err
		}
		if !intersects(k, q.KeyExpr) {
			return fmt.Errorf("%w: reply key %q does not intersect query %q", ErrInvalidKeyExpr, k, q.KeyExpr)
		}
		r.key = k
	} else {
		r.key = q.KeyExpr
	}
	q.mu.Lock()
	if q.finished {
		q.mu.Unlock()
		return ErrQueryFinished
	}
	if !finish {
		defer q.mu.Unlock()
		return q.req.sink.reply(ctx, &r)
	}
	q.finished = true
	if q.timer != nil {
		q.timer.Stop()
	}
	var err error
	last := q.req.take()
	if ls, ok := q.req.sink.(*linkSink); ok && last {
		err = ls.replyFinal(ctx, &r)
	} else {
		err = q.req.sink.reply(ctx, &r)
		if last {
			q.req.sink.final()
		}
	}
	q.mu.Unlock()
	q.qa.forget(q)
	return err
}

// Finish ends the query: no more replies can be sent, and the querier is
// told (once every queryable that received the same query finished).
// Finish is idempotent.
func (q *Query) Finish() {
	q.mu.Lock()
	if q.finished {
		q.mu.Unlock()
		return
	}
	q.finished = true
	if q.timer != nil {
		q.timer.Stop()
	}
	q.mu.Unlock()
	q.qa.forget(q)
	q.req.done()
}

// QueryableOption adjusts a queryable.
type QueryableOption func(*Queryable)

// Complete declares the queryable complete: it answers for every key its
// key expression includes (queries with TargetAllComplete reach it).
func Complete() QueryableOption { return func(qa *Queryable) { qa.complete = true } }

// Queryable answers the queries whose key expressions intersect its own.
type Queryable struct {
	s        *Session
	key      string
	id       uint32
	complete bool
	handler  func(*Query)
	onEnd    func(error)

	mu      sync.Mutex
	closed  bool
	pending map[*Query]struct{}
}

// KeyExpr returns the queryable's key expression.
func (qa *Queryable) KeyExpr() string { return qa.key }

// DeclareQueryable calls handler with every query whose key expression
// intersects key, from local Gets and from remote nodes it is announced
// to. handler runs on the goroutine that received the query and should
// return quickly; the Query may be answered and finished later from any
// goroutine.
func (s *Session) DeclareQueryable(key string, handler func(*Query), opts ...QueryableOption) (*Queryable, error) {
	if handler == nil {
		return nil, fmt.Errorf("zenoh: DeclareQueryable: nil handler")
	}
	return s.declareQueryable(key, handler, nil, opts)
}

func (s *Session) declareQueryable(key string, handler func(*Query), onEnd func(error), opts []QueryableOption) (*Queryable, error) {
	key, err := checkKeyExpr(key)
	if err != nil {
		return nil, err
	}
	qa := &Queryable{s: s, key: key, handler: handler, onEnd: onEnd, pending: make(map[*Query]struct{})}
	for _, o := range opts {
		o(qa)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrSessionClosed
	}
	s.nextID++
	qa.id = s.nextID
	s.addQablLocked(&qablEntry{id: qa.id, key: key, complete: qa.complete, local: qa})
	return qa, nil
}

// Undeclare stops the queryable, withdraws it from remote nodes and
// finishes its pending queries. It returns ErrUndeclared if already
// undeclared.
func (qa *Queryable) Undeclare() error {
	s := qa.s
	s.mu.Lock()
	s.removeQablLocked(qa.id)
	s.mu.Unlock()
	return qa.end(ErrUndeclared)
}

// end closes the queryable and finishes its pending queries.
func (qa *Queryable) end(cause error) error {
	qa.mu.Lock()
	if qa.closed {
		qa.mu.Unlock()
		return ErrUndeclared
	}
	qa.closed = true
	qs := make([]*Query, 0, len(qa.pending))
	for q := range qa.pending {
		qs = append(qs, q)
	}
	qa.mu.Unlock()
	for _, q := range qs {
		q.Finish()
	}
	if qa.onEnd != nil {
		qa.onEnd(cause)
	}
	return nil
}

func (qa *Queryable) forget(q *Query) {
	qa.mu.Lock()
	delete(qa.pending, q)
	qa.mu.Unlock()
}

// dispatch hands a new query to the queryable, or finishes it at once if
// the queryable is closed.
func (qa *Queryable) dispatch(q *Query, timeout time.Duration) {
	if q.qa == nil {
		q.qa = qa
	}
	qa.mu.Lock()
	if qa.closed {
		qa.mu.Unlock()
		q.mu.Lock()
		q.finished = true
		q.mu.Unlock()
		q.req.done()
		return
	}
	qa.pending[q] = struct{}{}
	qa.mu.Unlock()
	q.mu.Lock()
	if q.finished { // ended before it was handed over (its link went)
		q.mu.Unlock()
		qa.forget(q)
		return
	}
	q.timer = time.AfterFunc(timeout, q.Finish)
	q.mu.Unlock()
	qa.handler(q)
}

// qablEntry is a queryable known to the session: local (local set) or
// declared by a remote node over origin.
type qablEntry struct {
	id       uint32
	key      string
	complete bool
	origin   *link
	local    *Queryable
	relay    uint8 // how it is announced (routing_relay.go)
}

// qablVisible reports whether queryable e is announced to link l: our own
// go to everyone; a remote one goes to other links when one of the two ends
// is a client (peers forward queries for their clients only).
func qablVisible(e *qablEntry, l *link) bool {
	if e.origin == l {
		return false
	}
	return e.origin == nil || e.origin.isClient() || l.isClient()
}

// addQablLocked records a queryable and announces it.
func (s *Session) addQablLocked(e *qablEntry) {
	s.qabls[e.id] = e
	s.noteQablLocked(e, true)
	if e.relay = s.relayAddLocked(relayRef{kindQabl, e.id}, e.origin); e.relay != relayAgg {
		s.declareLocked(appendDeclareQueryable(nil, nil, e.id, e.key, e.complete), func(l *link) bool { return qablVisible(e, l) })
	}
	s.notifyLocked()
}

// removeQablLocked forgets a queryable and withdraws it.
func (s *Session) removeQablLocked(id uint32) {
	e, ok := s.qabls[id]
	if !ok {
		return
	}
	delete(s.qabls, id)
	s.noteQablLocked(e, false)
	if e.relay != relayAgg {
		s.declareLocked(appendUndeclareQueryable(nil, e.id), func(l *link) bool { return qablVisible(e, l) })
	}
	s.relayRemoveLocked(relayRef{kindQabl, e.id}, e.origin, e.relay)
	s.notifyLocked()
}

// queryTargets selects the local queryables and links a query on key
// reaches. It runs under s.mu.
func (s *Session) queryTargetsLocked(key string, target QueryTarget) (locals []*Queryable, links []*link) {
	seen := make(map[*link]bool)
	var complete []*qablEntry
	var all []*qablEntry
	for _, e := range s.qabls {
		if !intersects(e.key, key) {
			continue
		}
		all = append(all, e)
		if e.complete && includes(e.key, key) {
			complete = append(complete, e)
		}
	}
	pick := all
	switch target {
	case TargetAllComplete:
		pick = complete
	case TargetBestMatching:
		// A complete local queryable first, then a complete remote one.
		for _, e := range complete {
			if e.local != nil {
				return []*Queryable{e.local}, nil
			}
		}
		if len(complete) > 0 {
			pick = complete[:1]
		}
	}
	for _, e := range pick {
		if e.local != nil {
			locals = append(locals, e.local)
		} else if !seen[e.origin] {
			seen[e.origin] = true
			links = append(links, e.origin)
		}
	}
	// Nodes whose declarations are not known yet (a router that has not
	// answered our interest, a peer that has not sent all its initial
	// declarations) get every query.
	for l := range s.links {
		if s.declsPendingLocked(l) && !seen[l] {
			seen[l] = true
			links = append(links, l)
		}
	}
	return locals, links
}

// hasQueryableFor reports whether a queryable (local or remote) intersects
// key.
func (s *Session) hasQueryableFor(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.qabls {
		if intersects(e.key, key) {
			return true
		}
	}
	return false
}

// waitQueryable waits until a queryable intersecting key is known.
func (s *Session) waitQueryable(ctx context.Context, key string) error {
	if err := ctxDone(ctx); err != nil {
		return err
	}
	for {
		ch := s.waitChange()
		if s.hasQueryableFor(key) {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-s.ctx.Done():
			return ErrSessionClosed
		}
	}
}

// Get sends a query on selector ("key/expr" or "key/expr?parameters") and
// returns its replies as a stream. The stream ends when every reached
// queryable has finished, when the timeout passes, when ctx ends, or when
// the loop breaks; a query that reaches nobody yields nothing. The query is
// sent when Get is called, and replies are kept until iterated.
func (s *Session) Get(ctx context.Context, selector string, opts ...GetOption) (iter.Seq[Reply], error) {
	q := &replyQueue{signal: make(chan struct{}, 1), log: s}
	g, err := s.get(ctx, selector, q.push, func(bool) { q.end() }, opts)
	if err != nil {
		return nil, err
	}
	return func(yield func(Reply) bool) {
		defer g.finish()
		for {
			r, ok := q.next(ctx)
			if !ok || !yield(r) {
				return
			}
		}
	}, nil
}

// replyQueue buffers the replies of one Get for its iterator.
type replyQueue struct {
	log     *Session
	mu      sync.Mutex
	items   []Reply
	ended   bool
	dropped int
	signal  chan struct{}
}

func (q *replyQueue) push(r Reply) {
	q.mu.Lock()
	if len(q.items) >= maxQueuedReplies {
		q.dropped++
		q.mu.Unlock()
		q.log.log.Warn("zenoh: reply dropped, consumer too slow", "key", r.Sample.KeyExpr)
		return
	}
	q.items = append(q.items, r)
	q.mu.Unlock()
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

func (q *replyQueue) end() {
	q.mu.Lock()
	q.ended = true
	q.mu.Unlock()
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

func (q *replyQueue) next(ctx context.Context) (Reply, bool) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			r := q.items[0]
			q.items[0] = Reply{}
			q.items = q.items[1:]
			q.mu.Unlock()
			return r, true
		}
		ended := q.ended
		q.mu.Unlock()
		if ended {
			return Reply{}, false
		}
		select {
		case <-q.signal:
		case <-ctx.Done():
			return Reply{}, false
		}
	}
}

// getState is a query this session sent and is collecting replies for.
type getState struct {
	s       *Session
	id      uint32
	key     string
	cons    Consolidation
	onReply func(Reply)
	onDone  func(timedOut bool)

	mu       sync.Mutex
	links    map[*link]bool // links whose RESPONSE_FINAL is awaited
	locals   int            // local queries not finished
	finished bool
	timedOut bool
	latest   map[string]Reply
	order    []string
	timer    *time.Timer
	stopCtx  func() bool
}

// get sends a query; onReply gets each reply (under the query's lock, so
// it must not block) and onDone is called once at the end.
func (s *Session) get(ctx context.Context, selector string, onReply func(Reply), onDone func(timedOut bool), opts []GetOption) (*getState, error) {
	key, params, _ := strings.Cut(selector, "?")
	key, err := checkKeyExpr(key)
	if err != nil {
		return nil, err
	}
	if err := ctxDone(ctx); err != nil {
		return nil, err
	}
	o := getOptions{timeout: DefaultQueryTimeout}
	for _, f := range opts {
		f(&o)
	}
	if o.timeout <= 0 {
		o.timeout = DefaultQueryTimeout
	}
	if d, ok := ctx.Deadline(); ok && time.Until(d) < o.timeout {
		o.timeout = max(time.Until(d), time.Millisecond)
	}
	cons := o.consolidation
	if cons == ConsolidationAuto {
		cons = ConsolidationLatest
	}
	return s.startGet(ctx, key, params, &o, cons, func() ([]*Queryable, []*link) {
		return s.queryTargetsLocked(key, o.target)
	}, onReply, onDone)
}

// startGet sends a query to the targets that route selects (under s.mu),
// merging replies by cons.
func (s *Session) startGet(ctx context.Context, key, params string, o *getOptions, cons Consolidation,
	route func() ([]*Queryable, []*link), onReply func(Reply), onDone func(timedOut bool)) (*getState, error) {
	g := &getState{s: s, key: key, cons: cons, onReply: onReply, onDone: onDone,
		links: make(map[*link]bool)}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrSessionClosed
	}
	locals, links := route()
	s.nextQID++
	g.id = s.nextQID
	g.locals = len(locals)
	for _, l := range links {
		g.links[l] = true
	}
	s.gets[g.id] = g
	s.mu.Unlock()

	g.mu.Lock()
	g.timer = time.AfterFunc(o.timeout, g.expire)
	g.stopCtx = context.AfterFunc(ctx, g.finish)
	g.mu.Unlock()

	if len(links) > 0 {
		req := wire.Request{ID: g.id, WireExpr: wire.WireExpr{Suffix: []byte(key)},
			Target: wire.QueryTarget(o.target), Timeout: o.timeout,
			Body: wire.Query{Consolidation: wire.Consolidation(o.consolidation), Parameters: []byte(params),
				Attachment: o.attachment}}
		req.HasQoS, req.QoS = true, qosQueryReply
		if o.hasPayload {
			req.Body.HasBody = true
			req.Body.Body = wire.QueryBody{Encoding: wireEncoding(o.encoding), Payload: o.payload}
			if req.Body.Body.Payload == nil {
				req.Body.Body.Payload = []byte{}
			}
		}
		eb := s.getBuf()
		var err error
		eb.b, err = req.AppendBinary(eb.b[:0])
		if err != nil {
			s.putBuf(eb)
			g.finish()
			return nil, fmt.Errorf("zenoh: encode query: %w", err)
		}
		for _, l := range links {
			if o.relay {
				// A relayed query must not stall the link it came from
				// behind a node that does not read.
				if !l.queueOrDrop(eb.b) {
					g.final(l)
				}
			} else if err := l.queue(ctx, eb.b); err != nil {
				g.final(l)
			}
		}
		s.putBuf(eb)
	}
	if len(locals) > 0 {
		req := &inRequest{left: len(locals), sink: (*localSink)(g)}
		var payload []byte
		if o.hasPayload {
			payload = bytes.Clone(o.payload)
			if payload == nil {
				payload = []byte{}
			}
		}
		for _, qa := range locals {
			q := &Query{KeyExpr: key, Parameters: params, Payload: payload, Encoding: o.encoding,
				Attachment: bytes.Clone(o.attachment), req: req, deadline: time.Now().Add(o.timeout)}
			// The Get's own timer ends it first; this one cleans up.
			qa.dispatch(q, o.timeout+localQueryGrace)
		}
	}
	if len(links) == 0 && len(locals) == 0 {
		g.finish()
	}
	return g, nil
}

// add takes one reply from src (nil: a local queryable).
func (g *getState) add(src *link, r Reply) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.finished || (src != nil && !g.links[src]) {
		return
	}
	if r.Err != nil || g.cons == ConsolidationNone {
		g.onReply(r)
		return
	}
	k := r.Sample.KeyExpr
	prev, seen := g.latest[k]
	newer := !seen || r.Sample.Timestamp.IsZero() || prev.Sample.Timestamp.IsZero() ||
		r.Sample.Timestamp.NTP64 > prev.Sample.Timestamp.NTP64
	if !newer {
		return
	}
	if g.latest == nil {
		g.latest = make(map[string]Reply)
	}
	if !seen {
		g.order = append(g.order, k)
	}
	if g.cons == ConsolidationMonotonic {
		g.latest[k] = Reply{Sample: Sample{KeyExpr: k, Timestamp: r.Sample.Timestamp}}
		g.onReply(r)
		return
	}
	g.latest[k] = r
}

// final records that src (nil: a local request) will send no more.
func (g *getState) final(src *link) {
	g.mu.Lock()
	if src == nil {
		g.locals--
	} else {
		delete(g.links, src)
	}
	last := g.locals <= 0 && len(g.links) == 0
	g.mu.Unlock()
	if last {
		g.finish()
	}
}

// expire ends the query when its timeout passes.
func (g *getState) expire() {
	g.mu.Lock()
	g.timedOut = true
	g.mu.Unlock()
	g.finish()
}

// finish ends the query once: it flushes consolidated replies and calls
// onDone.
func (g *getState) finish() {
	g.mu.Lock()
	if g.finished {
		g.mu.Unlock()
		return
	}
	g.finished = true
	if g.cons == ConsolidationLatest {
		for _, k := range g.order {
			g.onReply(g.latest[k])
		}
	}
	g.latest, g.order = nil, nil
	timer, stop := g.timer, g.stopCtx
	g.onDone(g.timedOut)
	g.mu.Unlock()
	if timer != nil {
		timer.Stop()
	}
	if stop != nil {
		stop()
	}
	g.s.mu.Lock()
	delete(g.s.gets, g.id)
	g.s.mu.Unlock()
}

// localSink delivers the answers of a local queryable to a local Get.
type localSink getState

func (ls *localSink) reply(_ context.Context, r *outReply) error {
	(*getState)(ls).add(nil, r.toReply(true))
	return nil
}

func (ls *localSink) final() { (*getState)(ls).final(nil) }

// toReply converts an answer to what a querier receives, copying the
// slices when clone is set.
func (r *outReply) toReply(clone bool) Reply {
	cp := func(b []byte) []byte {
		if clone && b != nil {
			return bytes.Clone(b)
		}
		return b
	}
	if r.isErr {
		p := cp(r.payload)
		if p == nil {
			p = []byte{}
		}
		return Reply{Err: &ReplyError{Payload: p, Encoding: r.enc}}
	}
	smp := Sample{KeyExpr: r.key, Kind: KindPut, Encoding: r.enc, Attachment: cp(r.attachment)}
	if r.hasTS {
		smp.Timestamp = r.ts
	}
	if r.del {
		smp.Kind = KindDelete
	} else {
		smp.Payload = cp(r.payload)
		if smp.Payload == nil {
			smp.Payload = []byte{}
		}
	}
	if smp.Encoding == "" {
		smp.Encoding = EncodingZenohBytes
	}
	return Reply{Sample: smp}
}

// linkSink sends the answers to a request received on a link.
type linkSink struct {
	l     *link
	rid   uint32
	eid   uint32
	relay bool        // drop rather than wait when the link's queue is full
	pr    *pendingReq // the request's place in the limits, released at the end
	req   pendingReq  // pr's storage
}

func (ls *linkSink) reply(ctx context.Context, r *outReply) error {
	return ls.send(ctx, r, false)
}

// replyFinal sends r and RESPONSE_FINAL with one queue operation, so that
// they leave in one batch.
func (ls *linkSink) replyFinal(ctx context.Context, r *outReply) error {
	return ls.send(ctx, r, true)
}

func (ls *linkSink) send(ctx context.Context, r *outReply, final bool) error {
	resp := wire.Response{RequestID: ls.rid, WireExpr: wire.WireExpr{Suffix: []byte(r.key)}}
	resp.HasQoS, resp.QoS = true, qosQueryReply
	if r.isErr {
		resp.Body = &wire.Err{Encoding: wireEncoding(r.enc), Payload: nonNil(r.payload)}
	} else {
		var body wire.ZenohMessage
		if r.del {
			d := &wire.Del{Attachment: r.attachment}
			if r.hasTS {
				d.HasTimestamp, d.Timestamp = true, wireTimestamp(r.ts, ls.l.s.cfg.ZID)
			}
			body = d
		} else {
			p := &wire.Put{Encoding: wireEncoding(r.enc), Attachment: r.attachment, Payload: nonNil(r.payload)}
			if r.hasTS {
				p.HasTimestamp, p.Timestamp = true, wireTimestamp(r.ts, ls.l.s.cfg.ZID)
			}
			body = p
		}
		resp.Body = &wire.Reply{Body: body}
	}
	if id, err := wire.NewZenohID(ls.l.s.cfg.ZID); err == nil {
		resp.HasResponder = true
		resp.Responder = wire.EntityGlobalID{ID: id, EntityID: ls.eid}
	}
	s := ls.l.s
	eb := s.getBuf()
	defer s.putBuf(eb)
	var err error
	eb.b, err = resp.AppendBinary(eb.b[:0])
	if err != nil {
		return fmt.Errorf("zenoh: encode reply: %w", err)
	}
	if final {
		s.releaseRequest(ls.pr)
		n := len(eb.b)
		eb.b, _ = responseFinal(ls.rid).AppendBinary(eb.b)
		err := ls.l.queue(ctx, eb.b[:n], eb.b[n:])
		if err != nil && err != errLinkClosed {
			ls.final() // the final must go out anyway
			return err
		}
		return nil
	}
	if ls.relay {
		if !ls.l.queueOrDrop(eb.b) {
			return fmt.Errorf("%w: transmit queue full", ErrTooLarge)
		}
		return nil
	}
	if err := ls.l.queue(ctx, eb.b); err != nil && err != errLinkClosed {
		return err
	}
	return nil
}

// responseFinal is the RESPONSE_FINAL of request rid.
func responseFinal(rid uint32) *wire.ResponseFinal {
	m := &wire.ResponseFinal{RequestID: rid}
	m.HasQoS, m.QoS = true, qosQueryReply
	return m
}

func (ls *linkSink) final() {
	ls.l.s.releaseRequest(ls.pr)
	var a [16]byte
	buf, _ := responseFinal(ls.rid).AppendBinary(a[:0])
	ls.l.queueCtrl(buf)
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// wireEncoding converts an Encoding to its wire form.
func wireEncoding(e Encoding) wire.Encoding {
	id, schema := e.wire()
	we := wire.Encoding{ID: id}
	if schema != "" {
		we.Schema = []byte(schema[:min(len(schema), wire.MaxEncodingSchema)])
	}
	return we
}

// wireTimestamp converts a Timestamp to its wire form. The protocol needs
// a node ID of 1 to 16 bytes: a timestamp without one is sent with
// fallback (the session's ZID).
func wireTimestamp(ts Timestamp, fallback []byte) wire.Timestamp {
	wt := wire.Timestamp{Time: ts.NTP64}
	id := ts.ID()
	if len(id) == 0 {
		id = fallback
	}
	if zid, err := wire.NewZenohID(id); err == nil {
		wt.ID = zid
	}
	return wt
}

func fromWireTimestamp(wt *wire.Timestamp) Timestamp {
	ts := Timestamp{NTP64: wt.Time}
	ts.idLen = uint8(copy(ts.id[:], wt.ID.Slice()))
	return ts
}

// wireLimits bounds what the wire decoder accepts from this session's
// links. A message arrives whole in one batch or reassembled from
// fragments (at most MaxMessageSize bytes), so its fields are bounded by
// the larger of the two. The frame's message count is bounded by the batch.
func (s *Session) wireLimits() wire.Limits {
	n := max(s.cfg.MaxMessageSize, wire.MaxBatchSize)
	return wire.Limits{MaxPayload: n, MaxExtension: n, MaxMessagesPerFrame: wire.MaxBatchSize}
}

// decoder returns the link's wire decoder (reader goroutine only).
func (l *link) decoder() *wire.Decoder {
	if l.wdec == nil {
		l.wdec = wire.NewDecoder(l.s.wireLimits())
	}
	return l.wdec
}

// encBuf is a pooled encoding buffer.
type encBuf struct{ b []byte }

// getBuf returns an empty encoding buffer; putBuf gives it back.
func (s *Session) getBuf() *encBuf {
	if e, ok := s.bufs.Get().(*encBuf); ok {
		return e
	}
	return &encBuf{b: make([]byte, 0, 256)}
}

func (s *Session) putBuf(e *encBuf) {
	if cap(e.b) <= 64<<10 {
		e.b = e.b[:0]
		s.bufs.Put(e)
	}
}

// handleRequest dispatches a REQUEST received on l to the local
// queryables; RESPONSE_FINAL follows when they have all finished (at once
// if none matches). req aliases the received batch.
func (s *Session) handleRequest(l *link, req *wire.Request) {
	sink := &linkSink{l: l, rid: req.ID}
	key, err := l.resolveKey(&req.WireExpr)
	if err == nil {
		key, err = canonKeyExpr(key)
	}
	if err != nil {
		if l.checkPeerKey(key, err) != nil {
			return // the link is closed
		}
		l.log.Warn("zenoh: dropping REQUEST", "err", err)
		sink.final()
		return
	}
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = DefaultQueryTimeout
	}
	s.mu.Lock()
	var locals []*Queryable
	var fwd bool
	if !s.closed {
		locals, _ = s.localTargetsLocked(key, QueryTarget(req.Target))
		fwd = s.hasForwardTargetLocked(l, key)
	}
	s.mu.Unlock()
	if fwd {
		s.forwardRequest(l, req, key, timeout)
		return
	}
	if len(locals) == 0 {
		sink.final()
		return
	}
	if limit := s.admitRequest(&sink.req, l, requestSize(key, req)); limit != "" {
		s.refuseRequest(sink, limit)
		return
	}
	sink.pr = &sink.req
	sink.eid = locals[0].id
	in := &inRequest{left: len(locals), sink: sink}
	var payload []byte
	var enc Encoding
	if req.Body.HasBody {
		payload = bytes.Clone(nonNil(req.Body.Body.Payload))
		enc = encodingFromWire(req.Body.Body.Encoding.ID, req.Body.Body.Encoding.Schema)
	}
	params, att := string(req.Body.Parameters), bytes.Clone(req.Body.Attachment)
	deadline := time.Now().Add(timeout)
	in.qs = in.one[:0]
	for _, qa := range locals {
		in.qs = append(in.qs, &Query{KeyExpr: key, Parameters: params, Payload: payload, Encoding: enc, Attachment: att,
			qa: qa, req: in, deadline: deadline})
	}
	s.startRequest(sink.pr, in)
	for i, qa := range locals {
		qa.dispatch(in.qs[i], timeout)
	}
}

// requestSize is what a request on key holds: its key, parameters,
// payload and attachment.
func requestSize(key string, req *wire.Request) int {
	return len(key) + len(req.Body.Parameters) + len(req.Body.Body.Payload) + len(req.Body.Attachment)
}

// forwardTargetsLocked selects the links a query from src is forwarded to:
// those that declared an intersecting queryable, when src or they are
// clients (a peer forwards for its clients).
func (s *Session) forwardTargetsLocked(src *link, key string) []*link {
	if s.cfg.Mode != ModePeer {
		return nil
	}
	var out []*link
	for _, e := range s.qabls {
		if e.origin == nil || e.origin == src || !(src.isClient() || e.origin.isClient()) {
			continue
		}
		if intersects(e.key, key) && !slices.Contains(out, e.origin) {
			out = append(out, e.origin)
		}
	}
	return out
}

func (s *Session) hasForwardTargetLocked(src *link, key string) bool {
	return len(s.forwardTargetsLocked(src, key)) > 0
}

// forwardRequest answers a request from src with the local queryables and
// the other links that can answer it, relaying their replies to src and
// one RESPONSE_FINAL when all have finished.
func (s *Session) forwardRequest(src *link, req *wire.Request, key string, timeout time.Duration) {
	sink := &linkSink{l: src, rid: req.ID, relay: true}
	if limit := s.admitRequest(&sink.req, src, requestSize(key, req)); limit != "" {
		s.refuseRequest(sink, limit)
		return
	}
	sink.pr = &sink.req
	timeout = s.clampQueryTimeout(src, timeout)
	o := getOptions{target: QueryTarget(req.Target), consolidation: Consolidation(req.Body.Consolidation),
		timeout: timeout, attachment: bytes.Clone(req.Body.Attachment), relay: true}
	if req.Body.HasBody {
		o.hasPayload = true
		o.payload = bytes.Clone(nonNil(req.Body.Body.Payload))
		o.encoding = encodingFromWire(req.Body.Body.Encoding.ID, req.Body.Body.Encoding.Schema)
	}
	var out outReply
	g, err := s.startGet(s.ctx, key, string(req.Body.Parameters), &o, ConsolidationNone, func() ([]*Queryable, []*link) {
		locals, _ := s.localTargetsLocked(key, o.target)
		return locals, s.forwardTargetsLocked(src, key)
	}, func(r Reply) {
		out = outReply{key: r.Sample.KeyExpr, del: r.Sample.Kind == KindDelete, payload: r.Sample.Payload,
			enc: r.Sample.Encoding, attachment: r.Sample.Attachment, ts: r.Sample.Timestamp, hasTS: !r.Sample.Timestamp.IsZero()}
		if re, ok := r.Err.(*ReplyError); ok {
			out = outReply{key: key, isErr: true, payload: re.Payload, enc: re.Encoding}
		}
		if err := sink.reply(s.ctx, &out); err != nil {
			src.log.Debug("zenoh: relayed reply dropped", "err", err)
		}
	}, func(bool) { sink.final() })
	if err != nil {
		sink.final()
		return
	}
	s.startRequest(sink.pr, g)
}

// localTargetsLocked selects only local queryables (requests from remote
// nodes are not forwarded to other nodes).
func (s *Session) localTargetsLocked(key string, target QueryTarget) ([]*Queryable, []*link) {
	var all, complete []*Queryable
	for _, e := range s.qabls {
		if e.local == nil || !intersects(e.key, key) {
			continue
		}
		all = append(all, e.local)
		if e.complete && includes(e.key, key) {
			complete = append(complete, e.local)
		}
	}
	switch target {
	case TargetAllComplete:
		return complete, nil
	case TargetBestMatching:
		if len(complete) > 0 {
			return complete[:1], nil
		}
	}
	return all, nil
}

// handleResponse delivers a RESPONSE received on l to its Get. resp
// aliases the received batch.
func (s *Session) handleResponse(l *link, resp *wire.Response) {
	s.mu.Lock()
	g := s.gets[resp.RequestID]
	s.mu.Unlock()
	if g == nil {
		return // late or unknown: the query has ended
	}
	switch b := resp.Body.(type) {
	case *wire.Err:
		g.add(l, Reply{Err: &ReplyError{Payload: bytes.Clone(nonNil(b.Payload)),
			Encoding: encodingFromWire(b.Encoding.ID, b.Encoding.Schema)}})
	case *wire.Reply:
		key, err := l.resolveKey(&resp.WireExpr)
		if err != nil {
			l.log.Warn("zenoh: dropping RESPONSE", "err", err)
			return
		}
		smp := Sample{KeyExpr: key}
		switch d := b.Body.(type) {
		case *wire.Put:
			smp.Kind = KindPut
			smp.Payload = bytes.Clone(nonNil(d.Payload))
			smp.Encoding = encodingFromWire(d.Encoding.ID, d.Encoding.Schema)
			if d.HasTimestamp {
				smp.Timestamp = fromWireTimestamp(&d.Timestamp)
			}
			if d.Attachment != nil {
				smp.Attachment = bytes.Clone(d.Attachment)
			}
		case *wire.Del:
			smp.Kind = KindDelete
			smp.Encoding = EncodingZenohBytes
			if d.HasTimestamp {
				smp.Timestamp = fromWireTimestamp(&d.Timestamp)
			}
			if d.Attachment != nil {
				smp.Attachment = bytes.Clone(d.Attachment)
			}
		default:
			return
		}
		g.add(l, Reply{Sample: smp})
	}
}

// handleResponseFinal ends l's part of a Get.
func (s *Session) handleResponseFinal(l *link, rid uint32) {
	s.mu.Lock()
	g := s.gets[rid]
	s.mu.Unlock()
	if g != nil {
		g.final(l)
	}
}

// appendDeclareQueryable encodes DECLARE [I] D_QUERYABLE with a full key.
func appendDeclareQueryable(b []byte, interest *uint32, id uint32, key string, complete bool) []byte {
	return appendDeclare(b, interest, &wire.DeclareQueryable{ID: id, WireExpr: wire.WireExpr{Suffix: []byte(key)}, Complete: complete})
}

// appendUndeclareQueryable encodes DECLARE U_QUERYABLE.
func appendUndeclareQueryable(b []byte, id uint32) []byte {
	return appendDeclare(b, nil, &wire.UndeclareQueryable{ID: id})
}
