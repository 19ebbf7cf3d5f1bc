package zenoh

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"sync/atomic"
)

// PutOption adjusts one publication, or every publication of a Publisher
// when given to DeclarePublisher.
type PutOption func(*putOptions)

type putOptions struct {
	encID      uint16
	schema     []byte
	attachment []byte
	ts         Timestamp
	hasTS      bool
	cc         CongestionControl
	prio       Priority // 0: PriorityData
	express    bool
}

// WithEncoding sets the payload's encoding (default zenoh/bytes).
func WithEncoding(e Encoding) PutOption {
	id, schema := e.wire()
	var sb []byte
	if schema != "" {
		sb = []byte(schema)
	}
	return func(o *putOptions) { o.encID, o.schema = id, sb }
}

// WithAttachment attaches user bytes to the sample.
func WithAttachment(a []byte) PutOption { return func(o *putOptions) { o.attachment = a } }

// WithTimestamp stamps the sample. A timestamp without a node ID is sent
// with the session's ZID (the protocol requires one).
func WithTimestamp(ts Timestamp) PutOption {
	return func(o *putOptions) { o.ts, o.hasTS = ts, true }
}

// Subscriber receives the samples whose key expressions intersect its own.
type Subscriber struct {
	s      *Session
	key    string
	id     uint32
	raw    func(key string, d dataMsg)
	closed atomic.Bool
	onEnd  func(error) // immutable after declaration
}

// KeyExpr returns the subscriber's key expression.
func (sub *Subscriber) KeyExpr() string { return sub.key }

// deliver hands one sample to the subscriber; d's slices are only valid
// during the call.
func (sub *Subscriber) deliver(key string, d dataMsg) {
	if !sub.closed.Load() {
		sub.raw(key, d)
	}
}

// end stops delivery and runs the end hook once.
func (sub *Subscriber) end(err error) {
	if sub.closed.Swap(true) {
		return
	}
	if sub.onEnd != nil {
		sub.onEnd(err)
	}
}

// toSample copies transient sample data into a Sample the handler may keep.
// The payload of a reassembled message is not copied: the Sample takes
// its buffer (see dataMsg.take).
func toSample(key string, d *dataMsg) Sample {
	smp := Sample{
		KeyExpr:   key,
		Kind:      KindPut,
		Encoding:  encodingFromWire(d.encID, d.schema),
		Timestamp: d.ts,
	}
	if d.del {
		smp.Kind = KindDelete
	} else {
		smp.Payload = d.take() // a reassembled payload without a copy
	}
	if d.attachment != nil {
		smp.Attachment = bytes.Clone(d.attachment)
	}
	return smp
}

// DeclareSubscriber calls handler with every sample whose key expression
// intersects key, published locally or by a remote node that knows of this
// subscriber. handler runs on the goroutine that received the sample (a
// link's reader, or the local publisher's), possibly concurrently for
// samples from different links; it should return quickly.
func (s *Session) DeclareSubscriber(key string, handler func(Sample)) (*Subscriber, error) {
	if handler == nil {
		return nil, fmt.Errorf("zenoh: DeclareSubscriber: nil handler")
	}
	return s.declareSubscriber(key, func(k string, d dataMsg) { handler(toSample(k, &d)) }, nil)
}

func (s *Session) declareSubscriber(key string, raw func(string, dataMsg), onEnd func(error)) (*Subscriber, error) {
	key, err := checkKeyExpr(key)
	if err != nil {
		return nil, err
	}
	sub := &Subscriber{s: s, key: key, raw: raw, onEnd: onEnd}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrSessionClosed
	}
	e := s.addEntryLocked(key, nil, sub)
	sub.id = e.id
	return sub, nil
}

// Undeclare stops the subscriber and withdraws it from remote nodes. A
// sample being delivered concurrently may still reach the handler. It
// returns ErrUndeclared if already undeclared.
func (sub *Subscriber) Undeclare() error {
	if sub.closed.Load() {
		return ErrUndeclared
	}
	s := sub.s
	s.mu.Lock()
	s.removeEntryLocked(sub.id) // a no-op if already removed
	s.mu.Unlock()
	sub.end(ErrUndeclared)
	return nil
}

// Publisher publishes on one key expression, caching its route between
// changes of the session's routing table.
type Publisher struct {
	s      *Session
	key    string
	opts   putOptions
	closed atomic.Bool
	cache  atomic.Pointer[routeCache]
	mu     sync.Mutex // guards buf and enc
	buf    []byte
	enc    pushEncoder
	// dropped counts the samples that congestion control dropped, once
	// per link.
	dropped atomic.Uint64
}

// DeclarePublisher prepares publications on key; opts apply to every Put.
// For typed values, see [NewPublisher].
func (s *Session) DeclarePublisher(key string, opts ...PutOption) (*Publisher, error) {
	key, err := checkKeyExpr(key)
	if err != nil {
		return nil, err
	}
	if s.ctx.Err() != nil {
		return nil, ErrSessionClosed
	}
	p := &Publisher{s: s, key: key, enc: pushEncoder{zid: s.cfg.ZID}}
	for _, o := range opts {
		o(&p.opts)
	}
	if _, err := p.opts.wireQoS(); err != nil {
		return nil, err
	}
	return p, nil
}

