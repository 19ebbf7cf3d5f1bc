package ros

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/afor-go/afor/ros/msgs/test_msgs"
)

// pyAction is an rclpy script of testdata (rclpy_action.py in a role,
// rclpy_qos.py...) driven by JSON lines: commands in, events out.
type pyAction struct {
	t      *testing.T
	stdin  io.WriteCloser
	events chan map[string]any
}

func startPyAction(t *testing.T, peer rclpyPeer, role string) (*Context, *pyAction) {
	c, err := Open(actionCtx(t), WithMiddleware(peer.mw), WithDomainID(peer.domain), WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	peer.env = append(slices.Clone(peer.env), "AFOR_ACTION_TYPE=test_msgs.action.Fibonacci")
	return c, startPyScript(t, peer, "rclpy_action.py", role)
}

// startPyScript runs testdata/<script> with args on peer's rclpy, its JSON
// lines as events (see pyAction), until the test ends.
func startPyScript(t *testing.T, peer rclpyPeer, script string, args ...string) *pyAction {
	t.Helper()
	cmd := exec.Command(peer.launcher, append([]string{filepath.Join("testdata", script)}, args...)...)
	cmd.Env = append(os.Environ(), peer.env...)
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
	p := &pyAction{t: t, stdin: stdin, events: make(chan map[string]any, 256)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(p.events)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var ev map[string]any
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				p.events <- ev
			}
		}
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		timer := time.AfterFunc(10*time.Second, func() { _ = cmd.Process.Kill() })
		defer timer.Stop()
		<-done
		_ = cmd.Wait()
	})
	p.next("ready")
	return p
}

// next returns the next event named ev, failing on an error event.
func (p *pyAction) next(ev string) map[string]any {
	p.t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case e, ok := <-p.events:
			if !ok {
				p.t.Fatalf("rclpy_action.py ended before %q", ev)
			}
			if e["ev"] == "error" {
				p.t.Fatalf("rclpy_action.py: %v", e["error"])
			}
			if e["ev"] == ev {
				return e
			}
		case <-timeout:
			p.t.Fatalf("no %q from rclpy_action.py", ev)
		}
	}
}

func (p *pyAction) send(cmd map[string]any) {
	b, _ := json.Marshal(cmd)
	if _, err := p.stdin.Write(append(b, '\n')); err != nil {
		p.t.Fatal(err)
	}
}

// TestActionInteropGoServerRclpyClient: an rclpy ActionClient drives a Go
// action server: a goal with feedback and result, a rejected goal, a
// cancel mid-goal; on each middleware rclpy runs on.
func TestActionInteropGoServerRclpyClient(t *testing.T) {
	forEachRclpyMiddleware(t, []string{"test_msgs.action"}, testActionInteropGoServerRclpyClient)
}

