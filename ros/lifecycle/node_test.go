package lifecycle_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/lifecycle"
	"github.com/afor-go/afor/ros/msgs/lifecycle_msgs"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
)

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// memNode returns a node on net, closed with the test.
func memNode(t testing.TB, net *ros.MemoryNetwork, name string, opts ...ros.Option) *ros.Node {
	t.Helper()
	opts = append([]ros.Option{ros.WithMiddleware(ros.Memory(net)), ros.WithLogger(slog.New(slog.DiscardHandler))}, opts...)
	n, err := ros.NewNode(context.Background(), name, opts...)
	if err != nil {
		t.Fatalf("NewNode(%q): %v", name, err)
	}
	t.Cleanup(func() { _ = n.Close() })
	return n
}

// managed returns a managed node "/managed" on net and a client of it on
// another node, ready.
func managed(t *testing.T, net *ros.MemoryNetwork, opts ...lifecycle.Option) (*lifecycle.Node, *lifecycle.Client) {
	t.Helper()
	lc, err := lifecycle.Manage(memNode(t, net, "managed"), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lc.Close() })
	c, err := lifecycle.NewClient(memNode(t, net, "manager"), "/managed")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.WaitReady(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	return lc, c
}

// events collects a client's transition events as "start->goal".
type events struct {
	sub *afor.Sub[lifecycle_msgs.TransitionEvent]
	l   *afor.Listener[lifecycle_msgs.TransitionEvent]
}

func watch(t *testing.T, c *lifecycle.Client) *events {
	t.Helper()
	sub, err := c.Events()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sub.Close)
	return &events{sub: sub, l: sub.Listener(context.Background(), afor.Fresh(), afor.QueueSize(0))}
}

// expect takes the next len(want) events and compares them.
func (e *events) expect(t *testing.T, want ...string) {
	t.Helper()
	ctx := testCtx(t)
	for _, w := range want {
		ev, err := e.l.Next(ctx)
		if err != nil {
			t.Fatalf("waiting for event %s: %v", w, err)
		}
		got := ev.StartState.Label + "->" + ev.GoalState.Label
		if got != w {
			t.Fatalf("event %s, want %s", got, w)
		}
		if ev.Transition != (lifecycle_msgs.Transition{}) || ev.Timestamp != 0 {
			t.Errorf("event %v: rcl_lifecycle leaves transition and timestamp empty", ev)
		}
	}
}

func TestClientDrivesNodeThroughLifecycle(t *testing.T) {
	net := ros.NewMemoryNetwork()
	var calls []string
	var mu sync.Mutex
	record := func(name string) lifecycle.Handler {
		return func(ctx context.Context, from lifecycle.State) error {
			mu.Lock()
			calls = append(calls, name+" from "+from.Label)
			mu.Unlock()
			return nil
		}
	}
	lc, c := managed(t, net, lifecycle.OnConfigure(record("configure")), lifecycle.OnActivate(record("activate")),
		lifecycle.OnDeactivate(record("deactivate")), lifecycle.OnCleanup(record("cleanup")),
		lifecycle.OnShutdown(record("shutdown")))
	ev := watch(t, c)
	ctx := testCtx(t)
	// The events subscription is in the graph before anything changes.
	if _, err := lc.Graph().WaitFor(ctx, func(g *ros.GraphSnapshot) bool {
		return len(g.Subscriptions("/managed/transition_event")) > 0
	}); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		t    lifecycle.Transition
		want lifecycle.State
	}{
		{lifecycle.Configure, lifecycle.Inactive},
		{lifecycle.Activate, lifecycle.Active},
		{lifecycle.Deactivate, lifecycle.Inactive},
		{lifecycle.Cleanup, lifecycle.Unconfigured},
		{lifecycle.Transition{ID: 1}, lifecycle.Inactive}, // by id
		{lifecycle.Shutdown, lifecycle.Finalized},
	}
	for _, s := range steps {
		if err := c.ChangeState(ctx, s.t); err != nil {
			t.Fatalf("%v: %v", s.t, err)
		}
		st, err := c.State(ctx)
		if err != nil || st != s.want {
			t.Fatalf("after %v: state %v %v, want %v", s.t, st, err, s.want)
		}
	}
	ev.expect(t, "unconfigured->configuring", "configuring->inactive", "inactive->activating", "activating->active",
		"active->deactivating", "deactivating->inactive", "inactive->cleaningup", "cleaningup->unconfigured",
		"unconfigured->configuring", "configuring->inactive", "inactive->shuttingdown", "shuttingdown->finalized")
	mu.Lock()
	got := strings.Join(calls, ", ")
	mu.Unlock()
	want := "configure from unconfigured, activate from inactive, deactivate from active, cleanup from inactive, configure from unconfigured, shutdown from inactive"
	if got != want {
		t.Errorf("handlers: %s\nwant %s", got, want)
	}
	if lc.State() != lifecycle.Finalized {
		t.Errorf("local state %v", lc.State())
	}
	// Nothing leaves finalized.
	if err := c.ChangeState(ctx, lifecycle.Configure); !errors.Is(err, lifecycle.ErrRejected) {
		t.Errorf("configure from finalized: %v", err)
	}
}

