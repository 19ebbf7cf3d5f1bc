package bag

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros"
)

// RecordOptions select the topics a [Recorder] records and bound its
// memory. With no Topics and no Regex it records every topic, as
// `ros2 bag record --all`.
type RecordOptions struct {
	// Topics lists topics to record (names resolved by the node).
	Topics []string
	// Regex records the topics whose full name it matches entirely.
	Regex *regexp.Regexp
	// Exclude leaves out the topics whose full name it matches entirely.
	Exclude *regexp.Regexp
	// IncludeHidden records hidden topics (a name part starting with "_")
	// too; they are left out otherwise, as rosbag2 does.
	IncludeHidden bool
	// NoDiscovery subscribes only to the topics found when recording
	// starts; by default new topics are subscribed to as they appear.
	NoDiscovery bool
	// QueueBytes bounds the payloads waiting for the writer; 0 means 512
	// MiB. A message that arrives at a full queue is dropped, counted in
	// [RecordStats].Dropped and logged.
	QueueBytes int64
	// Depth is the history depth of the subscriptions; 0 means rosbag2's
	// 10.
	Depth int
	// UseSimTime stamps messages with the node's clock (the /clock time
	// under use_sim_time) instead of the time they were received.
	UseSimTime bool
	// Logger receives the recorder's messages; nil uses the node's.
	Logger *slog.Logger
}

// RecordStats counts a recording's messages.
type RecordStats struct {
	Received uint64 // messages the subscriptions received
	Written  uint64 // messages written to the bag
	Dropped  uint64 // messages dropped at a full queue
	Failed   uint64 // messages the writer failed to write
	Queued   int64  // bytes waiting for the writer now
	Topics   int    // topics subscribed to
}

// Recorder records topics of a live ROS 2 graph into a bag, as
// `ros2 bag record` does: each topic is subscribed to with the QoS its
// publishers offer (reliable if they all are, TRANSIENT_LOCAL if they all
// are, so latched messages are recorded), payloads are queued as received
// (never decoded, never copied) and a single goroutine writes them.
// Create one with [Record].
type Recorder struct {
	node *ros.Node
	w    *Writer
	o    RecordOptions
	log  *slog.Logger

	queue   chan queued
	bytes   atomic.Int64
	qmu     sync.RWMutex // held for reading to send on queue, for writing to close it
	qclosed bool

	received, written, dropped, failed atomic.Uint64
	warnedDrop                         atomic.Bool

	mu       sync.Mutex
	subs     map[string]*afor.Sub[ros.RawMessage]
	closed   bool
	stopped  chan struct{} // closed when discovery stops
	done     chan struct{} // closed when the writer goroutine ends
	cancel   context.CancelFunc
	writeErr error
}

type queued struct {
	topic     string
	received  time.Time
	published time.Time
	seq       uint32
	payload   []byte
}

// Record starts recording the topics node sees into w. It subscribes to
// the matching topics the graph holds now and, unless NoDiscovery, to
// those that appear later. Close stops it; w stays open for the caller to
// close.
func Record(ctx context.Context, node *ros.Node, w *Writer, o RecordOptions) (*Recorder, error) {
	if o.QueueBytes <= 0 {
		o.QueueBytes = 512 << 20
	}
	if o.Depth <= 0 {
		o.Depth = 10
	}
	log := o.Logger
	if log == nil {
		log = node.Logger()
	}
	topics := make([]string, 0, len(o.Topics))
	for _, t := range o.Topics {
		full, err := node.ResolveTopicName(t)
		if err != nil {
			return nil, err
		}
		topics = append(topics, full)
	}
	o.Topics = topics
	ctx, cancel := context.WithCancel(ctx)
	r := &Recorder{node: node, w: w, o: o, log: log, queue: make(chan queued, 1<<16),
		subs: map[string]*afor.Sub[ros.RawMessage]{}, stopped: make(chan struct{}), done: make(chan struct{}), cancel: cancel}
	go r.writeLoop()
	updates := node.Graph().Updates()
	g, ok := updates.Value()
	if !ok {
		g = node.Graph().Snapshot()
	}
	r.discover(g)
	if o.NoDiscovery {
		updates.Close()
		close(r.stopped)
		return r, nil
	}
	go func() {
		defer close(r.stopped)
		defer updates.Close()
		for g := range updates.Listen(ctx) {
			r.discover(g)
		}
	}()
	return r, nil
}

// hidden reports whether a name has a part starting with "_".
func hidden(name string) bool {
	for part := range strings.SplitSeq(name, "/") {
		if strings.HasPrefix(part, "_") {
			return true
		}
	}
	return false
}

func (r *Recorder) wants(topic string) bool {
	if !r.o.IncludeHidden && hidden(topic) && !slices.Contains(r.o.Topics, topic) {
		return false
	}
	if r.o.Exclude != nil && fullMatch(r.o.Exclude, topic) {
		return false
	}
	if len(r.o.Topics) == 0 && r.o.Regex == nil {
		return true
	}
	return slices.Contains(r.o.Topics, topic) || (r.o.Regex != nil && fullMatch(r.o.Regex, topic))
}

func fullMatch(re *regexp.Regexp, s string) bool {
	loc := re.FindStringIndex(s)
	return loc != nil && loc[0] == 0 && loc[1] == len(s)
}

