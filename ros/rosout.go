package ros

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/afor-go/afor/ros/msgs/rcl_interfaces"
)

// rosoutQueue bounds the records waiting to be published on /rosout; a
// record beyond it is dropped and counted.
const rosoutQueue = 1024

// LevelFatal is the slog level mapped to rcl's FATAL (50).
const LevelFatal = slog.LevelError + 4

// rosoutSink publishes a node's log records on /rosout from one goroutine,
// so that logging never waits for the network.
type rosoutSink struct {
	node    *Node
	name    string // the logger name, as rcl makes it
	pub     *Publisher[rcl_interfaces.Log, *rcl_interfaces.Log]
	queue   chan *rcl_interfaces.Log
	stop    chan struct{}
	done    chan struct{}
	dropped atomic.Uint64
	once    sync.Once
}

// LoggerName returns the node's logger name as rcl makes it: the fully
// qualified name without its leading slash, with dots for slashes
// ("ns.talker" for /ns/talker).
func (n *Node) LoggerName() string {
	return strings.ReplaceAll(strings.TrimPrefix(n.FullyQualifiedName(), "/"), "/", ".")
}

// startRosout creates the node's /rosout publisher and its goroutine.
func (n *Node) startRosout() error {
	pub, err := NewPublisher[rcl_interfaces.Log](n, "/rosout", QoSRosout)
	if err != nil {
		return err
	}
	s := &rosoutSink{node: n, name: n.LoggerName(), pub: pub,
		queue: make(chan *rcl_interfaces.Log, rosoutQueue), stop: make(chan struct{}), done: make(chan struct{})}
	if _, err := n.track(func() error { s.close(); return nil }); err != nil {
		_ = pub.Close()
		return err
	}
	go s.run()
	n.rosout = s
	return nil
}

func (s *rosoutSink) run() {
	defer close(s.done)
	for {
		select {
		case m := <-s.queue:
			if err := s.pub.Publish(context.Background(), m); err != nil && !errors.Is(err, ErrClosed) {
				s.node.ctx.logger.Debug("ros: publishing on /rosout", "node", s.node.FullyQualifiedName(), "err", err)
			}
		case <-s.stop:
			return
		}
	}
}

func (s *rosoutSink) close() {
	s.once.Do(func() {
		close(s.stop)
		<-s.done
	})
}

// RosoutDropped returns how many log records the node dropped because its
// /rosout queue was full (0 when it has no /rosout publisher).
func (n *Node) RosoutDropped() uint64 {
	if n.rosout == nil {
		return 0
	}
	return n.rosout.dropped.Load()
}

// RosoutHandler returns a [slog.Handler] that publishes records on the
// node's /rosout (rcl_interfaces/msg/Log, QoSRosout) as rcl does: the slog
// level mapped to DEBUG (below Info), INFO, WARN, ERROR and FATAL (from
// [LevelFatal]); the logger name [Node.LoggerName]; file, function and line
// from the record's PC; the stamp the record's time (system time, as
// rcutils stamps logs, also on sim time); the attributes appended to the
// message as " key=value" (group.key in a group, quoted when needed). Handle never waits for the network: records are queued, and
// those beyond the queue are dropped and counted ([Node.RosoutDropped]).
// Records below minLevel are ignored. With [WithRosout](false) the handler
// discards everything.
func (n *Node) RosoutHandler(minLevel slog.Leveler) slog.Handler {
	if minLevel == nil {
		minLevel = slog.LevelInfo
	}
	return &rosoutHandler{sink: n.rosout, min: minLevel}
}

type rosoutHandler struct {
	sink   *rosoutSink
	min    slog.Leveler
	groups []string
	attrs  string // preformatted attributes of WithAttrs
}

func (h *rosoutHandler) Enabled(_ context.Context, l slog.Level) bool {
	return h.sink != nil && l >= h.min.Level()
}

func (h *rosoutHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return h
	}
	c := *h
	var b strings.Builder
	b.WriteString(h.attrs)
	for _, a := range attrs {
		appendAttr(&b, h.groups, a)
	}
	c.attrs = b.String()
	return &c
}

func (h *rosoutHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := *h
	c.groups = append(slices.Clip(h.groups), name)
	return &c
}

func (h *rosoutHandler) Handle(_ context.Context, r slog.Record) error {
	if h.sink == nil {
		return nil
	}
	stamp := r.Time
	if stamp.IsZero() {
		stamp = time.Now()
	}
	m := &rcl_interfaces.Log{
		Stamp: timeMsg(stamp),
		Level: logLevel(r.Level),
		Name:  h.sink.name,
	}
	if r.PC != 0 {
		f, _ := runtime.CallersFrames([]uintptr{r.PC}).Next()
		m.File, m.Function, m.Line = f.File, f.Function, uint32(max(f.Line, 0))
	}
	var b strings.Builder
	b.WriteString(r.Message)
	b.WriteString(h.attrs)
	r.Attrs(func(a slog.Attr) bool {
		appendAttr(&b, h.groups, a)
		return true
	})
	m.Msg = b.String()
	select {
	case h.sink.queue <- m:
	default:
		h.sink.dropped.Add(1)
	}
	return nil
}

// logLevel maps a slog level to rcl_interfaces/msg/Log's.
func logLevel(l slog.Level) uint8 {
	switch {
	case l < slog.LevelInfo:
		return rcl_interfaces.LogDebug
	case l < slog.LevelWarn:
		return rcl_interfaces.LogInfo
	case l < slog.LevelError:
		return rcl_interfaces.LogWarn
	case l < LevelFatal:
		return rcl_interfaces.LogError
	}
	return rcl_interfaces.LogFatal
}

// appendAttr writes " key=value", groups joined with dots.
func appendAttr(b *strings.Builder, groups []string, a slog.Attr) {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return
	}
	if a.Value.Kind() == slog.KindGroup {
		g := groups
		if a.Key != "" {
			g = append(slices.Clip(groups), a.Key)
		}
		for _, sub := range a.Value.Group() {
			appendAttr(b, g, sub)
		}
		return
	}
	b.WriteByte(' ')
	for _, g := range groups {
		b.WriteString(g)
		b.WriteByte('.')
	}
	b.WriteString(a.Key)
	b.WriteByte('=')
	v := a.Value.String()
	if strings.ContainsAny(v, " \t\n\"=") {
		v = quote(v)
	}
	b.WriteString(v)
}

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// teeHandler sends records to two handlers: the node's logger and its
// /rosout.
type teeHandler struct{ a, b slog.Handler }

func (t teeHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return t.a.Enabled(ctx, l) || t.b.Enabled(ctx, l)
}

func (t teeHandler) Handle(ctx context.Context, r slog.Record) error {
	var errs []error
	if t.a.Enabled(ctx, r.Level) {
		errs = append(errs, t.a.Handle(ctx, r.Clone()))
	}
	if t.b.Enabled(ctx, r.Level) {
		errs = append(errs, t.b.Handle(ctx, r))
	}
	return errors.Join(errs...)
}

func (t teeHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return teeHandler{t.a.WithAttrs(attrs), t.b.WithAttrs(attrs)}
}

func (t teeHandler) WithGroup(name string) slog.Handler {
	return teeHandler{t.a.WithGroup(name), t.b.WithGroup(name)}
}
