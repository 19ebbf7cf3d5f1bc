package ros

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/msgs/rcl_interfaces"
)

// memPair opens two contexts on one in-memory network.
func memPair(t testing.TB) (*Context, *Context) {
	t.Helper()
	net := NewMemoryNetwork()
	open := func() *Context {
		c, err := Open(context.Background(), WithMiddleware(Memory(net)), WithLogger(slog.New(slog.DiscardHandler)))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	return open(), open()
}

func paramCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// The parameter suite runs on every middleware.
func TestParametersMemory(t *testing.T) {
	a, b := memPair(t)
	parameterSuite(t, a, b)
}

func TestParametersZenoh(t *testing.T) {
	a, b := zenohPair(t)
	parameterSuite(t, a, b)
}

func mustNode(t *testing.T, c *Context, name string, opts ...Option) *Node {
	t.Helper()
	n, err := c.NewNode(name, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	return n
}

// parameterSuite checks the parameter services of a node on ca from a
// client node on cb, against rcl_interfaces' rules, and the events.
func parameterSuite(t *testing.T, ca, cb *Context) {
	ctx := paramCtx(t)
	watcher := mustNode(t, cb, "watcher")
	events, err := Subscribe[rcl_interfaces.ParameterEvent](watcher, "/parameter_events", QoSParameterEvents)
	if err != nil {
		t.Fatal(err)
	}
	evs := events.Listener(ctx, afor.QueueSize(0))
	// The graph must show the subscription before the server node
	// publishes, or its first events are not delivered.
	srv := mustNode(t, ca, "server", WithNamespace("/ns"))
	waitSubscribed(t, ctx, srv, "/parameter_events")

	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(srv.DeclareParameter("a.b.c", int64(1)))
	must(srv.DeclareParameter("a.b", "x", ParamDescription("the b")))
	must(srv.DeclareParameter("a.d", 2.5, ParamFloatRange(0, 10, 0.5)))
	must(srv.DeclareParameter("ro", true, ParamReadOnly()))
	must(srv.DeclareParameter("lim", int64(4), ParamIntegerRange(0, 10, 2)))
	must(srv.DeclareParameter("dyn", []string{"p", "q"}, ParamDynamicTyping()))
	must(srv.DeclareParameter("bytes", []byte{1, 2}))
	srv.OnSetParameters(func(ps []Parameter) error {
		for _, p := range ps {
			if p.Name == "a.b" && p.Value == "forbidden" {
				return errors.New("b may not be forbidden")
			}
		}
		return nil
	})

	cli := mustNode(t, cb, "client")
	pc, err := NewParameterClient(cli, "/ns/server")
	if err != nil {
		t.Fatal(err)
	}
	if err := pc.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}

	// list_parameters: no prefixes, any depth.
	names, prefixes, err := pc.List(ctx, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	all := []string{"a.b", "a.b.c", "a.d", "bytes", "dyn", "lim", "ro", "start_type_description_service", "use_sim_time"}
	if !slices.Equal(names, all) || !slices.Equal(prefixes, []string{"a", "a.b"}) {
		t.Errorf("List(nil, 0) = %v, %v", names, prefixes)
	}
	// Depth 1: names without dots.
	if names, _, _ := pc.List(ctx, nil, 1); !slices.Equal(names, []string{"bytes", "dyn", "lim", "ro", "start_type_description_service", "use_sim_time"}) {
		t.Errorf("List(nil, 1) = %v", names)
	}
	// Prefix "a", depth 1: a.b and a.d but not a.b.c.
	if names, prefixes, _ := pc.List(ctx, []string{"a"}, 1); !slices.Equal(names, []string{"a.b", "a.d"}) || !slices.Equal(prefixes, []string{"a"}) {
		t.Errorf("List([a], 1) = %v, %v", names, prefixes)
	}
	if names, _, _ := pc.List(ctx, []string{"a.b"}, 0); !slices.Equal(names, []string{"a.b", "a.b.c"}) {
		t.Errorf("List([a.b], 0) = %v", names)
	}
	if names, _, _ := pc.List(ctx, []string{"zzz"}, 0); len(names) != 0 {
		t.Errorf("List([zzz]) = %v", names)
	}

	// get_parameters, get_parameter_types and describe_parameters: no
	// answer at all when a name is unknown, as rclpy.
	if _, err := pc.Get(ctx, "a.b.c", "nope"); !errors.Is(err, ErrParameterNotDeclared) {
		t.Errorf("Get with an unknown name: %v", err)
	}
	if _, err := pc.Types(ctx, "nope", "a.d"); !errors.Is(err, ErrParameterNotDeclared) {
		t.Errorf("Types with an unknown name: %v", err)
	}
	if _, err := pc.Describe(ctx, "a.b", "nope"); !errors.Is(err, ErrParameterNotDeclared) {
		t.Errorf("Describe with an unknown name: %v", err)
	}
	vals, err := pc.Get(ctx, "a.b.c", "dyn", "bytes")
	if err != nil {
		t.Fatal(err)
	}
	if vals[0] != int64(1) || !slices.Equal(vals[1].([]string), []string{"p", "q"}) || !slices.Equal(vals[2].([]byte), []byte{1, 2}) {
		t.Errorf("Get = %#v", vals)
	}
	types, err := pc.Types(ctx, "a.d", "ro")
	if err != nil || !slices.Equal(types, []ParameterType{ParameterDouble, ParameterBool}) {
		t.Errorf("Types = %v, %v", types, err)
	}
	descs, err := pc.Describe(ctx, "a.b", "lim", "lim")
	if err != nil || len(descs) != 3 {
		t.Fatalf("Describe = %v, %v", descs, err)
	}
	if d := descs[0]; d.Name != "a.b" || d.Type != uint8(ParameterString) || d.Description != "the b" {
		t.Errorf("Describe(a.b) = %+v", d)
	}
	if d := descs[2]; len(d.IntegerRange) != 1 || d.IntegerRange[0] != (rcl_interfaces.IntegerRange{FromValue: 0, ToValue: 10, Step: 2}) {
		t.Errorf("Describe(lim) = %+v", d)
	}

	// set_parameters: each on its own.
	results, err := pc.Set(ctx,
		Parameter{"a.b.c", int64(7)},         // ok
		Parameter{"ro", false},               // read-only
		Parameter{"a.b.c", "str"},            // wrong type
		Parameter{"lim", int64(5)},           // off the step
		Parameter{"lim", int64(12)},          // out of range
		Parameter{"lim", int64(10)},          // the end is allowed
		Parameter{"a.d", 3.5},                // on the step
		Parameter{"a.d", 3.7},                // off the step
		Parameter{"a.b", "forbidden"},        // the callback refuses
		Parameter{"undeclared", int64(1)},    // not declared
		Parameter{"dyn", int64(3)},           // dynamic typing: ok
		Parameter{"a.b.c", nil},              // static: cannot undeclare
		Parameter{"a.d", math.NaN()},         // NaN is out of range
		Parameter{"bytes", []byte{9, 9, 9}},  // ok
		Parameter{"use_sim_time", int64(1)},  // wrong type
		Parameter{"dyn", nil},                // undeclares
		Parameter{"lim", int64(0)},           // the start is allowed
		Parameter{"a.b", "fine"},             // ok
		Parameter{"dyn", int64(1)},           // undeclared now
		Parameter{"a.b.c", []int64{1, 2, 3}}, // wrong type
	)
	if err != nil {
		t.Fatal(err)
	}
	wantOK := []bool{true, false, false, false, false, true, true, false, false, false, true, false, false, true, false, true, true, true, false, false}
	for i, r := range results {
		if (r == nil) != wantOK[i] {
			t.Errorf("Set result %d = %v, want ok=%v", i, r, wantOK[i])
		}
		if r != nil && !errors.Is(r, ErrParameterRejected) {
			t.Errorf("Set result %d = %v, not ErrParameterRejected", i, r)
		}
	}
	for i, want := range map[int]string{
		1:  "Trying to set a read-only parameter: ro.",
		2:  "Wrong parameter type, expected '2' got '4'",
		3:  "The parameter value for lim is not a valid step. Min: 0, max: 10, value: 5, step: 2",
		4:  "Parameter lim out of range. Min: 0, Max: 10, value: 12",
		7:  "The parameter value for a.d is not close enough to a valid step. Min: 0.0, max: 10.0, value: 3.7, step: 0.5",
		8:  "b may not be forbidden",
		9:  "Invalid access to undeclared parameter(s): []", // rclpy's, word for word
		11: "Static parameter cannot be undeclared",
		12: "Parameter a.d out of range Min: 0.0, Max: 10.0, value: nan",
	} {
		if results[i] == nil || !strings.HasSuffix(results[i].Error(), ": "+want) {
			t.Errorf("Set result %d = %v, want reason %q", i, results[i], want)
		}
	}
	if v, _ := GetParameter[int64](srv, "lim"); v != 0 {
		t.Errorf("lim = %v, want 0", v)
	}
	if srv.HasParameter("dyn") {
		t.Error("dyn is still declared")
	}

	// set_parameters_atomically: all or nothing.
	if err := pc.SetAtomically(ctx, Parameter{"a.b.c", int64(100)}, Parameter{"ro", false}); !errors.Is(err, ErrParameterRejected) {
		t.Errorf("SetAtomically with a read-only one = %v", err)
	}
	if v, _ := GetParameter[int64](srv, "a.b.c"); v != 7 {
		t.Errorf("a.b.c = %v after a refused atomic set, want 7", v)
	}
	if err := pc.SetAtomically(ctx, Parameter{"a.b.c", int64(100)}, Parameter{"a.b", "y"}); err != nil {
		t.Errorf("SetAtomically = %v", err)
	}
	if v, _ := GetParameter[string](srv, "a.b"); v != "y" {
		t.Errorf("a.b = %q", v)
	}

	// /parameter_events: the declarations, then the accepted changes, in
	// order (the declarations of use_sim_time and
	// start_type_description_service may come before the subscription
	// matched, so they are not expected).
	want := []string{
		"new a.b.c", "new a.b", "new a.d", "new ro", "new lim", "new dyn", "new bytes",
		"changed a.b.c=7", "changed lim=10", "changed a.d=3.5", "changed dyn=3", "changed bytes=[9 9 9]",
		"deleted dyn", "changed lim=0", "changed a.b=fine", "changed a.b.c=100 changed a.b=y",
	}
	var got []string
	for len(got) < len(want) {
		ev, err := evs.Next(ctx)
		if err != nil {
			t.Fatalf("events: %v after %q", err, got)
		}
		if ev.Node != "/ns/server" {
			continue // the other nodes' use_sim_time
		}
		if ev.Stamp.Sec == 0 {
			t.Errorf("event without a stamp: %+v", ev)
		}
		var parts []string
		for _, p := range ev.NewParameters {
			parts = append(parts, "new "+p.Name)
		}
		for _, p := range ev.ChangedParameters {
			parts = append(parts, fmt.Sprintf("changed %s=%v", p.Name, ParameterValueToGo(p.Value)))
		}
		for _, p := range ev.DeletedParameters {
			parts = append(parts, "deleted "+p.Name)
		}
		if s := strings.Join(parts, " "); s != "new use_sim_time" && s != "new start_type_description_service" {
			got = append(got, s)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("events\n got %q\nwant %q", got, want)
	}
}

// waitSubscribed waits until n sees a subscription to topic in the graph.
func waitSubscribed(t *testing.T, ctx context.Context, n *Node, topic string) {
	t.Helper()
	if _, err := n.Graph().WaitFor(ctx, func(g *GraphSnapshot) bool { return len(g.Subscriptions(topic)) > 0 }); err != nil {
		t.Fatalf("no subscription to %s in the graph: %v", topic, err)
	}
}

func TestPyFloat(t *testing.T) {
	for f, want := range map[float64]string{0: "0.0", 10: "10.0", 0.25: "0.25", -3.5: "-3.5", 1e6: "1000000.0", 1e16: "1e+16", 1e-5: "1e-05", math.Inf(-1): "-inf"} {
		if got := pyFloat(f); got != want {
			t.Errorf("pyFloat(%v) = %q, want %q", f, got, want)
		}
	}
}
