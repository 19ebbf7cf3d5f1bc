package scenario

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/transport/zenoh"
)

// The ROS 2 transports run the echo and request/reply through package ros
// over rmw_zenoh's conventions (ros.Zenoh), in mode afor: ros.NewPublisher
// and ros.Subscribe (an afor.Sub), ros.NewServer and ros.NewClient. Their
// native mode is the raw Zenoh underneath, on the same key expressions and
// with the same bytes on the wire: a Session.DeclareSubscriber callback
// receiving, and a Publisher.Put sending, the message's CDR with
// rmw_zenoh's 33-byte attachment and a timestamp; a complete queryable
// answering, and a Session.Get asking, with the attachment. So afor/native
// is what the ROS layer costs over the Zenoh it runs on.

// rosDomain is the ROS domain of every link (the first chunk of the keys).
const rosDomain = 0

// rmw_zenoh's attachment: sequence number, source time, 16 (the GID's
// length), GID.
const rosAttachmentSize = 8 + 8 + 1 + 16

// rosHeaderOffset is where a Msg's header starts in its CDR payload: after
// the encapsulation header, the empty layout (dimension count and
// data_offset) and the data's length.
const rosHeaderOffset = 4 + 4 + 4 + 4

// rosServiceTimeout is the timeout of rmw_zenoh's service queries.
const rosServiceTimeout = 600 * time.Second

// ROSZenoh is ROS 2 over rmw_zenoh's conventions within one ROS context
// (one Zenoh session, local delivery without a socket): sides A and B are
// two nodes of it (native: one Zenoh session). Without system calls, what
// the ROS layer costs stands out: compare with zenoh's rows.
func ROSZenoh() Transport {
	return Transport{Name: "ros-zenoh", Floor: FloorChan, Scenarios: []string{"echo", "request"}, OpenMode: openROSLocal}
}

// ROSZenohTCP is ROS 2 over rmw_zenoh's conventions between two ROS
// contexts (Zenoh sessions) of this process, linked over TCP on 127.0.0.1
// with an ephemeral port: the echo and request/reply.
func ROSZenohTCP() Transport {
	return Transport{Name: "ros-zenoh-tcp", Floor: FloorTCP, Scenarios: []string{"echo", "request"}, OpenMode: openROSTCP}
}

// ROSZenohProc is ROS 2 over rmw_zenoh's conventions between this process
// and a child process (see [RunChild]), over TCP on 127.0.0.1: the child
// is the echo's side B or the server. Its floor is [FloorTCPProc].
func ROSZenohProc() Transport {
	return Transport{Name: "ros-zenoh-proc", Floor: FloorTCPProc, Scenarios: []string{"echo", "request"}, OpenMode: openROSProc}
}

// rosNamespace returns a namespace of its own for a new link.
func rosNamespace() string {
	var id [8]byte
	_, _ = rand.Read(id[:])
	return fmt.Sprintf("/afor_bench/l%x", id)
}

// rosEnd is one side of a ROS link: a ROS context and node (mode afor) or
// a bare Zenoh session (mode native).
type rosEnd struct {
	rc   *ros.Context
	node *ros.Node
	z    *zenoh.Session
}

// openROSEnd opens a side in mode with Zenoh configuration zc.
func openROSEnd(ctx context.Context, mode Mode, zc zenoh.Config, node, ns string) (*rosEnd, error) {
	if mode == ModeNative {
		z, err := zenoh.Open(ctx, zc)
		if err != nil {
			return nil, err
		}
		return &rosEnd{z: z}, nil
	}
	rc, err := ros.Open(ctx, ros.WithMiddleware(ros.Zenoh(zc)), ros.WithDomainID(rosDomain),
		ros.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		return nil, err
	}
	n, err := rc.NewNode(node, ros.WithNamespace(ns))
	if err != nil {
		_ = rc.Close()
		return nil, err
	}
	return &rosEnd{rc: rc, node: n}, nil
}

func (e *rosEnd) listenAddrs() []string {
	if e.z != nil {
		return e.z.ListenAddrs()
	}
	return e.rc.ListenAddrs()
}

func (e *rosEnd) peer(ns string, size int) Peer {
	if e.z != nil {
		return rosNativePeer(e.z, ns, size)
	}
	return rosPeer(e.node, size)
}

func (e *rosEnd) close() error {
	if e.z != nil {
		return e.z.Close()
	}
	return e.rc.Close()
}

func openROSLocal(ctx context.Context, mode Mode, size int) (*Link, error) {
	ns := rosNamespace()
	a, err := openROSEnd(ctx, mode, zenoh.Config{}, "bench_a", ns)
	if err != nil {
		return nil, err
	}
	b := a
	if mode == ModeAfor {
		n, err := a.rc.NewNode("bench_b", ros.WithNamespace(ns))
		if err != nil {
			return nil, errors.Join(err, a.close())
		}
		b = &rosEnd{rc: a.rc, node: n}
	}
	return &Link{A: a.peer(ns, size), B: b.peer(ns, size), Close: a.close}, nil
}

