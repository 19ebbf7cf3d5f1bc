package scenario

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/transport/zenoh"
)

// matchTimeout bounds the wait for a remote subscriber's declaration.
const matchTimeout = 5 * time.Second

// Zenoh is the pure-Go Zenoh transport within one session: both peers are
// the same session and samples go from publisher to subscriber without a
// socket (afor mode: zenoh.SubscribeCodec; native: DeclareSubscriber).
// Request/reply: zenoh.NewServer and zenoh.NewClient (afor), or
// Session.DeclareQueryable and Session.Get (native).
func Zenoh() Transport {
	return Transport{Name: "zenoh", Floor: FloorChan, Python: PythonZenoh, Open: openZenoh(false)}
}

// ZenohTCP is the pure-Go Zenoh transport between two sessions of this
// process, linked over TCP on 127.0.0.1 with an ephemeral port.
func ZenohTCP() Transport {
	return Transport{Name: "zenoh-tcp", Floor: FloorTCP, Open: openZenoh(true)}
}

// ZenohTLS is ZenohTCP over a tls/ link (server authentication, a
// certificate made for the run).
func ZenohTLS() Transport {
	return Transport{Name: "zenoh-tls", Floor: FloorTCP, Open: openZenohLink("tls/127.0.0.1:0")}
}

// ZenohQUIC is ZenohTCP over a quic/ link (quic-go, a certificate made
// for the run).
func ZenohQUIC() Transport {
	return Transport{Name: "zenoh-quic", Floor: FloorTCP, Open: openZenohLink("quic/127.0.0.1:0")}
}

func openZenoh(twoSessions bool) func(ctx context.Context, size int) (*Link, error) {
	if twoSessions {
		return openZenohLink("tcp/127.0.0.1:0")
	}
	return openZenohLink("")
}

// openZenohLink opens two sessions linked over listen, or one session if
// listen is empty. tls/ and quic/ links get a certificate made for them.
func openZenohLink(listen string) func(ctx context.Context, size int) (*Link, error) {
	return func(ctx context.Context, size int) (*Link, error) {
		twoSessions := listen != ""
		cfg := zenoh.Config{}
		var client zenoh.TLSConfig
		if twoSessions {
			cfg.Listen = []string{listen}
			if strings.HasPrefix(listen, "tls/") || strings.HasPrefix(listen, "quic/") {
				var err error
				if cfg.TLS, client, err = benchTLS(); err != nil {
					return nil, err
				}
			}
		}
		b, err := zenoh.Open(ctx, cfg)
		if err != nil {
			return nil, err
		}
		a := b
		if twoSessions {
			a, err = zenoh.Open(ctx, zenoh.Config{Connect: b.ListenAddrs(), TLS: client})
			if err != nil {
				b.Close()
				return nil, err
			}
		}
		prefix := "afor_bench/" + b.ZID() + "/"
		link := &Link{
			A: zenohPeer(a, prefix, size),
			B: zenohPeer(b, prefix, size),
			Close: func() error {
				err := a.Close()
				if a != b {
					err = errors.Join(err, b.Close())
				}
				return err
			},
		}
		return link, nil
	}
}

func zenohPeer(s *zenoh.Session, prefix string, size int) Peer {
	return Peer{
		Publisher: func(ctx context.Context, key string) (func(context.Context, Msg) error, error) {
			pub, err := s.DeclarePublisher(prefix + key)
			if err != nil {
				return nil, err
			}
			wctx, cancel := context.WithTimeout(ctx, matchTimeout)
			defer cancel()
			if err := pub.WaitMatching(wctx); err != nil {
				return nil, fmt.Errorf("zenoh: %s: no subscriber reachable: %w", key, err)
			}
			buf := AppendMsg(nil, Msg{}, size)
			return func(ctx context.Context, m Msg) error {
				putHeader(buf, m)
				return pub.Put(ctx, buf)
			}, nil
		},
		Subscribe: func(key string, opts ...afor.Option) (*afor.Sub[Msg], error) {
			return zenoh.SubscribeCodec[Msg](s, prefix+key, Codec{Size: size}, opts...)
		},
		Callback: func(key string, f func(Msg)) (func(), error) {
			sub, err := s.DeclareSubscriber(prefix+key, func(smp zenoh.Sample) {
				m, err := DecodeMsg(smp.Payload)
				if err != nil {
					m = Msg{Seq: badSeq}
				}
				f(m)
			})
			if err != nil {
				return nil, err
			}
			return func() { _ = sub.Undeclare() }, nil
		},
		Server: func(key string) (*afor.Server[Msg, Msg], error) {
			return zenoh.NewServer[Msg, Msg](s, prefix+key, Codec{Size: size}, Codec{Size: size})
		},
		Client: func(key string) (*afor.Client[Msg, Msg], error) {
			return zenoh.NewClient[Msg, Msg](s, prefix+key, Codec{Size: size}, Codec{Size: size})
		},
		Queryable: func(key string, f func(Msg) Msg) (func() error, error) {
			return zenohQueryable(s, prefix+key, size, f)
		},
		Querier: func(ctx context.Context, key string) (func(context.Context, Msg) (Msg, error), error) {
			return zenohQuerier(ctx, s, prefix+key, size)
		},
	}
}

