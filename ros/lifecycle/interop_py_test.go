package lifecycle_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/lifecycle"
	"github.com/afor-go/afor/ros/msgs/lifecycle_msgs"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
)

// rclpy (its own service clients, as ros2 lifecycle calls them) drives a
// Go managed node through configure, an activation whose handler errs,
// configure, activate, deactivate, cleanup and shutdown, and sees the
// transition events rcl_lifecycle would publish; the node's lifecycle
// publisher is heard only while it is active.
func TestInteropRclpyDrivesGoNode(t *testing.T) {
	rc, py, env := rclpyContext(t, "lifecycle_msgs", "std_msgs")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	node, err := rc.NewNode("go_managed")
	if err != nil {
		t.Fatal(err)
	}
	var failActivate atomic.Bool
	var mu sync.Mutex
	var handlers []string
	rec := func(name string, h lifecycle.Handler) lifecycle.Handler {
		return func(ctx context.Context, from lifecycle.State) error {
			mu.Lock()
			handlers = append(handlers, name+"<"+from.Label)
			mu.Unlock()
			if h != nil {
				return h(ctx, from)
			}
			return nil
		}
	}
	lc, err := lifecycle.Manage(node,
		lifecycle.OnConfigure(rec("configure", nil)),
		lifecycle.OnActivate(rec("activate", func(context.Context, lifecycle.State) error {
			if failActivate.Load() {
				return errors.New("activation failed on purpose")
			}
			return nil
		})),
		lifecycle.OnDeactivate(rec("deactivate", nil)), lifecycle.OnCleanup(rec("cleanup", nil)),
		lifecycle.OnShutdown(rec("shutdown", nil)), lifecycle.OnError(rec("error", nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close()
	pub, err := lifecycle.NewPublisher[std_msgs.String](lc, "lc_chatter", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	p := startPy(t, ctx, py, env, filepath.Join("testdata", "rclpy_lifecycle.py"), "/go_managed", "/lc_chatter")
	p.next("ready")

	change := func(label string) bool {
		t.Helper()
		return p.call(map[string]any{"cmd": "change", "label": label}, "changed")["success"].(bool)
	}
	// A query first (asked again if its reply is lost to matching still
	// under way): then changes of state are answered.
	p.call(map[string]any{"cmd": "get"}, "state")
	// Warm up until rclpy's subscription hears the events (volatile: what
	// is published before it matched is not for it), then start clean.
	for i := 0; ; i++ {
		if !change("configure") || !change("cleanup") {
			t.Fatal("warm-up transitions failed")
		}
		p.poll()
		if _, ok := p.take("transition"); ok {
			break
		}
		if i == 50 {
			t.Fatal("rclpy hears no transition event")
		}
	}
	for {
		if e := p.next("transition"); e.str("start") == "cleaningup" && e.str("goal") == "unconfigured" {
			break
		}
	}
	mu.Lock()
	handlers = nil
	mu.Unlock()

	if st := p.call(map[string]any{"cmd": "get"}, "state"); st.str("label") != "unconfigured" || st["id"].(float64) != 1 {
		t.Fatalf("get_state: %v", st)
	}
	if av := p.call(map[string]any{"cmd": "available"}, "available"); fmt.Sprint(av["list"]) !=
		"[configure [1] unconfigured->configuring shutdown [5] unconfigured->shuttingdown]" {
		t.Errorf("get_available_transitions: %v", av["list"])
	}
	// An invalid transition: refused, nothing published.
	if change("activate") {
		t.Error("activate from unconfigured succeeded")
	}
	if p.call(map[string]any{"cmd": "change", "id": 6}, "changed")["success"].(bool) {
		t.Error("inactive_shutdown (6) from unconfigured succeeded")
	}
	failActivate.Store(true)
	steps := []struct {
		label string
		ok    bool
	}{{"configure", true}, {"activate", false}, {"configure", true}}
	for _, s := range steps {
		if got := change(s.label); got != s.ok {
			t.Fatalf("%s: success %v, want %v", s.label, got, s.ok)
		}
	}
	failActivate.Store(false)
	// The lifecycle publisher: probe until rclpy hears it while active.
	if !change("activate") {
		t.Fatal("activate failed")
	}
	for i := 0; ; i++ {
		if err := pub.Publish(ctx, &std_msgs.String{Data: "probe"}); err != nil {
			t.Fatal(err)
		}
		p.poll()
		if _, ok := p.take("chatter"); ok {
			break
		}
		if i == 100 {
			t.Fatal("rclpy never heard the active lifecycle publisher")
		}
		time.Sleep(50 * time.Millisecond) // a retry period, not a synchronisation
	}
	if !change("deactivate") {
		t.Fatal("deactivate failed")
	}
	for i := range 3 {
		if err := pub.Publish(ctx, &std_msgs.String{Data: fmt.Sprint("inactive ", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if !change("activate") {
		t.Fatal("activate failed")
	}
	if err := pub.Publish(ctx, &std_msgs.String{Data: "active again"}); err != nil {
		t.Fatal(err)
	}
	// Messages of one writer arrive in order: the inactive ones would come
	// before this one.
	for {
		m := p.next("chatter")
		if d := m.str("data"); d != "probe" {
			if d != "active again" {
				t.Fatalf("rclpy heard %q", d)
			}
			break
		}
	}
	for _, s := range []string{"deactivate", "cleanup", "shutdown"} {
		if !change(s) {
			t.Fatalf("%s failed", s)
		}
	}
	if st := p.call(map[string]any{"cmd": "get"}, "state"); st.str("label") != "finalized" {
		t.Fatalf("get_state: %v", st)
	}
	want := []string{"unconfigured->configuring", "configuring->inactive",
		"inactive->activating", "activating->errorprocessing", "errorprocessing->unconfigured",
		"unconfigured->configuring", "configuring->inactive",
		"inactive->activating", "activating->active", "active->deactivating", "deactivating->inactive",
		"inactive->activating", "activating->active", "active->deactivating", "deactivating->inactive",
		"inactive->cleaningup", "cleaningup->unconfigured", "unconfigured->shuttingdown", "shuttingdown->finalized"}
	for i, w := range want {
		e := p.next("transition")
		if got := e.str("start") + "->" + e.str("goal"); got != w {
			t.Fatalf("event %d: %s, want %s", i, got, w)
		}
		if e["tid"].(float64) != 0 || e.str("tlabel") != "" || e["stamp"].(float64) != 0 {
			t.Errorf("event %d: %v: rcl_lifecycle leaves the transition and stamp empty", i, e)
		}
	}
	wantHandlers := "configure<unconfigured activate<inactive error<inactive configure<unconfigured " +
		"activate<inactive deactivate<active activate<inactive deactivate<active cleanup<inactive shutdown<unconfigured"
	mu.Lock()
	defer mu.Unlock()
	if got := strings.Join(handlers, " "); got != wantHandlers {
		t.Errorf("handlers: %s\nwant      %s", got, wantHandlers)
	}
}

// A Go client drives an rclpy LifecycleNode the same way, an on_configure
// that raises included, and follows its transition events.
func TestInteropGoDrivesRclpyNode(t *testing.T) {
	rc, py, env := rclpyContext(t, "lifecycle_msgs", "std_msgs")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p := startPy(t, ctx, py, env, filepath.Join("testdata", "rclpy_lifecycle.py"), "-", "/unused")
	p.next("ready")
	node, err := rc.NewNode("go_manager")
	if err != nil {
		t.Fatal(err)
	}
	c, err := lifecycle.NewClient(node, "/py_managed")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	events, err := c.Events()
	if err != nil {
		t.Fatal(err)
	}
	defer events.Close()
	l := events.Listener(ctx, afor.QueueSize(0))
	next := func() string {
		t.Helper()
		e, err := l.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return e.StartState.Label + "->" + e.GoalState.Label
	}
	// Warm up until the Go subscription hears rclpy's events.
	for i := 0; ; i++ {
		if err := c.ChangeState(ctx, lifecycle.Configure); err != nil {
			t.Fatal(err)
		}
		if err := c.ChangeState(ctx, lifecycle.Cleanup); err != nil {
			t.Fatal(err)
		}
		if l.Len() > 0 {
			break
		}
		if i == 50 {
			t.Fatal("no transition event from rclpy")
		}
	}
	for next() != "cleaningup->unconfigured" {
	}
	states, err := c.AvailableStates(ctx)
	if err != nil || fmt.Sprint(states) != fmt.Sprint(lifecycle.States()) {
		t.Errorf("available states %v %v", states, err)
	}
	g, err := c.TransitionGraph(ctx)
	if err != nil || fmt.Sprint(g) != fmt.Sprint(lifecycle.Graph()) {
		t.Errorf("transition graph:\n%v %v\nwant\n%v", g, err, lifecycle.Graph())
	}
	if err := c.ChangeState(ctx, lifecycle.Activate); !errors.Is(err, lifecycle.ErrRejected) {
		t.Errorf("activate from unconfigured: %v", err)
	}
	p.call(map[string]any{"cmd": "configure_error", "on": true}, "ok")
	if err := c.ChangeState(ctx, lifecycle.Configure); !errors.Is(err, lifecycle.ErrRejected) {
		t.Errorf("configure that raises: %v", err)
	}
	if s, err := c.State(ctx); err != nil || s != lifecycle.Unconfigured {
		t.Errorf("state after error processing: %v %v", s, err)
	}
	p.call(map[string]any{"cmd": "configure_error", "on": false}, "ok")
	for _, tr := range []lifecycle.Transition{lifecycle.Configure, lifecycle.Activate, lifecycle.Deactivate,
		lifecycle.Cleanup, {ID: lifecycle_msgs.TransitionTransitionConfigure}, lifecycle.Shutdown} {
		if err := c.ChangeState(ctx, tr); err != nil {
			t.Fatalf("%v: %v", tr, err)
		}
	}
	if s, err := c.State(ctx); err != nil || s != lifecycle.Finalized {
		t.Errorf("final state %v %v", s, err)
	}
	want := []string{"unconfigured->configuring", "configuring->errorprocessing", "errorprocessing->unconfigured",
		"unconfigured->configuring", "configuring->inactive", "inactive->activating", "activating->active",
		"active->deactivating", "deactivating->inactive", "inactive->cleaningup", "cleaningup->unconfigured",
		"unconfigured->configuring", "configuring->inactive", "inactive->shuttingdown", "shuttingdown->finalized"}
	for i, w := range want {
		if got := next(); got != w {
			t.Fatalf("event %d: %s, want %s", i, got, w)
		}
	}
}