// discover subscribes to the wanted topics of g that have publishers and
// no subscription of ours yet.
func (r *Recorder) discover(g *ros.GraphSnapshot) {
	for topic := range g.Topics() {
		r.mu.Lock()
		_, have := r.subs[topic]
		closed := r.closed
		r.mu.Unlock()
		if have || closed || !r.wants(topic) {
			continue
		}
		pubs := g.Publishers(topic)
		if len(pubs) == 0 {
			continue
		}
		if err := r.subscribe(topic, pubs); err != nil {
			r.log.Warn("bag: cannot record topic", "topic", topic, "err", err)
		}
	}
}

// RequestQoS is the QoS rosbag2 subscribes with to a topic with these
// publishers: reliable if they all are, else best effort; TRANSIENT_LOCAL
// if they all are, else volatile; keep last depth.
func RequestQoS(pubs []ros.Endpoint, depth int) ros.QoS {
	q := ros.QoSKeepLast(depth)
	for _, p := range pubs {
		if p.QoS.Reliability == ros.BestEffort {
			q.Reliability = ros.BestEffort
		}
	}
	q.Durability = ros.TransientLocal
	for _, p := range pubs {
		if p.QoS.Durability != ros.TransientLocal {
			q.Durability = ros.Volatile
		}
	}
	return q
}

func (r *Recorder) subscribe(topic string, pubs []ros.Endpoint) error {
	typ, hash := pubs[0].Type, pubs[0].TypeHash
	for _, p := range pubs[1:] {
		if p.Type != typ {
			r.log.Warn("bag: publishers of a topic disagree on its type: recording the first", "topic", topic, "type", typ, "other", p.Type)
			break
		}
	}
	offered := make([]QoS, 0, len(pubs))
	for _, p := range pubs {
		if p.Type == typ {
			offered = append(offered, QoSFromROS(p.QoS))
		}
	}
	if err := r.w.AddTopic(Topic{Name: topic, Type: typ, OfferedQoS: offered, TypeHash: hash}); err != nil {
		return err
	}
	q := RequestQoS(pubs, r.o.Depth)
	sub, err := ros.SubscribeRaw(r.node, topic, ros.RawType{Name: typ, Hash: hash}, q)
	if err != nil {
		return err
	}
	clock := r.node.Clock()
	handle := func(m ros.RawMessage) {
		r.received.Add(1)
		n := int64(len(m.Payload))
		if r.bytes.Add(n) > r.o.QueueBytes {
			r.bytes.Add(-n)
			r.drop(topic)
			return
		}
		recv := m.Info.ReceivedTime
		if r.o.UseSimTime || recv.IsZero() {
			recv = clock.Now()
		}
		r.qmu.RLock()
		defer r.qmu.RUnlock()
		if r.qclosed {
			r.bytes.Add(-n)
			return
		}
		select {
		case r.queue <- queued{topic: topic, received: recv, published: m.Info.SourceTime, seq: uint32(m.Info.Sequence), payload: m.Payload}:
		default:
			r.bytes.Add(-n)
			r.drop(topic)
		}
	}
	// A middleware may deliver a TRANSIENT_LOCAL publisher's kept messages
	// as the subscription is created: the sub keeps them for its first
	// consumer, this callback, which gets them first (afor.WithBacklog).
	sub.OnInput(handle)
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		sub.Close()
		return nil
	}
	r.subs[topic] = sub
	r.mu.Unlock()
	r.log.Debug("bag: recording", "topic", topic, "type", typ, "qos", q.String())
	return nil
}

func (r *Recorder) drop(topic string) {
	r.dropped.Add(1)
	if !r.warnedDrop.Swap(true) {
		r.log.Warn("bag: the write queue is full: dropping messages (see RecordStats.Dropped)", "topic", topic, "queue_bytes", r.o.QueueBytes)
	}
}

// writeLoop writes the queued messages until the queue is closed.
func (r *Recorder) writeLoop() {
	defer close(r.done)
	for q := range r.queue {
		err := r.w.Write(q.topic, q.received, q.published, q.seq, q.payload)
		r.bytes.Add(-int64(len(q.payload)))
		if err != nil {
			if r.failed.Add(1) == 1 {
				r.log.Error("bag: cannot write", "topic", q.topic, "err", err)
				r.mu.Lock()
				r.writeErr = err
				r.mu.Unlock()
			}
			continue
		}
		r.written.Add(1)
	}
}

// Stats returns the recording's counts.
func (r *Recorder) Stats() RecordStats {
	r.mu.Lock()
	n := len(r.subs)
	r.mu.Unlock()
	return RecordStats{Received: r.received.Load(), Written: r.written.Load(), Dropped: r.dropped.Load(),
		Failed: r.failed.Load(), Queued: r.bytes.Load(), Topics: n}
}

// Topics returns the topics being recorded.
func (r *Recorder) Topics() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for t := range r.subs {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// ErrDropped is matched by the error of [Recorder.Close] when messages
// were dropped.
var ErrDropped = errors.New("bag: messages dropped")

// Close stops the subscriptions and waits until every queued message is
// written. It returns the first write error, or an error matching
// ErrDropped when messages were dropped. Close is idempotent; it does not
// close the writer.
func (r *Recorder) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		<-r.done
		return r.result()
	}
	r.closed = true
	subs := r.subs
	r.mu.Unlock()
	r.cancel()
	<-r.stopped
	for _, s := range subs {
		s.Close()
	}
	r.qmu.Lock()
	r.qclosed = true
	close(r.queue)
	r.qmu.Unlock()
	<-r.done
	return r.result()
}

func (r *Recorder) result() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.writeErr != nil {
		return r.writeErr
	}
	if d := r.dropped.Load(); d > 0 {
		return fmt.Errorf("%w: %d of %d", ErrDropped, d, r.received.Load())
	}
	return nil
}