func testActionInteropGoServerRclpyClient(t *testing.T, peer rclpyPeer) {
	c, py := startPyAction(t, peer, "client")
	n := newTestNode(t, c, "go_action_server")
	srv, err := NewActionServer(n, "fibonacci", test_msgs.Fibonacci{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := actionCtx(t)
	// One step every 20 ms, so that the cancel below lands mid-goal.
	step := make(chan struct{})
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	go func() {
		for {
			select {
			case <-tick.C:
				select {
				case step <- struct{}{}:
				case <-ctx.Done():
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	defer serveTestFibonacci(ctx, srv, step)()
	defer srv.Close()

	py.send(map[string]any{"op": "wait_server"})
	if ev := py.next("wait_server"); ev["ok"] != true {
		t.Fatal("rclpy does not see the Go action server")
	}
	py.send(map[string]any{"op": "goal", "order": 5})
	ev := py.next("result")
	if ev["accepted"] != true || ev["status"] != float64(StatusSucceeded) || !jsonInts(ev["sequence"], 0, 1, 1, 2, 3, 5) {
		t.Fatalf("goal: %v", ev)
	}
	if fb, _ := ev["feedback"].([]any); len(fb) == 0 {
		t.Errorf("no feedback reached rclpy: %v", ev)
	}
	py.send(map[string]any{"op": "goal", "order": -1})
	if ev := py.next("result"); ev["accepted"] != false {
		t.Fatalf("rejected goal: %v", ev)
	}
	py.send(map[string]any{"op": "goal", "order": 40, "cancel_after": 2})
	ev = py.next("result")
	if ev["accepted"] != true || ev["cancel_code"] != float64(0) || ev["status"] != float64(StatusCanceled) {
		t.Fatalf("canceled goal: %v", ev)
	}
}

// TestActionInteropRclpyServerGoClient: a Go action client drives an
// rclpy ActionServer, the same three cases, on each middleware rclpy runs
// on.
func TestActionInteropRclpyServerGoClient(t *testing.T) {
	forEachRclpyMiddleware(t, []string{"test_msgs.action"}, testActionInteropRclpyServerGoClient)
}

func testActionInteropRclpyServerGoClient(t *testing.T, peer rclpyPeer) {
	c, py := startPyAction(t, peer, "server")
	n := newTestNode(t, c, "go_action_client")
	cl, err := NewActionClient(n, "fibonacci", test_msgs.Fibonacci{})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := actionCtx(t)
	if err := cl.WaitForServer(ctx); err != nil {
		t.Fatal(err)
	}
	h, err := cl.SendGoal(ctx, test_msgs.FibonacciGoal{Order: 5})
	if err != nil {
		t.Fatal(err)
	}
	var feedback int
	for range h.Feedback().ListenReliable(ctx) {
		feedback++
	}
	st, res, err := h.Result(ctx)
	if err != nil || st != StatusSucceeded || !slices.Equal(res.Sequence, []int32{0, 1, 1, 2, 3, 5}) {
		t.Fatalf("Result: %v %v %v", st, res.Sequence, err)
	}
	if feedback == 0 {
		t.Error("no feedback from rclpy")
	}
	if _, err := cl.SendGoal(ctx, test_msgs.FibonacciGoal{Order: -1}); err == nil {
		t.Fatal("rclpy accepted a goal it rejects")
	}
	h, err = cl.SendGoal(ctx, test_msgs.FibonacciGoal{Order: 40})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Feedback().WaitForNext(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	if st, _, err := h.Result(ctx); err != nil || st != StatusCanceled {
		t.Fatalf("canceled goal: %v %v", st, err)
	}
	py.next("done")
}

func jsonInts(v any, want ...int) bool {
	l, _ := v.([]any)
	if len(l) != len(want) {
		return false
	}
	for i, x := range l {
		if x != float64(want[i]) {
			return false
		}
	}
	return true
}

// serveTestFibonacci is serveFibonacci for test_msgs' Fibonacci, the
// action type rclpy knows.
func serveTestFibonacci(ctx context.Context, srv *ActionServer[test_msgs.FibonacciGoal, test_msgs.FibonacciResult, test_msgs.FibonacciFeedback], step <-chan struct{}) func() {
	var wg sync.WaitGroup
	wg.Go(func() {
		for g := range srv.ListenReliable(ctx) {
			if g.Goal.Order < 0 {
				_ = g.Reject()
				continue
			}
			if err := g.Accept(); err != nil {
				continue
			}
			wg.Go(func() {
				gctx := g.Context()
				_ = g.Execute()
				seq := []int32{0, 1}
				for i := 1; i < int(g.Goal.Order); i++ {
					select {
					case <-step:
					case <-gctx.Done():
					}
					if errors.Is(context.Cause(gctx), ErrCancelRequested) {
						_ = g.Canceled(test_msgs.FibonacciResult{Sequence: seq})
						return
					}
					if gctx.Err() != nil {
						return
					}
					seq = append(seq, seq[i]+seq[i-1])
					_ = g.PublishFeedback(context.Background(), test_msgs.FibonacciFeedback{Sequence: slices.Clone(seq)})
				}
				_ = g.Succeed(test_msgs.FibonacciResult{Sequence: seq})
			})
		}
	})
	return wg.Wait
}