func TestClientQueries(t *testing.T) {
	net := ros.NewMemoryNetwork()
	_, c := managed(t, net)
	ctx := testCtx(t)
	states, err := c.AvailableStates(ctx)
	if err != nil || fmt.Sprint(states) != fmt.Sprint(lifecycle.States()) {
		t.Errorf("states %v %v", states, err)
	}
	av, err := c.AvailableTransitions(ctx)
	if err != nil || fmt.Sprint(av) != fmt.Sprint(lifecycle.AvailableTransitions(lifecycle.Unconfigured)) {
		t.Errorf("available %v %v", av, err)
	}
	g, err := c.TransitionGraph(ctx)
	if err != nil || len(g) != 25 {
		t.Errorf("graph %d %v", len(g), err)
	}
}

func TestInvalidTransition(t *testing.T) {
	net := ros.NewMemoryNetwork()
	lc, c := managed(t, net, lifecycle.OnActivate(func(context.Context, lifecycle.State) error {
		t.Error("activate ran")
		return nil
	}))
	ctx := testCtx(t)
	st, err := lc.Activate(ctx)
	if !errors.Is(err, lifecycle.ErrInvalidTransition) || st != lifecycle.Unconfigured {
		t.Fatalf("activate from unconfigured: %v %v", st, err)
	}
	for _, tr := range []lifecycle.Transition{lifecycle.Activate, {ID: 6}, {ID: 99}, {Label: "fly"}, {ID: 10}, {Label: lifecycle.LabelSuccess}} {
		if err := c.ChangeState(ctx, tr); !errors.Is(err, lifecycle.ErrRejected) {
			t.Errorf("%v from unconfigured: %v", tr, err)
		}
		if _, err := lc.Trigger(ctx, tr); !errors.Is(err, lifecycle.ErrInvalidTransition) {
			t.Errorf("local %v from unconfigured: %v", tr, err)
		}
	}
	if s, _ := c.State(ctx); s != lifecycle.Unconfigured {
		t.Errorf("state %v", s)
	}
}

func TestHandlerFailure(t *testing.T) {
	net := ros.NewMemoryNetwork()
	fail := true
	lc, c := managed(t, net, lifecycle.OnConfigure(func(context.Context, lifecycle.State) error {
		if fail {
			return fmt.Errorf("%w: no camera", lifecycle.ErrFailure)
		}
		return nil
	}))
	ev := watch(t, c)
	ctx := testCtx(t)
	if _, err := lc.Graph().WaitFor(ctx, func(g *ros.GraphSnapshot) bool {
		return len(g.Subscriptions("/managed/transition_event")) > 0
	}); err != nil {
		t.Fatal(err)
	}
	st, err := lc.Configure(ctx)
	if !errors.Is(err, lifecycle.ErrFailure) || !strings.Contains(err.Error(), "no camera") || st != lifecycle.Unconfigured {
		t.Fatalf("failed configure: %v %v", st, err)
	}
	ev.expect(t, "unconfigured->configuring", "configuring->unconfigured")
	fail = false
	if err := c.ChangeState(ctx, lifecycle.Configure); err != nil {
		t.Fatal(err)
	}
	ev.expect(t, "unconfigured->configuring", "configuring->inactive")
}