func openROSTCP(ctx context.Context, mode Mode, size int) (*Link, error) {
	ns := rosNamespace()
	b, err := openROSEnd(ctx, mode, zenoh.Config{Listen: []string{"tcp/127.0.0.1:0"}}, "bench_b", ns)
	if err != nil {
		return nil, err
	}
	a, err := openROSEnd(ctx, mode, zenoh.Config{Connect: b.listenAddrs()}, "bench_a", ns)
	if err != nil {
		return nil, errors.Join(err, b.close())
	}
	return &Link{A: a.peer(ns, size), B: b.peer(ns, size), Close: func() error { return errors.Join(a.close(), b.close()) }}, nil
}

func openROSProc(ctx context.Context, mode Mode, size int) (*Link, error) {
	ns := rosNamespace()
	a, err := openROSEnd(ctx, mode, zenoh.Config{Listen: []string{"tcp/127.0.0.1:0"}}, "bench_a", ns)
	if err != nil {
		return nil, err
	}
	child := func(role string) func(ctx context.Context, mode Mode) (func() error, error) {
		return func(ctx context.Context, mode Mode) (func() error, error) {
			return startChild(ctx, childConfig{Role: role, ROS: true, Connect: a.listenAddrs()[0], Prefix: ns, Mode: mode, Size: size})
		}
	}
	return &Link{A: a.peer(ns, size), EchoB: child(roleEcho), ServerB: child("server"), Close: a.close}, nil
}

// runROSChild is a child process's side B over ROS (childConfig.ROS): the
// echo's responder or the server, in cfg.Mode, on the parent's namespace.
func runROSChild(ctx context.Context, cfg childConfig) (stop func() error, err error) {
	end, err := openROSEnd(ctx, cfg.Mode, zenoh.Config{Connect: []string{cfg.Connect}}, "bench_b", cfg.Prefix)
	if err != nil {
		return nil, err
	}
	p := end.peer(cfg.Prefix, cfg.Size)
	var stopB func() error
	if cfg.Role == "server" {
		stopB, err = RequestResponder(p, cfg.Mode, cfg.Size)
	} else {
		stopB, err = EchoResponder(ctx, p, cfg.Mode)
	}
	if err != nil {
		return nil, errors.Join(err, end.close())
	}
	return func() error { return errors.Join(stopB(), end.close()) }, nil
}

// rosPeer is a side of mode afor: the node's publishers, subscriptions,
// server and client, with topic and service names relative to its
// namespace.
func rosPeer(n *ros.Node, size int) Peer {
	body := padding(size)
	return Peer{
		Publisher: func(ctx context.Context, key string) (func(context.Context, Msg) error, error) {
			pub, err := ros.NewPublisher[Msg](n, key, ros.QoSDefault)
			if err != nil {
				return nil, err
			}
			// Over DDS the graph can list a subscription before the writer
			// matched its reader: wait for the match, so that the first
			// message is not lost (over Zenoh the graph shows a subscription
			// once its token came, after its subscriber: the route is known).
			wctx, cancel := context.WithTimeout(ctx, matchTimeout)
			defer cancel()
			if err := pub.WaitForSubscriptions(wctx, 1); err != nil {
				return nil, fmt.Errorf("ros: %s: no subscription reachable: %w", pub.Topic(), err)
			}
			var out Msg // reused: the publisher is used by one goroutine at a time
			return func(ctx context.Context, m Msg) error {
				out = Msg{Seq: m.Seq, Stamp: m.Stamp, Body: body}
				return pub.Publish(ctx, &out)
			}, nil
		},
		Subscribe: func(key string, opts ...afor.Option) (*afor.Sub[Msg], error) {
			return ros.Subscribe[Msg](n, key, ros.QoSDefault, opts...)
		},
		Server: func(key string) (*afor.Server[Msg, Msg], error) { return ros.NewServer(n, key, echoService{}) },
		Client: func(key string) (*afor.Client[Msg, Msg], error) { return ros.NewClient(n, key, echoService{}) },
	}
}

// rosKey is rmw_zenoh's key expression of the name (relative to the
// namespace ns) and the type: "<domain>/<ns>/<name>/<DDS type>/<hash>".
func rosKey(ns, name, ddsType, hash string) string {
	return fmt.Sprintf("%d/%s/%s/%s/%s", rosDomain, strings.Trim(ns, "/"), name, ddsType, hash)
}

