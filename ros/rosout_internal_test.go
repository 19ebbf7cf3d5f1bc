package ros

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/msgs/rcl_interfaces"
)

func TestRosoutMemory(t *testing.T) {
	a, b := memPair(t)
	rosoutSuite(t, a, b)
}

func TestRosoutZenoh(t *testing.T) {
	a, b := zenohPair(t)
	rosoutSuite(t, a, b)
}

// rosoutSuite logs on a node of ca and reads /rosout on a node of cb.
func rosoutSuite(t *testing.T, ca, cb *Context) {
	ctx := paramCtx(t)
	reader := mustNode(t, cb, "reader")
	sub, err := Subscribe[rcl_interfaces.Log](reader, "/rosout", QoSRosout)
	if err != nil {
		t.Fatal(err)
	}
	logs := sub.Listener(ctx, afor.QueueSize(0))
	n := mustNode(t, ca, "talker", WithNamespace("/robot"))
	waitSubscribed(t, ctx, n, "/rosout")

	n.Logger().Info("from the node logger", "k", 1)
	l := slog.New(n.RosoutHandler(slog.LevelDebug)).With("robot", "r2").WithGroup("g")
	l.Debug("debug")
	l.Warn("warn", "x", "two words")
	l.Error("error", slog.Group("sub", "a", 1))
	l.Log(ctx, LevelFatal, "fatal")
	slog.New(n.RosoutHandler(nil)).Debug("below the level") // not sent
	type rec struct {
		level uint8
		msg   string
	}
	want := []rec{
		{rcl_interfaces.LogInfo, "from the node logger k=1"},
		{rcl_interfaces.LogDebug, "debug robot=r2"},
		{rcl_interfaces.LogWarn, `warn robot=r2 g.x="two words"`},
		{rcl_interfaces.LogError, "error robot=r2 g.sub.a=1"},
		{rcl_interfaces.LogFatal, "fatal robot=r2"},
	}
	for i := 0; i < len(want); {
		m, err := logs.Next(ctx)
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if m.Name != "robot.talker" {
			continue // the reader's own records
		}
		if m.Level != want[i].level || m.Msg != want[i].msg {
			t.Errorf("record %d = level %d %q, want %d %q", i, m.Level, m.Msg, want[i].level, want[i].msg)
		}
		if !strings.HasSuffix(m.File, "rosout_internal_test.go") || !strings.HasSuffix(m.Function, ".rosoutSuite") || m.Line == 0 {
			t.Errorf("record %d from %s:%d (%s)", i, m.File, m.Line, m.Function)
		}
		if m.Stamp.Sec == 0 {
			t.Errorf("record %d without a stamp", i)
		}
		i++
	}
	if n.RosoutDropped() != 0 {
		t.Errorf("dropped %d", n.RosoutDropped())
	}
}

func TestRosoutDropsWhenFull(t *testing.T) {
	a, _ := memPair(t)
	n := mustNode(t, a, "n", WithRosout(false))
	// A sink nobody drains, with room for one record.
	n.rosout = &rosoutSink{node: n, name: n.LoggerName(), queue: make(chan *rcl_interfaces.Log, 1)}
	l := slog.New(n.RosoutHandler(slog.LevelInfo))
	for range 3 {
		l.Info("x") // must not block
	}
	if got := n.RosoutDropped(); got != 2 {
		t.Errorf("dropped %d, want 2", got)
	}
}

func TestRosoutOff(t *testing.T) {
	a, _ := memPair(t)
	n := mustNode(t, a, "n", WithRosout(false))
	h := n.RosoutHandler(slog.LevelDebug)
	if h.Enabled(context.Background(), slog.LevelError) {
		t.Error("handler enabled without /rosout")
	}
	if err := h.Handle(context.Background(), slog.Record{}); err != nil {
		t.Error(err)
	}
	if got := n.Graph().Snapshot().Publishers("/rosout"); len(got) != 0 {
		t.Errorf("/rosout publishers %v", got)
	}
}

func TestLogLevel(t *testing.T) {
	for _, c := range []struct {
		l    slog.Level
		want uint8
	}{
		{slog.LevelDebug - 4, 10}, {slog.LevelDebug, 10}, {slog.LevelInfo - 1, 10}, {slog.LevelInfo, 20},
		{slog.LevelWarn - 1, 20}, {slog.LevelWarn, 30}, {slog.LevelError, 40}, {LevelFatal - 1, 40},
		{LevelFatal, 50}, {LevelFatal + 10, 50},
	} {
		if got := logLevel(c.l); got != c.want {
			t.Errorf("logLevel(%v) = %d, want %d", c.l, got, c.want)
		}
	}
}

func TestLoggerName(t *testing.T) {
	a, _ := memPair(t)
	if got := mustNode(t, a, "talker").LoggerName(); got != "talker" {
		t.Errorf("root: %q", got)
	}
	if got := mustNode(t, a, "talker", WithNamespace("/a/b")).LoggerName(); got != "a.b.talker" {
		t.Errorf("namespaced: %q", got)
	}
}
