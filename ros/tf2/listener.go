package tf2

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/tf2_msgs"
)

// The topics and QoS of tf2_ros (tf2_ros/qos.hpp).
const (
	// TopicTF carries the transforms that change (/tf).
	TopicTF = "/tf"
	// TopicTFStatic carries the transforms that do not (/tf_static).
	TopicTFStatic = "/tf_static"
)

var (
	// QoSListener is tf2_ros's DynamicListenerQoS and
	// DynamicBroadcasterQoS: keep last 100, reliable, volatile.
	QoSListener = ros.QoSKeepLast(100)
	// QoSStaticListener is tf2_ros's StaticListenerQoS: keep last 100,
	// reliable, transient local, so that a late joiner gets each static
	// broadcaster's last message.
	QoSStaticListener = ros.QoSTransientLocal(100)
	// QoSStaticBroadcaster is tf2_ros's StaticBroadcasterQoS: keep last 1,
	// reliable, transient local. A static broadcaster's one message holds
	// its whole set of transforms.
	QoSStaticBroadcaster = ros.QoSTransientLocal(1)
)

// authorityUnknown is what tf2_ros records as the authority of every
// transform it receives; a Listener says so only until the graph names the
// publisher's node.
const authorityUnknown = "Authority undetectable"

// Listener feeds a [Buffer] with the transforms published on /tf and
// /tf_static, as tf2_ros's TransformListener: each message's transforms
// are stored as they arrive, in the middleware's goroutine. The authority
// recorded for a transform is the publishing node's name when the graph
// knows it. A transform the buffer refuses is logged (at most once a
// second) and counted in [Buffer.Stats]; the others of its message are
// kept.
type Listener struct {
	buf   *Buffer
	node  *ros.Node
	subs  []*afor.Sub[ros.Received[tf2_msgs.TFMessage]]
	stats struct {
		sync.Mutex
		ListenerStats
	}

	amu       sync.Mutex
	authority map[ros.GID]string
	tried     map[ros.GID]time.Time
	warned    time.Time
}

// ListenerStats counts what a [Listener] received.
type ListenerStats struct {
	Messages  uint64 // TFMessages received on both topics
	Rejected  uint64 // transforms among them the buffer refused
	LastError error  // the last refusal
}

// ListenerOption configures a [Listener].
type ListenerOption func(*listenerConfig)

type listenerConfig struct {
	tf, static string
	staticOnly bool
}

// WithTopics replaces /tf and /tf_static (tf2_ros's configurable topics,
// for a robot's namespaced tree).
func WithTopics(tf, static string) ListenerOption {
	return func(c *listenerConfig) { c.tf, c.static = tf, static }
}

// StaticOnly listens to /tf_static only, as tf2_ros's static_only.
func StaticOnly() ListenerOption { return func(c *listenerConfig) { c.staticOnly = true } }

// NewListener subscribes node to /tf (QoSListener) and /tf_static
// (QoSStaticListener) and stores what they carry in buf until
// [Listener.Close] or the node closes.
func NewListener(node *ros.Node, buf *Buffer, opts ...ListenerOption) (*Listener, error) {
	cfg := listenerConfig{tf: TopicTF, static: TopicTFStatic}
	for _, o := range opts {
		o(&cfg)
	}
	l := &Listener{buf: buf, node: node, authority: map[ros.GID]string{}, tried: map[ros.GID]time.Time{}}
	if err := l.listen(cfg.static, QoSStaticListener, true); err != nil {
		return nil, err
	}
	if !cfg.staticOnly {
		if err := l.listen(cfg.tf, QoSListener, false); err != nil {
			l.Close()
			return nil, err
		}
	}
	return l, nil
}

func (l *Listener) listen(topic string, qos ros.QoS, static bool) error {
	sub, err := ros.SubscribeInfo[tf2_msgs.TFMessage](l.node, topic, qos)
	if err != nil {
		return err
	}
	// Bound at once, before anything else: a transient-local history may
	// come right after the subscription exists (the sub gives what came
	// before to its first callback when it keeps a backlog; else its
	// latest value is all there is left of it).
	var seen atomic.Bool
	sub.OnInput(func(m ros.Received[tf2_msgs.TFMessage]) { seen.Store(true); l.input(m, static) })
	if m, ok := sub.Value(); ok && !seen.Load() {
		l.input(m, static)
	}
	l.subs = append(l.subs, sub)
	return nil
}

func (l *Listener) input(m ros.Received[tf2_msgs.TFMessage], static bool) {
	err := l.buf.SetTransforms(m.Msg.Transforms, l.authorityOf(m.Info.PublisherGID), static)
	l.stats.Lock()
	l.stats.Messages++
	if err != nil {
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			l.stats.Rejected += uint64(len(j.Unwrap()))
		} else {
			l.stats.Rejected++
		}
		l.stats.LastError = err
	}
	l.stats.Unlock()
	if err != nil {
		l.warn(err)
	}
}

func (l *Listener) warn(err error) {
	l.amu.Lock()
	now := time.Now()
	loud := now.Sub(l.warned) >= time.Second
	if loud {
		l.warned = now
	}
	l.amu.Unlock()
	if loud {
		l.node.Logger().Warn("tf2: failure to set received transforms", "err", err)
	}
}

// authorityOf names the node of a publisher GID, asking the graph at most
// once a second per unknown publisher.
func (l *Listener) authorityOf(gid ros.GID) string {
	l.amu.Lock()
	defer l.amu.Unlock()
	if a, ok := l.authority[gid]; ok {
		return a
	}
	if t, ok := l.tried[gid]; ok && time.Since(t) < time.Second {
		return authorityUnknown
	}
	l.tried[gid] = time.Now()
	for _, e := range l.node.Graph().Snapshot().Endpoints {
		if e.GID == gid && e.Kind == ros.KindPublisher && e.Node.Known() {
			a := e.Node.FullyQualifiedName()
			l.authority[gid] = a
			delete(l.tried, gid)
			return a
		}
	}
	return authorityUnknown
}

// Stats returns the counts of messages received and transforms refused.
func (l *Listener) Stats() ListenerStats {
	l.stats.Lock()
	defer l.stats.Unlock()
	return l.stats.ListenerStats
}

// Close ends the subscriptions; the buffer keeps what it has.
func (l *Listener) Close() error {
	for _, s := range l.subs {
		s.Close()
	}
	return nil
}