// rosNativePeer is a side of mode native: a bare Zenoh session on the keys
// the ROS side uses, sending the same payloads and attachments.
func rosNativePeer(s *zenoh.Session, ns string, size int) Peer {
	msgKey := func(name string) string { return rosKey(ns, name, (*Msg)(nil).DDSTypeName(), (*Msg)(nil).TypeHash()) }
	srvKey := func(name string) string {
		return rosKey(ns, name, echoService{}.DDSTypeName(), echoService{}.TypeHash())
	}
	return Peer{
		Publisher: func(ctx context.Context, key string) (func(context.Context, Msg) error, error) {
			pub, err := s.DeclarePublisher(msgKey(key))
			if err != nil {
				return nil, err
			}
			wctx, cancel := context.WithTimeout(ctx, matchTimeout)
			defer cancel()
			if err := pub.WaitMatching(wctx); err != nil {
				return nil, fmt.Errorf("zenoh: %s: no subscriber reachable: %w", key, err)
			}
			buf, err := (&Msg{Body: padding(size)}).AppendCDR(nil)
			if err != nil {
				return nil, err
			}
			att := newAttachment()
			attOpt := zenoh.WithAttachment(att) // att is rewritten in place, Put encodes it before returning
			var seq int64
			return func(ctx context.Context, m Msg) error {
				putHeader(buf[rosHeaderOffset:], m)
				seq++
				now := time.Now()
				stamp(att, seq, now)
				return pub.Put(ctx, buf, attOpt, zenoh.WithTimestamp(zenoh.NewTimestamp(now, nil)))
			}, nil
		},
		Callback: func(key string, f func(Msg)) (func(), error) {
			sub, err := s.DeclareSubscriber(msgKey(key), func(smp zenoh.Sample) {
				var m Msg
				if err := m.UnmarshalCDR(smp.Payload); err != nil {
					m = Msg{Seq: badSeq}
				}
				f(m)
			})
			if err != nil {
				return nil, err
			}
			return func() { _ = sub.Undeclare() }, nil
		},
		Queryable: func(key string, f func(Msg) Msg) (func() error, error) {
			return rosQueryable(s, srvKey(key), size, f)
		},
		Querier: func(ctx context.Context, key string) (func(context.Context, Msg) (Msg, error), error) {
			return rosQuerier(ctx, s, srvKey(key), size)
		},
	}
}

// newAttachment returns an rmw_zenoh attachment with a random GID.
func newAttachment() []byte {
	att := make([]byte, rosAttachmentSize)
	att[16] = 16
	_, _ = rand.Read(att[17:])
	return att
}

// stamp writes the sequence number and the source time into att.
func stamp(att []byte, seq int64, t time.Time) {
	binary.LittleEndian.PutUint64(att[0:], uint64(seq))
	binary.LittleEndian.PutUint64(att[8:], uint64(t.UnixNano()))
}

// rosQueryable declares a complete queryable on key answering every query
// from the session's delivery goroutine as an rmw_zenoh service does: one
// reply, f's result as CDR padded to size bytes, with the request's
// sequence number and GID in its attachment, finishing the query with the
// same write.
func rosQueryable(s *zenoh.Session, key string, size int, f func(Msg) Msg) (stop func() error, err error) {
	life, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex // queries may come from several links at once
	buf, err := (&Msg{Body: padding(size)}).AppendCDR(nil)
	if err != nil {
		cancel()
		return nil, err
	}
	att := newAttachment()
	attOpt := zenoh.WithAttachment(att)
	var failed atomic.Pointer[error]
	qa, err := s.DeclareQueryable(key, func(q *zenoh.Query) {
		var m Msg
		err := m.UnmarshalCDR(q.Payload)
		if err == nil && len(q.Attachment) != rosAttachmentSize {
			err = fmt.Errorf("%w: attachment of %d bytes", ErrUnexpected, len(q.Attachment))
		}
		if err != nil {
			err = q.ReplyErr(life, []byte(err.Error()))
			q.Finish()
		} else {
			res := f(m)
			mu.Lock()
			putHeader(buf[rosHeaderOffset:], res)
			copy(att, q.Attachment[:8])       // the request's sequence number
			copy(att[17:], q.Attachment[17:]) // and the client's GID
			binary.LittleEndian.PutUint64(att[8:], uint64(time.Now().UnixNano()))
			err = q.ReplyAndFinish(life, key, buf, attOpt) // encoded (copied) before it returns
			mu.Unlock()
		}
		if err != nil && life.Err() == nil {
			failed.CompareAndSwap(nil, &err)
		}
	}, zenoh.Complete())
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

// rosQuerier waits (within ctx, at most matchTimeout) until a queryable on
// key is known and returns a call sending queries as an rmw_zenoh client
// does: the request's CDR and the attachment, target all complete, no
// consolidation, rmw_zenoh's timeout.
func rosQuerier(ctx context.Context, s *zenoh.Session, key string, size int) (func(context.Context, Msg) (Msg, error), error) {
	if err := waitQueryable(ctx, s, key, size); err != nil {
		return nil, err
	}
	buf, err := (&Msg{Body: padding(size)}).AppendCDR(nil)
	if err != nil {
		return nil, err
	}
	q := &querier{s: s, key: key, buf: buf, hdr: rosHeaderOffset, att: newAttachment(), decode: decodeCDRMsg}
	q.opts = []zenoh.GetOption{zenoh.WithQueryPayload(q.buf), zenoh.WithQueryAttachment(q.att),
		zenoh.WithTarget(zenoh.TargetAllComplete), zenoh.WithConsolidation(zenoh.ConsolidationNone),
		zenoh.WithTimeout(rosServiceTimeout)}
	q.yield = q.take
	return q.call, nil
}

// decodeCDRMsg decodes a Msg from its CDR payload.
func decodeCDRMsg(b []byte) (Msg, error) {
	var m Msg
	err := m.UnmarshalCDR(b)
	return m, err
}
