package zenoh

import (
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// Token is a liveliness token: while it is declared, other nodes see its key
// expression as alive. It disappears for them when it is undeclared, when
// its session closes, and when the link to its session dies.
type Token struct {
	s      *Session
	key    string
	id     uint32
	closed atomic.Bool
}

// KeyExpr returns the token's key expression.
func (t *Token) KeyExpr() string { return t.key }

// tokEntry is a token known to the session: local (origin nil) or declared
// by a remote node over origin.
type tokEntry struct {
	id     uint32
	key    string
	origin *link
	relay  uint8 // how it is announced (routing_relay.go)
}

// LivelinessSubscriber receives an event when a token intersecting its key
// expression appears (a KindPut sample on the token's key) or disappears
// (KindDelete).
type LivelinessSubscriber struct {
	s       *Session
	key     string
	id      uint32
	handler func(Sample)
	onEnd   func(error)
	closed  atomic.Bool
}

// KeyExpr returns the subscriber's key expression.
func (ls *LivelinessSubscriber) KeyExpr() string { return ls.key }

// LivelinessOption adjusts a liveliness subscriber.
type LivelinessOption func(*livOptions)

type livOptions struct{ history bool }

// WithHistory reports the tokens already alive when the subscriber is
// declared, before later changes.
func WithHistory() LivelinessOption { return func(o *livOptions) { o.history = true } }

// livEvent is a liveliness change waiting for delivery.
type livEvent struct {
	sub   *LivelinessSubscriber
	key   string
	alive bool
}

// DeclareToken declares a liveliness token on key.
func (s *Session) DeclareToken(key string) (*Token, error) {
	key, err := checkKeyExpr(key)
	if err != nil {
		return nil, err
	}
	t := &Token{s: s, key: key}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrSessionClosed
	}
	s.nextID++
	t.id = s.nextID
	s.addTokenLocked(&tokEntry{id: t.id, key: key})
	s.mu.Unlock()
	s.flushLiveliness()
	return t, nil
}

// Undeclare withdraws the token. It returns ErrUndeclared if already
// undeclared.
func (t *Token) Undeclare() error {
	if t.closed.Swap(true) {
		return ErrUndeclared
	}
	s := t.s
	s.mu.Lock()
	s.removeTokenLocked(t.id)
	s.mu.Unlock()
	s.flushLiveliness()
	return nil
}

// tokVisible reports whether token e is announced to link l (the rule of
// subscribers: peers relay for their clients only).
func tokVisible(e *tokEntry, l *link) bool {
	if e.origin == l {
		return false
	}
	return e.origin == nil || e.origin.isClient() || l.isClient()
}

// addTokenLocked records a token, announces it and queues the events.
func (s *Session) addTokenLocked(e *tokEntry) {
	s.tokens[e.id] = e
	s.noteTokenLocked(e, true)
	if e.relay = s.relayAddLocked(relayRef{kindTok, e.id}, e.origin); e.relay != relayAgg {
		s.declareLocked(appendDeclareToken(nil, nil, e.id, e.key), func(l *link) bool { return tokVisible(e, l) })
	}
	for _, ls := range s.lsubs {
		if intersects(ls.key, e.key) {
			s.livQueue = append(s.livQueue, livEvent{sub: ls, key: e.key, alive: true})
		}
	}
	s.notifyLocked()
}

// removeTokenLocked forgets a token, withdraws it and queues the events.
func (s *Session) removeTokenLocked(id uint32) {
	e, ok := s.tokens[id]
	if !ok {
		return
	}
	delete(s.tokens, id)
	s.noteTokenLocked(e, false)
	if e.relay != relayAgg {
		s.declareLocked(appendUndeclareToken(nil, e.id, e.key), func(l *link) bool { return tokVisible(e, l) })
	}
	s.relayRemoveLocked(relayRef{kindTok, e.id}, e.origin, e.relay)
	for _, ls := range s.lsubs {
		if intersects(ls.key, e.key) {
			s.livQueue = append(s.livQueue, livEvent{sub: ls, key: e.key, alive: false})
		}
	}
	s.notifyLocked()
}

// flushLiveliness delivers the queued liveliness events in order. Only one
// goroutine delivers at a time; a handler that changes tokens leaves its
// events to the delivering loop.
func (s *Session) flushLiveliness() {
	for {
		if !s.livDeliver.TryLock() {
			return
		}
		s.mu.Lock()
		evs := s.livQueue
		s.livQueue = nil
		s.mu.Unlock()
		for _, ev := range evs {
			if ev.sub.closed.Load() {
				continue
			}
			smp := Sample{KeyExpr: ev.key, Kind: KindPut, Encoding: EncodingZenohBytes, Payload: []byte{}}
			if !ev.alive {
				smp.Kind, smp.Payload = KindDelete, nil
			}
			ev.sub.handler(smp)
		}
		s.livDeliver.Unlock()
		s.mu.Lock()
		more := len(s.livQueue) > 0
		s.mu.Unlock()
		if !more {
			return
		}
	}
}