// zenohQueryable declares a queryable on key answering every query from
// the session's delivery goroutine with one reply, f's result padded to
// size bytes, and finishing it with the same write (mode native of
// request/reply).
func zenohQueryable(s *zenoh.Session, key string, size int, f func(Msg) Msg) (stop func() error, err error) {
	life, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex // queries may come from several links at once
	buf := AppendMsg(nil, Msg{}, size)
	var failed atomic.Pointer[error]
	qa, err := s.DeclareQueryable(key, func(q *zenoh.Query) {
		defer q.Finish()
		m, err := DecodeMsg(q.Payload)
		if err != nil {
			err = q.ReplyErr(life, []byte(err.Error()))
		} else {
			res := f(m)
			mu.Lock()
			putHeader(buf, res)
			err = q.ReplyAndFinish(life, q.KeyExpr, buf) // the reply is encoded (copied) before it returns
			mu.Unlock()
		}
		if err != nil && life.Err() == nil {
			failed.CompareAndSwap(nil, &err)
		}
	})
	if err != nil {
		cancel()
		return nil, err
	}
	return func() error {
		cancel()
		err := qa.Undeclare()
		if p := failed.Load(); p != nil {
			err = errors.Join(err, fmt.Errorf("zenoh: queryable's reply: %w", *p))
		}
		return err
	}, nil
}

// querier sends requests as Session.Get queries and collects the reply
// stream, without allocating in the harness: its payload buffer, options
// and reply callback are made once.
type querier struct {
	s      *zenoh.Session
	key    string
	buf    []byte // the request's payload
	hdr    int    // where the Msg header starts in buf
	att    []byte // the request's rmw_zenoh attachment (ROS), or nil
	sent   int64  // requests sent, the attachment's sequence number
	decode func([]byte) (Msg, error)
	opts   []zenoh.GetOption
	yield  func(zenoh.Reply) bool
	// per call
	n   int
	got Msg
	err error
}

// zenohQuerier waits (within ctx, at most matchTimeout) until a queryable
// on key is known and returns a querier's call (mode native of
// request/reply).
func zenohQuerier(ctx context.Context, s *zenoh.Session, key string, size int) (func(context.Context, Msg) (Msg, error), error) {
	if err := waitQueryable(ctx, s, key, size); err != nil {
		return nil, err
	}
	q := &querier{s: s, key: key, buf: AppendMsg(nil, Msg{}, size), decode: DecodeMsg}
	q.opts = []zenoh.GetOption{zenoh.WithQueryPayload(q.buf), zenoh.WithConsolidation(zenoh.ConsolidationNone)}
	q.yield = q.take
	return q.call, nil
}

// waitQueryable waits (within ctx, at most matchTimeout) until a queryable
// on key is known.
func waitQueryable(ctx context.Context, s *zenoh.Session, key string, size int) error {
	// The afor client only serves to wait: Session has no public wait for
	// a queryable.
	probe, err := zenoh.NewClient[Msg, Msg](s, key, Codec{Size: size}, Codec{Size: size})
	if err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, matchTimeout)
	defer cancel()
	if err := probe.WaitForServer(wctx); err != nil {
		return fmt.Errorf("zenoh: %s: no queryable reachable: %w", key, err)
	}
	return nil
}

// take records one reply of the current query.
func (q *querier) take(r zenoh.Reply) bool {
	q.n++
	if r.Err != nil {
		q.err = r.Err
		return true
	}
	m, err := q.decode(r.Sample.Payload)
	if err != nil {
		q.err = err
	}
	q.got = m
	return true
}

// call sends m as a query's payload and waits for the end of its reply
// stream; it fails unless exactly one reply came.
func (q *querier) call(ctx context.Context, m Msg) (Msg, error) {
	putHeader(q.buf[q.hdr:], m) // Get encodes or copies the payload before it returns
	if q.att != nil {
		q.sent++
		stamp(q.att, q.sent, time.Now())
	}
	replies, err := q.s.Get(ctx, q.key, q.opts...)
	if err != nil {
		return Msg{}, err
	}
	q.n, q.got, q.err = 0, Msg{}, nil
	replies(q.yield)
	switch {
	case q.err != nil:
		return Msg{}, q.err
	case q.n == 0 && ctx.Err() != nil:
		return Msg{}, ctx.Err()
	case q.n != 1:
		return Msg{}, fmt.Errorf("%w: %d replies to one query on %s", ErrUnexpected, q.n, q.key)
	}
	return q.got, nil
}

// badSeq marks a message that could not be decoded; scenarios count it as
// failed.
const badSeq = ^uint64(0)