func TestHandlerErrorAndPanic(t *testing.T) {
	for _, tc := range []struct {
		name      string
		activate  lifecycle.Handler
		onError   lifecycle.Handler
		wantState lifecycle.State
	}{
		{"error", func(context.Context, lifecycle.State) error { return errors.New("driver crashed") }, nil, lifecycle.Unconfigured},
		{"panic", func(context.Context, lifecycle.State) error { panic("driver crashed") }, nil, lifecycle.Unconfigured},
		{"error/onerror-fails", func(context.Context, lifecycle.State) error { return errors.New("driver crashed") },
			func(context.Context, lifecycle.State) error { return lifecycle.ErrFailure }, lifecycle.Finalized},
		{"panic/onerror-panics", func(context.Context, lifecycle.State) error { panic("driver crashed") },
			func(context.Context, lifecycle.State) error { panic("again") }, lifecycle.Finalized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			net := ros.NewMemoryNetwork()
			opts := []lifecycle.Option{lifecycle.OnActivate(tc.activate)}
			var errFrom lifecycle.State
			if tc.onError != nil {
				opts = append(opts, lifecycle.OnError(func(ctx context.Context, from lifecycle.State) error {
					errFrom = from
					return tc.onError(ctx, from)
				}))
			}
			lc, c := managed(t, net, opts...)
			ctx := testCtx(t)
			if _, err := lc.Configure(ctx); err != nil {
				t.Fatal(err)
			}
			local := lc.Events().Listener(ctx, afor.Fresh(), afor.QueueSize(0))
			st, err := lc.Activate(ctx)
			if !errors.Is(err, lifecycle.ErrHandler) || !strings.Contains(err.Error(), "driver crashed") || st != tc.wantState {
				t.Fatalf("activate: %v %v", st, err)
			}
			if tc.onError != nil && errFrom != lifecycle.Inactive {
				t.Errorf("on error called from %v", errFrom)
			}
			want := []string{"inactive -> activating (activate)", "activating -> errorprocessing (transition_error)",
				"errorprocessing -> " + tc.wantState.Label}
			for i, w := range want {
				e, err := local.Next(ctx)
				if err != nil || !strings.HasPrefix(e.String(), w) {
					t.Fatalf("event %d: %v %v, want %s", i, e, err, w)
				}
			}
			// The node still answers, from where error processing left it.
			if s, err := c.State(ctx); err != nil || s != tc.wantState {
				t.Errorf("remote state %v %v", s, err)
			}
		})
	}
}

// A long activation: the other services answer meanwhile, other triggers
// are refused, and a caller can wait for its end.
func TestLongActivation(t *testing.T) {
	net := ros.NewMemoryNetwork()
	started := make(chan struct{})
	release := make(chan struct{})
	lc, c := managed(t, net, lifecycle.OnActivate(func(ctx context.Context, _ lifecycle.State) error {
		close(started)
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}))
	ctx := testCtx(t)
	if err := c.ChangeState(ctx, lifecycle.Configure); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.ChangeState(ctx, lifecycle.Activate) }()
	<-started
	if s, err := c.State(ctx); err != nil || s != lifecycle.Activating {
		t.Errorf("state during activation: %v %v", s, err)
	}
	if av, err := c.AvailableTransitions(ctx); err != nil || len(av) != 3 || av[0].Transition.Label != lifecycle.LabelSuccess {
		t.Errorf("available during activation: %v %v", av, err)
	}
	if _, err := lc.Deactivate(ctx); !errors.Is(err, lifecycle.ErrInvalidTransition) {
		t.Errorf("deactivate during activation: %v", err)
	}
	if _, err := lc.Trigger(ctx, lifecycle.Transition{Label: lifecycle.LabelSuccess}); !errors.Is(err, lifecycle.ErrInvalidTransition) {
		t.Errorf("transition_success during activation: %v", err)
	}
	waited := make(chan error, 1)
	go func() { waited <- lc.WaitForState(ctx, lifecycle.Active) }()
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := <-waited; err != nil {
		t.Fatal(err)
	}
	if err := lc.WaitForState(ctx, lifecycle.Active); err != nil { // at once
		t.Fatal(err)
	}
}