// KeyExpr returns the publisher's key expression.
func (p *Publisher) KeyExpr() string { return p.key }

// Put publishes payload. Local subscribers run before it returns. When a
// link's transmit queue is full, the sample is dropped for that link after
// DropWait, or with CongestionBlock waited for within ctx (see
// WithCongestionControl). With a ctx that has already ended it sends
// nothing and returns ctx's error. A sample that could encode to more than
// Config.MaxMessageSize (the payload, key, attachment and encoding schema
// plus up to 256 bytes of headers) is not sent at all: Put returns an
// error matching ErrTooLarge, since receivers would drop it. payload stays
// the caller's: Put keeps no reference to it once it returns. A payload
// that needs fragments is written from payload itself, without a copy,
// when the link is idle: Put then returns once the socket took it, or
// after DropWaitFragments at most, leaving a copy of the rest to the link.
func (p *Publisher) Put(ctx context.Context, payload []byte, opts ...PutOption) error {
	return p.publish(ctx, false, payload, opts)
}

// Delete publishes the deletion of the publisher's key.
func (p *Publisher) Delete(ctx context.Context, opts ...PutOption) error {
	return p.publish(ctx, true, nil, opts)
}

// Dropped returns how many samples congestion control dropped (each
// counted once per link it was dropped for) since the publisher was
// declared. It stays 0 with CongestionBlock.
func (p *Publisher) Dropped() uint64 { return p.dropped.Load() }

// Undeclare ends the publisher; later Puts return ErrUndeclared.
func (p *Publisher) Undeclare() error {
	if p.closed.Swap(true) {
		return ErrUndeclared
	}
	return nil
}

// HasMatchingSubscribers reports whether a local subscriber, or a remote
// node that declared a subscriber, would receive this publisher's samples.
// In client mode, the router's answer to the session's interest tells
// which subscribers it knows; until it has answered, none count (though
// publications are sent to it).
func (p *Publisher) HasMatchingSubscribers() bool {
	rc := p.routeNow()
	return len(rc.local)+rc.matched > 0
}

// WaitMatching waits until HasMatchingSubscribers is true.
func (p *Publisher) WaitMatching(ctx context.Context) error {
	if err := ctxDone(ctx); err != nil {
		return err
	}
	for {
		ch := p.s.waitChange()
		if p.HasMatchingSubscribers() {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-p.s.ctx.Done():
			return ErrSessionClosed
		}
	}
}

func (p *Publisher) publish(ctx context.Context, del bool, payload []byte, opts []PutOption) error {
	if p.closed.Load() {
		return ErrUndeclared
	}
	if p.s.ctx.Err() != nil {
		return ErrSessionClosed
	}
	if err := ctxDone(ctx); err != nil {
		return err
	}
	o := &p.opts
	if len(opts) > 0 {
		custom := p.opts
		for _, f := range opts {
			f(&custom)
		}
		o = &custom
	}
	qos, err := o.wireQoS()
	if err != nil {
		return err
	}
	if err := p.s.checkSampleSize(p.key, payload, o.attachment, o.schema); err != nil {
		return err // a receiver would drop it
	}
	d := dataMsg{del: del, payload: payload, encID: o.encID, schema: o.schema, attachment: o.attachment, ts: o.ts, hasTS: o.hasTS, qos: qos}
	rc := p.routeNow()
	for _, sub := range rc.local {
		sub.deliver(p.key, d)
	}
	if len(rc.links) == 0 {
		return nil
	}
	var mode sendMode
	if o.cc == CongestionBlock {
		mode |= sendBlock
	}
	if o.express {
		mode |= sendExpress
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(payload) >= largePayload {
		return p.publishLarge(ctx, mode, rc.links, &d) // large.go: no copy of payload
	}
	if p.buf, err = p.enc.append(p.buf[:0], p.key, &d); err != nil {
		return fmt.Errorf("zenoh: encode sample: %w", err)
	}
	var firstErr error
	for _, l := range rc.links {
		sent, err := l.send(ctx, mode, p.buf)
		if err == nil && !sent {
			p.dropped.Add(1)
			l.log.Debug("zenoh: queue full, sample dropped", "key", p.key)
		}
		if err != nil && firstErr == nil && err != errLinkClosed {
			firstErr = err
		}
	}
	return firstErr
}

// routeNow returns the publisher's current route, recomputing it after a
// routing change.
func (p *Publisher) routeNow() *routeCache {
	old := p.cache.Load()
	rc := p.s.route(old, p.key, nil)
	if rc != old {
		p.cache.Store(rc)
	}
	return rc
}

// Put publishes payload on key once. For repeated publications on one key,
// DeclarePublisher is cheaper.
func (s *Session) Put(ctx context.Context, key string, payload []byte, opts ...PutOption) error {
	p, err := s.DeclarePublisher(key)
	if err != nil {
		return err
	}
	return p.Put(ctx, payload, opts...)
}

// Delete publishes the deletion of key once.
func (s *Session) Delete(ctx context.Context, key string, opts ...PutOption) error {
	p, err := s.DeclarePublisher(key)
	if err != nil {
		return err
	}
	return p.Delete(ctx, opts...)
}
