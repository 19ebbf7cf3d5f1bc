package ros

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/afor-go/afor"
)

// pyEvent is a line of testdata/rclpy_params.py.
type pyEvent map[string]any

func (e pyEvent) str(k string) string { s, _ := e[k].(string); return s }

// pyParams runs testdata/rclpy_params.py.
type pyParams struct {
	t       *testing.T
	ctx     context.Context
	stdin   io.WriteCloser
	events  chan pyEvent
	backlog []pyEvent // events next passed over
	exited  chan struct{}
}

func startPyParams(t *testing.T, ctx context.Context, p rclpyPeer, c *Context) *pyParams {
	cmd := exec.Command(p.launcher, filepath.Join("testdata", "rclpy_params.py"))
	cmd.Env = append(os.Environ(), p.env...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	py := &pyParams{t: t, ctx: ctx, stdin: stdin, events: make(chan pyEvent, 1024), exited: make(chan struct{})}
	go func() {
		defer close(py.exited)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var ev pyEvent
			if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.str("ev") != "" {
				select {
				case py.events <- ev:
				default: // the test stopped reading
				}
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		select {
		case <-py.exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-py.exited
		}
		_ = cmd.Wait()
	})
	py.next("ready", nil)
	return py
}

func (py *pyParams) send(cmd map[string]any) {
	py.t.Helper()
	b, _ := json.Marshal(cmd)
	if _, err := py.stdin.Write(append(b, '\n')); err != nil {
		py.t.Fatal(err)
	}
}

// next returns the next event named ev that match accepts (nil: any);
// an "error" event fails the test. Events it passes over are kept for
// later calls: a /parameter_events message may overtake the reply to the
// set that caused it.
func (py *pyParams) next(ev string, match func(pyEvent) bool) pyEvent {
	py.t.Helper()
	want := func(e pyEvent) bool { return e.str("ev") == ev && (match == nil || match(e)) }
	for i, e := range py.backlog {
		if want(e) {
			py.backlog = slices.Delete(py.backlog, i, i+1)
			return e
		}
	}
	for {
		select {
		case e := <-py.events:
			if e.str("ev") == "error" {
				py.t.Fatalf("rclpy: %v", e)
			}
			if want(e) {
				return e
			}
			py.backlog = append(py.backlog, e)
		case <-py.exited:
			py.t.Fatalf("the rclpy node exited waiting for %q", ev)
		case <-py.ctx.Done():
			py.t.Fatalf("no %q from the rclpy node", ev)
		}
	}
}

func (py *pyParams) call(cmd map[string]any) pyEvent {
	py.t.Helper()
	py.send(cmd)
	return py.next(cmd["op"].(string), nil)
}

// TestInteropRclpyParameters: rclpy's parameter clients list, get, set
// (accepted and rejected) and describe a Go node's parameters and receive
// its /parameter_events; the Go client does the same to an rclpy node; a
// Go log record reaches an rclpy /rosout subscription; a Go rate on sim
// time ticks by the /clock rclpy publishes; on each middleware rclpy runs
// on.
func TestInteropRclpyParameters(t *testing.T) {
	forEachRclpyMiddleware(t, []string{"rcl_interfaces.msg", "rosgraph_msgs.msg"}, testInteropRclpyParameters)
}

func testInteropRclpyParameters(t *testing.T, peer rclpyPeer) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := Open(ctx, WithMiddleware(peer.mw), WithDomainID(peer.domain), WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n := mustNode(t, c, "go_params")
	if _, err := n.DeclareParameter("speed", 1.0, ParamFloatRange(0, 10, 0), ParamDescription("m/s")); err != nil {
		t.Fatal(err)
	}
	if _, err := n.DeclareParameter("mode", "auto"); err != nil {
		t.Fatal(err)
	}
	if _, err := n.DeclareParameter("ro", int64(3), ParamReadOnly()); err != nil {
		t.Fatal(err)
	}
	n.OnSetParameters(func(ps []Parameter) error {
		for _, p := range ps {
			if p.Name == "mode" && p.Value == "bad" {
				return errorString("mode bad is not allowed")
			}
		}
		return nil
	})
	py := startPyParams(t, ctx, peer, c)

	// rclpy → Go.
	if ev := py.call(map[string]any{"op": "wait_service", "node": "/go_params"}); ev["ok"] != true {
		t.Fatalf("rclpy does not see /go_params' parameter services: %v", ev)
	}
	list := py.call(map[string]any{"op": "list", "node": "/go_params", "prefixes": []string{}, "depth": 0})
	for _, want := range []string{"speed", "mode", "ro", "use_sim_time"} {
		if !slices.Contains(anyStrings(list["names"]), want) {
			t.Errorf("rclpy lists %v, without %q", list["names"], want)
		}
	}
	get := py.call(map[string]any{"op": "get", "node": "/go_params", "names": []string{"speed", "mode"}})
	if b, _ := json.Marshal(get["values"]); string(b) != `[{"type":3,"value":1},{"type":4,"value":"auto"}]` {
		t.Errorf("rclpy gets %s", b)
	}
	set := py.call(map[string]any{"op": "set", "node": "/go_params", "params": []map[string]any{
		{"name": "speed", "type": 3, "value": 2.5},
		{"name": "mode", "type": 4, "value": "bad"},
		{"name": "ro", "type": 2, "value": 1},
	}})
	if b, _ := json.Marshal(set["results"]); string(b) != `[{"reason":"","successful":true},{"reason":"mode bad is not allowed","successful":false},{"reason":"Trying to set a read-only parameter: ro.","successful":false}]` {
		t.Errorf("rclpy sets: %s", b)
	}
	desc := py.call(map[string]any{"op": "describe", "node": "/go_params", "names": []string{"speed"}})
	if b, _ := json.Marshal(desc["descriptors"]); !strings.Contains(string(b), `"floating_point_range":[[0,10,0]]`) || !strings.Contains(string(b), `"description":"m/s"`) {
		t.Errorf("rclpy describes: %s", b)
	}
	py.next("param_event", func(e pyEvent) bool {
		b, _ := json.Marshal(e["changed"])
		return e.str("node") == "/go_params" && string(b) == `[["speed",3,2.5]]`
	})
	// An undeclared name among declared ones: the Go node answers as the
	// rclpy node does for itself (no values at all, so that `ros2 param
	// get` fails; rclpy's reason for a set).
	for _, q := range []struct {
		cmd   map[string]any
		field string
	}{
		{map[string]any{"op": "get", "names": []string{"speed", "nosuch"}}, "values"},
		{map[string]any{"op": "types", "names": []string{"speed", "nosuch"}}, "types"},
		{map[string]any{"op": "describe", "names": []string{"nosuch", "speed"}}, "descriptors"},
		{map[string]any{"op": "set", "params": []map[string]any{{"name": "nosuch", "type": 2, "value": 1}}}, "results"},
		{map[string]any{"op": "set_atomically", "params": []map[string]any{{"name": "speed", "type": 3, "value": 1.5}, {"name": "nosuch", "type": 2, "value": 1}}}, "reason"},
	} {
		answer := func(node string) string {
			q.cmd["node"] = node
			b, _ := json.Marshal(py.call(q.cmd)[q.field])
			return string(b)
		}
		goAns, pyAns := answer("/go_params"), answer("/py_params")
		if goAns != pyAns {
			t.Errorf("%s with an undeclared name: the Go node answers %s, rclpy %s", q.cmd["op"], goAns, pyAns)
		}
	}

	// Go → rclpy.
	pc, err := NewParameterClient(n, "/py_params")
	if err != nil {
		t.Fatal(err)
	}
	if err := pc.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	names, _, err := pc.List(ctx, nil, 0)
	if err != nil || !slices.Contains(names, "speed") || !slices.Contains(names, "ro_param") {
		t.Errorf("List = %v, %v", names, err)
	}
	vals, err := pc.Get(ctx, "speed", "name", "flags")
	if err != nil || vals[0] != 1.0 || vals[1] != "py" || !slices.Equal(vals[2].([]bool), []bool{true, false}) {
		t.Errorf("Get = %v, %v", vals, err)
	}
	results, err := pc.Set(ctx, Parameter{"speed", 3.0}, Parameter{"speed", 7.0}, Parameter{"ro_param", int64(1)})
	if err != nil || results[0] != nil || results[1] == nil || !strings.HasSuffix(results[1].Error(), "too fast") || results[2] == nil {
		t.Errorf("Set = %v, %v", results, err)
	}
	descs, err := pc.Describe(ctx, "speed")
	if err != nil || len(descs) != 1 || descs[0].Description != "meters per second" {
		t.Errorf("Describe = %+v, %v", descs, err)
	}

	// rosout.
	n.Logger().Warn("hello from go", "n", 1)
	rec := py.next("rosout", func(e pyEvent) bool { return e.str("msg") == "hello from go n=1" })
	if rec["level"] != 30.0 || rec.str("name") != "go_params" || !strings.Contains(rec.str("function"), "testInteropRclpyParameters") {
		t.Errorf("rosout record %v", rec)
	}

	// Sim time.
	sim := mustNode(t, c, "go_sim", WithArgs([]string{"--ros-args", "-p", "use_sim_time:=true"}))
	clock := sim.Clock()
	simTo := func(sec, nsec int64) {
		t.Helper()
		at := time.Unix(sec, nsec)
		for !clock.Now().Equal(at) { // best effort: publish until it arrives
			py.call(map[string]any{"op": "clock", "sec": sec, "nanosec": nsec})
			short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
			_ = clock.SleepUntil(short, at)
			cancel()
			if ctx.Err() != nil {
				t.Fatalf("sim time never reached %v", at)
			}
		}
	}
	simTo(100, 0)
	rate, err := clock.NewRate(10)
	if err != nil {
		t.Fatal(err)
	}
	defer rate.Close()
	ticks := rate.Listener(ctx, afor.QueueSize(0))
	simTo(100, 350e6)
	for _, want := range []int64{100e6, 200e6, 300e6} {
		tick, err := ticks.Next(ctx)
		if err != nil || !tick.Equal(time.Unix(100, want)) {
			t.Fatalf("tick %v, %v; want 100 s + %v ns", tick.Sub(simAt(0)), err, want)
		}
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

func anyStrings(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, x := range l {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}