// A handler's ctx ends with the trigger's ctx (an error: error
// processing) and when the node closes.
func TestHandlerContext(t *testing.T) {
	net := ros.NewMemoryNetwork()
	started := make(chan struct{}, 1)
	lc, _ := managed(t, net, lifecycle.OnConfigure(func(ctx context.Context, _ lifecycle.State) error {
		started <- struct{}{}
		<-ctx.Done()
		return ctx.Err()
	}))
	ctx, cancel := context.WithCancel(testCtx(t))
	go func() { <-started; cancel() }()
	st, err := lc.Configure(ctx)
	if !errors.Is(err, lifecycle.ErrHandler) || !errors.Is(err, context.Canceled) || st != lifecycle.Unconfigured {
		t.Fatalf("configure with a cancelled ctx: %v %v", st, err)
	}
	// Close ends a running handler.
	done := make(chan error, 1)
	go func() { _, err := lc.Configure(testCtx(t)); done <- err }()
	<-started
	if err := lc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("configure cut by Close: %v", err)
	}
	if _, err := lc.Configure(testCtx(t)); !errors.Is(err, ros.ErrClosed) {
		t.Errorf("configure after Close: %v", err)
	}
	if err := lc.WaitForState(testCtx(t), lifecycle.Active); !errors.Is(err, ros.ErrClosed) {
		t.Errorf("wait after Close: %v", err)
	}
}

// syncBuffer is a concurrency-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestPublisherOnlyWhileActive(t *testing.T) {
	net := ros.NewMemoryNetwork()
	var logs syncBuffer
	node := memNode(t, net, "talker", ros.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))), ros.WithRosout(false))
	lc, err := lifecycle.Manage(node)
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close()
	pub, err := lifecycle.NewPublisher[std_msgs.String](lc, "chatter", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := ros.Subscribe[std_msgs.String](memNode(t, net, "listener"), "/chatter", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	if err := pub.WaitForSubscriptions(ctx, 1); err != nil {
		t.Fatal(err)
	}
	heard := sub.Listener(ctx, afor.QueueSize(0))
	publish := func(s string) {
		t.Helper()
		if err := pub.Publish(ctx, &std_msgs.String{Data: s}); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(s string) {
		t.Helper()
		m, err := heard.Next(ctx)
		if err != nil || m.Data != s {
			t.Fatalf("heard %q %v, want %q", m.Data, err, s)
		}
	}
	publish("unconfigured 1")
	publish("unconfigured 2")
	if _, err := lc.Configure(ctx); err != nil {
		t.Fatal(err)
	}
	publish("inactive")
	if pub.IsActivated() {
		t.Error("activated while inactive")
	}
	if _, err := lc.Activate(ctx); err != nil {
		t.Fatal(err)
	}
	publish("active 1")
	expect("active 1") // nothing published before came through
	if _, err := lc.Deactivate(ctx); err != nil {
		t.Fatal(err)
	}
	publish("inactive again")
	publish("inactive again 2")
	if _, err := lc.Activate(ctx); err != nil {
		t.Fatal(err)
	}
	publish("active 2")
	expect("active 2")
	warning := "Trying to publish message on the topic '/chatter', but the publisher is not activated"
	if n := strings.Count(logs.String(), warning); n != 2 { // once per inactive period
		t.Errorf("%d warnings, want 2:\n%s", n, logs.String())
	}
}

func TestManageClosedNode(t *testing.T) {
	net := ros.NewMemoryNetwork()
	n := memNode(t, net, "gone")
	_ = n.Close()
	if _, err := lifecycle.Manage(n); !errors.Is(err, ros.ErrClosed) {
		t.Errorf("Manage of a closed node: %v", err)
	}
}

// Closing the ros node under the managed node ends it too.
func TestRosNodeClosedUnder(t *testing.T) {
	net := ros.NewMemoryNetwork()
	n := memNode(t, net, "under")
	lc, err := lifecycle.Manage(n)
	if err != nil {
		t.Fatal(err)
	}
	_ = n.Close()
	if err := lc.WaitForState(testCtx(t), lifecycle.Active); !errors.Is(err, ros.ErrClosed) {
		t.Errorf("wait: %v", err)
	}
	if _, err := lc.Configure(testCtx(t)); !errors.Is(err, ros.ErrClosed) {
		t.Errorf("configure: %v", err)
	}
	if err := lc.Close(); err != nil {
		t.Error(err)
	}
}
