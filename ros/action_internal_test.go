package ros

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/msgs/action_msgs"
	"github.com/afor-go/afor/ros/msgs/example_interfaces"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/ros/msgs/unique_identifier_msgs"
)

type (
	fibServer = ActionServer[example_interfaces.FibonacciGoal, example_interfaces.FibonacciResult, example_interfaces.FibonacciFeedback]
	fibClient = ActionClient[example_interfaces.FibonacciGoal, example_interfaces.FibonacciResult, example_interfaces.FibonacciFeedback]
	fibGoal   = ActionGoal[example_interfaces.FibonacciGoal, example_interfaces.FibonacciResult, example_interfaces.FibonacciFeedback]
)

// actionMiddlewares runs a test on the in-memory middleware and, Go to
// Go over loopback, on rmw_zenoh: pair returns the server's and the
// client's nodes, on two contexts.
func actionMiddlewares(t *testing.T, test func(t *testing.T, pair func() (*Node, *Node))) {
	t.Run("memory", func(t *testing.T) {
		test(t, func() (*Node, *Node) {
			net := NewMemoryNetwork()
			quiet := WithLogger(slog.New(slog.DiscardHandler))
			var nodes []*Node
			for _, name := range []string{"fib_server", "fib_client"} {
				c, err := Open(context.Background(), WithMiddleware(Memory(net)), quiet)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = c.Close() })
				nodes = append(nodes, newTestNode(t, c, name))
			}
			return nodes[0], nodes[1]
		})
	})
	t.Run("zenoh", func(t *testing.T) {
		test(t, func() (*Node, *Node) {
			a, b := zenohPair(t)
			return newTestNode(t, a, "fib_server"), newTestNode(t, b, "fib_client")
		})
	})
}

func actionCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// fibPair creates a server and a client of "fibonacci", the client
// waiting for the server.
func fibPair(t *testing.T, pair func() (*Node, *Node), opts ...ActionOption) (*fibServer, *fibClient) {
	t.Helper()
	sn, cn := pair()
	srv, err := NewActionServer(sn, "fibonacci", example_interfaces.Fibonacci{}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	cl, err := NewActionClient(cn, "fibonacci", example_interfaces.Fibonacci{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	if err := cl.WaitForServer(actionCtx(t)); err != nil {
		t.Fatal(err)
	}
	return srv, cl
}

// serveFibonacci accepts every goal of order >= 0 and computes it, one
// feedback per step; step, if not nil, is waited for before each step.
// It returns when the server closes.
func serveFibonacci(ctx context.Context, srv *fibServer, step <-chan struct{}) func() {
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
			wg.Go(func() { runFibonacci(g, step) })
		}
	})
	return wg.Wait
}

func runFibonacci(g *fibGoal, step <-chan struct{}) {
	ctx := g.Context()
	_ = g.Execute()
	seq := []int32{0, 1}
	for i := 1; i < int(g.Goal.Order); i++ {
		if step != nil {
			select {
			case <-step:
			case <-ctx.Done():
			}
		}
		if errors.Is(context.Cause(ctx), ErrCancelRequested) {
			_ = g.Canceled(example_interfaces.FibonacciResult{Sequence: seq})
			return
		}
		if ctx.Err() != nil {
			return
		}
		seq = append(seq, seq[i]+seq[i-1])
		_ = g.PublishFeedback(context.Background(), example_interfaces.FibonacciFeedback{Sequence: slices.Clone(seq)})
	}
	_ = g.Succeed(example_interfaces.FibonacciResult{Sequence: seq})
}