// DeclareLivelinessSubscriber calls handler when a token intersecting key
// appears (a KindPut sample) or disappears (KindDelete), locally or on a
// linked node. With WithHistory, the tokens already alive are reported
// first. Events are delivered one at a time, in order, on the goroutine
// that made the change; handler should return quickly.
func (s *Session) DeclareLivelinessSubscriber(key string, handler func(Sample), opts ...LivelinessOption) (*LivelinessSubscriber, error) {
	if handler == nil {
		return nil, fmt.Errorf("zenoh: DeclareLivelinessSubscriber: nil handler")
	}
	return s.declareLivSub(key, handler, nil, opts)
}

func (s *Session) declareLivSub(key string, handler func(Sample), onEnd func(error), opts []LivelinessOption) (*LivelinessSubscriber, error) {
	key, err := checkKeyExpr(key)
	if err != nil {
		return nil, err
	}
	var o livOptions
	for _, f := range opts {
		f(&o)
	}
	ls := &LivelinessSubscriber{s: s, key: key, handler: handler, onEnd: onEnd}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrSessionClosed
	}
	s.nextID++
	ls.id = s.nextID
	s.lsubs[ls.id] = ls
	if o.history {
		for _, e := range s.sortedTokens() {
			if intersects(key, e.key) {
				s.livQueue = append(s.livQueue, livEvent{sub: ls, key: e.key, alive: true})
			}
		}
	}
	s.mu.Unlock()
	s.flushLiveliness()
	return ls, nil
}

// Undeclare stops the subscriber. It returns ErrUndeclared if already
// undeclared.
func (ls *LivelinessSubscriber) Undeclare() error {
	s := ls.s
	s.mu.Lock()
	delete(s.lsubs, ls.id)
	s.mu.Unlock()
	return ls.end(ErrUndeclared)
}

func (ls *LivelinessSubscriber) end(err error) error {
	if ls.closed.Swap(true) {
		return ErrUndeclared
	}
	if ls.onEnd != nil {
		ls.onEnd(err)
	}
	return nil
}

// sortedTokens lists the known tokens in declaration order.
func (s *Session) sortedTokens() []*tokEntry {
	es := make([]*tokEntry, 0, len(s.tokens))
	for _, e := range s.tokens {
		es = append(es, e)
	}
	slices.SortFunc(es, func(a, b *tokEntry) int { return int(a.id) - int(b.id) })
	return es
}

// SubscribeLiveliness feeds an afor.Sub with the liveliness events on key
// expressions intersecting key (KindPut: a token appeared; KindDelete: it
// disappeared), starting with the tokens already alive, which the sub keeps
// for its first consumer (up to [afor.MaxBacklog] events). Closing the Sub
// undeclares the subscriber; closing the session closes the Sub with
// ErrSessionClosed.
func SubscribeLiveliness(s *Session, key string, opts ...afor.Option) (*afor.Sub[Sample], error) {
	sub := afor.NewSub[Sample](append([]afor.Option{afor.WithDefaultQueueSize(0), afor.WithBacklog(afor.MaxBacklog)}, opts...)...)
	ls, err := s.declareLivSub(key, func(smp Sample) { sub.Input(smp) }, func(err error) {
		if !errors.Is(err, ErrUndeclared) {
			sub.CloseWithError(err)
		}
	}, []LivelinessOption{WithHistory()})
	if err != nil {
		sub.CloseWithError(err)
		return nil, err
	}
	sub.OnClose(func() { _ = ls.Undeclare() })
	return sub, nil
}

// appendDeclareToken encodes DECLARE [I] D_TOKEN with a full key.
func appendDeclareToken(b []byte, interest *uint32, id uint32, key string) []byte {
	return appendDeclare(b, interest, &wire.DeclareToken{ID: id, WireExpr: wire.WireExpr{Suffix: []byte(key)}})
}

// appendUndeclareToken encodes DECLARE U_TOKEN, with the key expression
// extension (receivers that aggregate tokens by key need it).
func appendUndeclareToken(b []byte, id uint32, key string) []byte {
	return appendDeclare(b, nil, &wire.UndeclareToken{ID: id, HasWireExpr: true, WireExpr: wire.WireExpr{Suffix: []byte(key)}})
}