func TestActionGoalFeedbackResult(t *testing.T) {
	actionMiddlewares(t, func(t *testing.T, pair func() (*Node, *Node)) {
		srv, cl := fibPair(t, pair)
		ctx := actionCtx(t)
		step := make(chan struct{})
		defer serveFibonacci(ctx, srv, step)()
		defer srv.Close()

		h, err := cl.SendGoal(ctx, example_interfaces.FibonacciGoal{Order: 5})
		if err != nil {
			t.Fatal(err)
		}
		// One step at a time: each feedback is awaited before the next.
		for i := 2; i <= 5; i++ {
			next := h.Feedback().ArmNext(ctx)
			step <- struct{}{}
			fb, err := next.Wait(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(fb.Sequence) != i+1 {
				t.Fatalf("feedback %v, want %d numbers", fb.Sequence, i+1)
			}
		}
		status, res, err := h.Result(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if status != StatusSucceeded || !slices.Equal(res.Sequence, []int32{0, 1, 1, 2, 3, 5}) {
			t.Fatalf("result %v %v", status, res.Sequence)
		}
		if st, _ := h.Status().Value(); st != StatusSucceeded {
			t.Errorf("status sub ends at %v", st)
		}
		select {
		case <-h.Feedback().Done():
		default:
			t.Error("feedback sub open after the result")
		}
		// The status topic lists the finished goal.
		waitStatus(t, ctx, cl, func(l []ActionGoalStatus) bool {
			return len(l) == 1 && l[0].ID == h.ID() && l[0].Status == StatusSucceeded
		})
	})
}

// waitStatus waits until the client's status sub satisfies cond.
func waitStatus(t *testing.T, ctx context.Context, cl *fibClient, cond func([]ActionGoalStatus) bool) {
	t.Helper()
	var last []ActionGoalStatus
	for l := range cl.Status().Listen(ctx) {
		if cond(l) {
			return
		}
		last = l
	}
	t.Fatalf("status never as expected; last %v (%v)", last, ctx.Err())
}

func TestActionRejected(t *testing.T) {
	actionMiddlewares(t, func(t *testing.T, pair func() (*Node, *Node)) {
		srv, cl := fibPair(t, pair)
		ctx := actionCtx(t)
		defer serveFibonacci(ctx, srv, nil)()
		defer srv.Close()
		_, err := cl.SendGoal(ctx, example_interfaces.FibonacciGoal{Order: -1})
		if !errors.Is(err, ErrGoalRejected) {
			t.Fatalf("SendGoal: %v, want ErrGoalRejected", err)
		}
		// The server still works.
		h, err := cl.SendGoal(ctx, example_interfaces.FibonacciGoal{Order: 3})
		if err != nil {
			t.Fatal(err)
		}
		if st, res, err := h.Result(ctx); err != nil || st != StatusSucceeded || len(res.Sequence) != 4 {
			t.Fatalf("Result: %v %v %v", st, res, err)
		}
	})
}

func TestActionCancel(t *testing.T) {
	actionMiddlewares(t, func(t *testing.T, pair func() (*Node, *Node)) {
		srv, cl := fibPair(t, pair)
		ctx := actionCtx(t)
		step := make(chan struct{})
		defer serveFibonacci(ctx, srv, step)()
		defer srv.Close()

		h, err := cl.SendGoal(ctx, example_interfaces.FibonacciGoal{Order: 10})
		if err != nil {
			t.Fatal(err)
		}
		next := h.Feedback().ArmNext(ctx)
		step <- struct{}{}
		if _, err := next.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		if err := h.Cancel(ctx); err != nil {
			t.Fatal(err)
		}
		st, res, err := h.Result(ctx)
		if err != nil || st != StatusCanceled || len(res.Sequence) != 3 {
			t.Fatalf("Result: %v %v %v, want canceled with 3 numbers", st, res.Sequence, err)
		}
		// Canceling a finished goal: GOAL_TERMINATED.
		err = h.Cancel(ctx)
		if !errors.Is(err, ErrCancelRejected) {
			t.Fatalf("second Cancel: %v, want ErrCancelRejected", err)
		}
		t.Log(err)
	})
}

func TestActionCancelAllAndConcurrentGoals(t *testing.T) {
	actionMiddlewares(t, func(t *testing.T, pair func() (*Node, *Node)) {
		srv, cl := fibPair(t, pair)
		ctx := actionCtx(t)
		step := make(chan struct{}) // never stepped: goals run until canceled
		defer serveFibonacci(ctx, srv, step)()
		defer srv.Close()

		const n = 5
		handles := make([]*GoalHandle[example_interfaces.FibonacciGoal, example_interfaces.FibonacciResult, example_interfaces.FibonacciFeedback], n)
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Go(func() {
				handles[i], errs[i] = cl.SendGoal(ctx, example_interfaces.FibonacciGoal{Order: int32(10 + i)})
			})
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		waitStatus(t, ctx, cl, func(l []ActionGoalStatus) bool {
			return len(l) == n && !slices.ContainsFunc(l, func(s ActionGoalStatus) bool { return s.Status != StatusExecuting })
		})
		ids, err := cl.CancelAll(ctx)
		if err != nil || len(ids) != n {
			t.Fatalf("CancelAll: %v %v", ids, err)
		}
		for _, h := range handles {
			if st, _, err := h.Result(ctx); err != nil || st != StatusCanceled {
				t.Fatalf("Result of %v: %v %v", h.ID(), st, err)
			}
		}
		// Nothing left to cancel.
		if _, err := cl.CancelAll(ctx); !errors.Is(err, ErrCancelRejected) {
			t.Fatalf("CancelAll of nothing: %v", err)
		}
	})
}

func TestActionResultExpiry(t *testing.T) {
	actionMiddlewares(t, func(t *testing.T, pair func() (*Node, *Node)) {
		srv, cl := fibPair(t, pair, WithResultTimeout(50*time.Millisecond))
		ctx := actionCtx(t)
		defer serveFibonacci(ctx, srv, nil)()
		defer srv.Close()
		h, err := cl.SendGoal(ctx, example_interfaces.FibonacciGoal{Order: 3})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := h.Result(ctx); err != nil {
			t.Fatal(err)
		}
		// The goal leaves the status array when its result expires.
		waitStatus(t, ctx, cl, func(l []ActionGoalStatus) bool { return len(l) == 0 })
		// get_result now answers STATUS_UNKNOWN.
		raw, err := NewClient(cl.node, "fibonacci/_action/get_result", example_interfaces.FibonacciGetResult{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := raw.Call(ctx, example_interfaces.FibonacciGetResultRequest{})
		if err != nil || res.Status != int8(StatusUnknown) {
			t.Fatalf("get_result of an expired goal: %+v %v", res, err)
		}
	})
}

// A client that goes away: its goals finish on the server, whose held
// get_result replies go nowhere.
func TestActionClientGoesAway(t *testing.T) {
	actionMiddlewares(t, func(t *testing.T, pair func() (*Node, *Node)) {
		srv, cl := fibPair(t, pair)
		ctx := actionCtx(t)
		step := make(chan struct{})
		defer serveFibonacci(ctx, srv, step)()
		defer srv.Close()
		h, err := cl.SendGoal(ctx, example_interfaces.FibonacciGoal{Order: 3})
		if err != nil {
			t.Fatal(err)
		}
		cl.node.Close() // closes the client
		if _, _, err := h.Result(ctx); !errors.Is(err, ErrClosed) {
			t.Fatalf("Result after close: %v", err)
		}
		if _, err := cl.SendGoal(ctx, example_interfaces.FibonacciGoal{Order: 3}); !errors.Is(err, ErrClosed) {
			t.Fatalf("SendGoal after close: %v", err)
		}
		step <- struct{}{} // the goal finishes with nobody to tell
		step <- struct{}{}
		srv.mu.Lock()
		var g *fibGoal
		for _, x := range srv.active {
			g = x
		}
		srv.mu.Unlock()
		if g == nil {
			t.Fatal("goal not active")
		}
		select {
		case <-g.Context().Done():
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		}
		if st := g.Status(); st != StatusSucceeded {
			t.Fatalf("goal %v", st)
		}
	})
}

// fakeSendGoal claims to be Fibonacci_SendGoal but sends an Int32: a
// request too short for a goal ID.
type fakeSendGoal struct{}

func (fakeSendGoal) TypeName() string    { return example_interfaces.FibonacciSendGoal{}.TypeName() }
func (fakeSendGoal) DDSTypeName() string { return example_interfaces.FibonacciSendGoal{}.DDSTypeName() }
func (fakeSendGoal) TypeHash() string    { return example_interfaces.FibonacciSendGoal{}.TypeHash() }
func (fakeSendGoal) RequestCodec() cdr.MessageCodec[fakeSendGoalRequest, *fakeSendGoalRequest] {
	return cdr.Codec[fakeSendGoalRequest]()
}
func (fakeSendGoal) ResponseCodec() cdr.MessageCodec[example_interfaces.FibonacciSendGoalResponse, *example_interfaces.FibonacciSendGoalResponse] {
	return cdr.Codec[example_interfaces.FibonacciSendGoalResponse]()
}

type fakeSendGoalRequest struct{ std_msgs.Int32 }

func (*fakeSendGoalRequest) TypeName() string {
	return example_interfaces.FibonacciSendGoalRequest{}.TypeName()
}
func (*fakeSendGoalRequest) DDSTypeName() string {
	return example_interfaces.FibonacciSendGoalRequest{}.DDSTypeName()
}
func (*fakeSendGoalRequest) TypeHash() string {
	return example_interfaces.FibonacciSendGoalRequest{}.TypeHash()
}

func TestActionBadInput(t *testing.T) {
	actionMiddlewares(t, func(t *testing.T, pair func() (*Node, *Node)) {
		srv, cl := fibPair(t, pair)
		ctx := actionCtx(t)
		defer serveFibonacci(ctx, srv, nil)()
		defer srv.Close()

		// A malformed send_goal request: an error reply (or none, where
		// the middleware has no error replies), nothing crashes.
		bad, err := NewClient(cl.node, "fibonacci/_action/send_goal", fakeSendGoal{})
		if err != nil {
			t.Fatal(err)
		}
		callCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, err = bad.Call(callCtx, fakeSendGoalRequest{std_msgs.Int32{Data: 7}})
		cancel()
		if err == nil {
			t.Fatal("a malformed send_goal was answered")
		}
		t.Log(err)
		if srv.node.Stats().Malformed == 0 {
			t.Error("malformed request not counted")
		}
		// Cancel of an unknown goal: ERROR_UNKNOWN_GOAL_ID.
		rawCancel, err := NewClient(cl.node, "fibonacci/_action/cancel_goal", action_msgs.CancelGoal{})
		if err != nil {
			t.Fatal(err)
		}
		id := NewGoalID()
		res, err := rawCancel.Call(ctx, action_msgs.CancelGoalRequest{GoalInfo: action_msgs.GoalInfo{GoalID: uuidMsg(id)}})
		if err != nil || res.ReturnCode != action_msgs.CancelGoalResponseErrorUnknownGoalID {
			t.Fatalf("cancel unknown goal: %+v %v", res, err)
		}
		// get_result of an unknown goal: STATUS_UNKNOWN.
		rawResult, err := NewClient(cl.node, "fibonacci/_action/get_result", example_interfaces.FibonacciGetResult{})
		if err != nil {
			t.Fatal(err)
		}
		gr, err := rawResult.Call(ctx, example_interfaces.FibonacciGetResultRequest{GoalID: uuidMsg(id)})
		if err != nil || gr.Status != int8(StatusUnknown) {
			t.Fatalf("get_result unknown goal: %+v %v", gr, err)
		}
		// The server still serves.
		h, err := cl.SendGoal(ctx, example_interfaces.FibonacciGoal{Order: 4})
		if err != nil {
			t.Fatal(err)
		}
		if st, _, err := h.Result(ctx); err != nil || st != StatusSucceeded {
			t.Fatalf("Result: %v %v", st, err)
		}
	})
}

func uuidMsg(id GoalID) unique_identifier_msgs.UUID { return unique_identifier_msgs.UUID{UUID: id} }

func exampleFibonacci() example_interfaces.Fibonacci { return example_interfaces.Fibonacci{} }

var testStamp = time.Unix(1764633600, 123456789)

// TestActionResultTimeout: a finished goal is kept exactly the result
// timeout (10 s by default), on the bubble's fake clock.
func TestActionResultTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		net := NewMemoryNetwork()
		var nodes []*Node
		for _, name := range []string{"fib_server", "fib_client"} {
			c, err := Open(t.Context(), WithMiddleware(Memory(net)), WithLogger(slog.New(slog.DiscardHandler)))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			nodes = append(nodes, newTestNode(t, c, name))
		}
		srv, cl := fibPair(t, func() (*Node, *Node) { return nodes[0], nodes[1] })
		ctx := t.Context()
		defer serveFibonacci(ctx, srv, nil)()
		defer srv.Close()
		h, err := cl.SendGoal(ctx, example_interfaces.FibonacciGoal{Order: 3})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := h.Result(ctx); err != nil {
			t.Fatal(err)
		}
		finished := time.Now()
		time.Sleep(DefaultResultTimeout - time.Nanosecond)
		synctest.Wait()
		if l, _ := cl.Status().Value(); len(l) != 1 || l[0].Status != StatusSucceeded {
			t.Fatalf("%v after the goal finished: status %v", time.Since(finished), l)
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		if l, _ := cl.Status().Value(); len(l) != 0 {
			t.Fatalf("%v after the goal finished: status %v", time.Since(finished), l)
		}
	})
}

// TestActionResultRequestedEarly: a get_result request for a running goal
// is held and answered when the goal finishes, for every client asking.
func TestActionResultRequestedEarly(t *testing.T) {
	actionMiddlewares(t, func(t *testing.T, pair func() (*Node, *Node)) {
		srv, cl := fibPair(t, pair)
		ctx := actionCtx(t)
		step := make(chan struct{})
		defer serveFibonacci(ctx, srv, step)()
		defer srv.Close()
		h, err := cl.SendGoal(ctx, example_interfaces.FibonacciGoal{Order: 3})
		if err != nil {
			t.Fatal(err)
		}
		raw, err := NewClient(cl.node, "fibonacci/_action/get_result", example_interfaces.FibonacciGetResult{})
		if err != nil {
			t.Fatal(err)
		}
		type reply struct {
			res example_interfaces.FibonacciGetResultResponse
			err error
		}
		early := make(chan reply, 1)
		go func() {
			res, err := raw.Call(ctx, example_interfaces.FibonacciGetResultRequest{GoalID: uuidMsg(h.ID())})
			early <- reply{res, err}
		}()
		// Wait until the server holds both requests (the handle's and the
		// raw one), then let the goal finish.
		for {
			srv.mu.Lock()
			held := len(srv.active[h.ID()].held)
			srv.mu.Unlock()
			if held == 2 {
				break
			}
			select {
			case <-ctx.Done():
				t.Fatalf("server holds %d get_result requests", held)
			case <-time.After(time.Millisecond):
			}
		}
		step <- struct{}{}
		step <- struct{}{}
		r := <-early
		if r.err != nil || r.res.Status != int8(StatusSucceeded) || !slices.Equal(r.res.Result.Sequence, []int32{0, 1, 1, 2}) {
			t.Fatalf("held get_result: %+v %v", r.res, r.err)
		}
		if st, res, err := h.Result(ctx); err != nil || st != StatusSucceeded || len(res.Sequence) != 4 {
			t.Fatalf("Result: %v %v %v", st, res, err)
		}
	})
}

func TestActionCancelFilter(t *testing.T) {
	net := NewMemoryNetwork()
	pair := func() (*Node, *Node) {
		var nodes []*Node
		for _, name := range []string{"fib_server", "fib_client"} {
			c, err := Open(context.Background(), WithMiddleware(Memory(net)))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = c.Close() })
			nodes = append(nodes, newTestNode(t, c, name))
		}
		return nodes[0], nodes[1]
	}
	srv, cl := fibPair(t, pair, WithCancelFilter(func(GoalID) bool { return false }))
	ctx := actionCtx(t)
	step := make(chan struct{})
	defer serveFibonacci(ctx, srv, step)()
	defer srv.Close()
	h, err := cl.SendGoal(ctx, example_interfaces.FibonacciGoal{Order: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Cancel(ctx); !errors.Is(err, ErrCancelRejected) || !strings.Contains(err.Error(), "ERROR_REJECTED") {
		t.Fatalf("refused cancel: %v", err)
	}
	step <- struct{}{}
	step <- struct{}{}
	if st, _, err := h.Result(ctx); err != nil || st != StatusSucceeded {
		t.Fatalf("Result: %v %v", st, err)
	}
}

// TestActionServerGoesAway: closing the server cancels its goals' contexts
// (cause ErrClosed) and answers the held get_result requests with an
// error; the client's Result fails instead of hanging.
func TestActionServerGoesAway(t *testing.T) {
	actionMiddlewares(t, func(t *testing.T, pair func() (*Node, *Node)) {
		srv, cl := fibPair(t, pair)
		ctx := actionCtx(t)
		goals := make(chan *fibGoal, 1)
		go func() {
			defer close(goals)
			for g := range srv.ListenReliable(ctx) {
				if g.Accept() == nil {
					goals <- g
				}
				return
			}
		}()
		h, err := cl.SendGoal(ctx, example_interfaces.FibonacciGoal{Order: 3})
		if err != nil {
			t.Fatal(err)
		}
		g := <-goals
		// Wait until the client's get_result request is held.
		for {
			srv.mu.Lock()
			held := len(g.held)
			srv.mu.Unlock()
			if held == 1 {
				break
			}
			select {
			case <-ctx.Done():
				t.Fatal("get_result not held")
			case <-time.After(time.Millisecond):
			}
		}
		srv.Close()
		<-g.Context().Done()
		if cause := context.Cause(g.Context()); !errors.Is(cause, ErrClosed) {
			t.Errorf("goal context cause %v", cause)
		}
		if _, _, err := h.Result(ctx); err == nil || ctx.Err() != nil {
			t.Fatalf("Result after the server closed: %v (ctx %v)", err, ctx.Err())
		}
		if err := g.Succeed(example_interfaces.FibonacciResult{}); err != nil {
			t.Logf("Succeed after close: %v", err)
		}
	})
}
