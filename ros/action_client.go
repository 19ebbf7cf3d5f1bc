package ros

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/ros/msgs/action_msgs"
	"github.com/afor-go/afor/ros/msgs/unique_identifier_msgs"
)

// ActionClient sends goals to an action server and follows them. Create
// one with [NewActionClient]; its methods are safe for concurrent use.
type ActionClient[G, R, F any] struct {
	node   *Node
	names  actionNames
	wire   *actionWire[G, R, F]
	status *afor.Sub[[]ActionGoalStatus]

	send, cancel, result rmw.Client
	fbSub, statusSub     rmw.Subscription
	warned               atomic.Bool

	mu      sync.Mutex // guards what follows
	goals   map[GoalID]*GoalHandle[G, R, F]
	closed  bool
	untrack func()
	untype  func() // unregisters the action's types from the node's type cache
}

// GoalHandle is a goal sent by an [ActionClient] and accepted by the
// server: its feedback, its status and its result.
type GoalHandle[G, R, F any] struct {
	id       GoalID
	accepted time.Time
	client   *ActionClient[G, R, F]
	feedback *afor.Sub[F]
	status   *afor.Sub[GoalStatus]

	done      chan struct{} // closed when the result (or an error) is in
	resStatus GoalStatus
	result    R
	err       error
	once      sync.Once
	stop      func() // cancels the get_result request
}

// NewActionClient creates a client of the action name (resolved by the
// node, as rcl_action does) of type action, such as
// example_interfaces.Fibonacci{}. The client lives as long as the node, or
// until Close.
//
//	client, err := ros.NewActionClient(node, "fibonacci", example_interfaces.Fibonacci{})
//	goal, err := client.SendGoal(ctx, example_interfaces.FibonacciGoal{Order: 5})
//	for fb := range goal.Feedback().ListenReliable(ctx) { ... }
//	status, result, err := goal.Result(ctx)
func NewActionClient[G, R, F any, PG interface {
	*G
	cdr.Message
}, PR interface {
	*R
	cdr.Message
}, PF interface {
	*F
	cdr.Message
}](n *Node, name string, action ActionType[G, R, F, PG, PR, PF]) (*ActionClient[G, R, F], error) {
	an, err := resolveActionNames(n, name)
	if err != nil {
		return nil, err
	}
	c := &ActionClient[G, R, F]{
		node: n, names: an, wire: newActionWire(action),
		status: afor.NewSub[[]ActionGoalStatus](afor.WithName("ros action status:"+an.action), afor.WithLogger(n.logger)),
		goals:  map[GoalID]*GoalHandle[G, R, F]{},
	}
	c.untype = addActionTypes(&n.types, messageType(action), c.wire)
	if err := c.create(); err != nil {
		c.Close()
		return nil, fmt.Errorf("ros: action client %s: %w", an.action, err)
	}
	untrack, err := n.track(func() error { c.Close(); return nil })
	if err != nil {
		c.Close()
		return nil, err
	}
	c.mu.Lock()
	c.untrack = untrack
	c.mu.Unlock()
	return c, nil
}

func (c *ActionClient[G, R, F]) create() error {
	rn, w, an := c.node.rn, c.wire, c.names
	var err error
	if c.statusSub, err = rn.CreateSubscription(an.status, w.status, qosActionStatus.rmw(), c.onStatus); err != nil {
		return err
	}
	if c.fbSub, err = rn.CreateSubscription(an.feedback, w.feedback, QoSDefault.rmw(), c.onFeedback); err != nil {
		return err
	}
	if c.send, err = rn.CreateClient(an.sendGoal, w.sendGoal, QoSServices.rmw()); err != nil {
		return err
	}
	if c.cancel, err = rn.CreateClient(an.cancelGoal, w.cancelGoal, QoSServices.rmw()); err != nil {
		return err
	}
	c.result, err = rn.CreateClient(an.getResult, w.getResult, QoSServices.rmw())
	return err
}

// Name returns the fully qualified action name.
func (c *ActionClient[G, R, F]) Name() string { return c.names.action }

// Status returns the action's status topic as a sub: every array the
// server publishes, with the state of every goal it knows (not only this
// client's). It closes with the client.
func (c *ActionClient[G, R, F]) Status() *afor.Sub[[]ActionGoalStatus] { return c.status }

// WaitForServer waits until the action's three services have a server.
func (c *ActionClient[G, R, F]) WaitForServer(ctx context.Context) error {
	for _, rc := range []rmw.Client{c.send, c.cancel, c.result} {
		if err := c.checkOpen("wait for server"); err != nil {
			return err
		}
		if err := rc.WaitReady(ctx); err != nil {
			return fmt.Errorf("ros: wait for action %s: %w", c.names.action, err)
		}
	}
	return nil
}

func (c *ActionClient[G, R, F]) checkOpen(what string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return fmt.Errorf("ros: %s of action %s: %w", what, c.names.action, ErrClosed)
	}
	return nil
}

// SendGoal sends goal with a new goal ID and waits for the server's
// decision. A rejected goal is an error matching ErrGoalRejected. The
// handle of an accepted goal gives its feedback and status as subs, and
// its result: the client asks for it at once, so Result does not miss it
// however late it is called (within the client's life).
func (c *ActionClient[G, R, F]) SendGoal(ctx context.Context, goal G) (*GoalHandle[G, R, F], error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("ros: send goal to %s: %w", c.names.action, context.Cause(ctx))
	}
	id := NewGoalID()
	h := &GoalHandle[G, R, F]{
		id: id, client: c, done: make(chan struct{}),
		// Both keep what arrives before their first consumer: feedback
		// and statuses that come before SendGoal returns are not lost.
		feedback: afor.NewSub[F](afor.WithName("ros action feedback:"+c.names.action), afor.WithLogger(c.node.logger), afor.WithBacklog(afor.DefaultQueueSize)),
		status:   afor.NewSub[GoalStatus](afor.WithName("ros action goal status:"+c.names.action), afor.WithLogger(c.node.logger), afor.WithBacklog(afor.DefaultQueueSize)),
	}
	payload, err := c.wire.appendSendGoalRequest(nil, id, &goal)
	if err != nil {
		return nil, fmt.Errorf("ros: send goal to %s: %w", c.names.action, err)
	}
	// Registered before sending: feedback may come before the decision.
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, fmt.Errorf("ros: send goal to %s: %w", c.names.action, ErrClosed)
	}
	c.goals[id] = h
	c.mu.Unlock()
	type decision struct {
		accepted bool
		stamp    time.Time
		err      error
	}
	reply := make(chan decision, 1)
	cancel, err := c.send.Send(ctx, payload, func(p []byte, err error) {
		if err != nil {
			reply <- decision{err: err}
			return
		}
		acc, stamp, err := c.wire.decodeSendGoalResponse(p)
		if err != nil {
			c.node.malformedInput("send_goal reply", c.names.sendGoal, &c.warned, err)
			err = fmt.Errorf("malformed reply: %w", err)
		}
		reply <- decision{accepted: acc, stamp: stamp, err: err}
	})
	if err != nil {
		c.forget(h, err, true)
		return nil, fmt.Errorf("ros: send goal to %s: %w", c.names.action, err)
	}
	var d decision
	select {
	case d = <-reply:
	case <-ctx.Done():
		cancel()
		c.forget(h, context.Cause(ctx), true)
		return nil, fmt.Errorf("ros: send goal to %s: %w", c.names.action, context.Cause(ctx))
	}
	switch {
	case d.err != nil:
		c.forget(h, d.err, true)
		return nil, fmt.Errorf("ros: send goal to %s: %w", c.names.action, d.err)
	case !d.accepted:
		c.forget(h, ErrGoalRejected, true)
		return nil, fmt.Errorf("ros: send goal %s to %s: %w", id, c.names.action, ErrGoalRejected)
	}
	h.accepted = d.stamp
	if _, ok := h.status.Value(); !ok {
		h.status.Input(StatusAccepted)
	}
	if err := c.requestResult(h); err != nil {
		c.forget(h, err, true)
		return nil, fmt.Errorf("ros: result of goal %s of %s: %w", id, c.names.action, err)
	}
	return h, nil
}

// requestResult sends the goal's get_result request, answered when the
// goal finishes.
func (c *ActionClient[G, R, F]) requestResult(h *GoalHandle[G, R, F]) error {
	payload, err := appendGetResultRequest(nil, h.id)
	if err != nil {
		return err
	}
	stop, err := c.result.Send(context.Background(), payload, func(p []byte, err error) {
		if err != nil {
			c.forget(h, err, false)
			return
		}
		var r R
		st, err := c.wire.decodeGetResultResponse(p, &r)
		switch {
		case err != nil:
			c.node.malformedInput("get_result reply", c.names.getResult, &c.warned, err)
			err = fmt.Errorf("malformed reply: %w", err)
		case st == StatusUnknown:
			err = ErrUnknownGoal
		case !st.Terminal():
			err = fmt.Errorf("get_result answered with the non-final status %v", st)
		}
		if err != nil {
			c.forget(h, err, false)
			return
		}
		h.finish(st, r, nil, false)
		c.mu.Lock()
		delete(c.goals, h.id)
		c.mu.Unlock()
	})
	if err != nil {
		return err
	}
	c.mu.Lock()
	h.stop = stop
	c.mu.Unlock()
	return nil
}

// forget drops a goal from the client and ends its handle with err;
// stop cancels its get_result request (not from that request's reply
// function: the request is over, and the middleware may hold a lock).
func (c *ActionClient[G, R, F]) forget(h *GoalHandle[G, R, F], err error, stop bool) {
	c.mu.Lock()
	if c.goals[h.id] == h {
		delete(c.goals, h.id)
	}
	c.mu.Unlock()
	h.finish(StatusUnknown, *new(R), err, stop)
}

// onFeedback hands a feedback message to its goal's handle.
func (c *ActionClient[G, R, F]) onFeedback(m rmw.Message) {
	var f F
	id, err := c.wire.decodeFeedback(m.Payload, &f)
	if err != nil {
		c.node.malformedInput("feedback message", c.names.feedback, &c.warned, err)
		return
	}
	c.mu.Lock()
	h := c.goals[id]
	c.mu.Unlock()
	if h != nil {
		h.feedback.Input(f)
	}
}

// onStatus publishes the status array and each of our goals' new state.
func (c *ActionClient[G, R, F]) onStatus(m rmw.Message) {
	var arr action_msgs.GoalStatusArray
	if err := arr.UnmarshalCDR(m.Payload); err != nil {
		c.node.malformedInput("status message", c.names.status, &c.warned, err)
		return
	}
	list := make([]ActionGoalStatus, len(arr.StatusList))
	for i, s := range arr.StatusList {
		list[i] = ActionGoalStatus{ID: GoalID(s.GoalInfo.GoalID.UUID), Accepted: actionTime(s.GoalInfo.Stamp), Status: GoalStatus(s.Status)}
	}
	type change struct {
		h  *GoalHandle[G, R, F]
		st GoalStatus
	}
	var changes []change
	c.mu.Lock()
	for _, s := range list {
		if h := c.goals[s.ID]; h != nil {
			changes = append(changes, change{h, s.Status})
		}
	}
	c.mu.Unlock()
	// Input outside the lock: OnInput callbacks may call the client.
	for _, ch := range changes {
		if v, ok := ch.h.status.Value(); !ok || v != ch.st {
			ch.h.status.Input(ch.st)
		}
	}
	c.status.Input(list)
}

// CancelAll asks the server to cancel every goal (of every client), and
// returns the IDs of the goals it is canceling; when it cancels none, the
// error matches ErrCancelRejected.
func (c *ActionClient[G, R, F]) CancelAll(ctx context.Context) ([]GoalID, error) {
	return c.cancelGoals(ctx, GoalID{}, time.Time{})
}

// CancelBefore asks the server to cancel every goal accepted at or before
// t (by its clock), as CancelAll.
func (c *ActionClient[G, R, F]) CancelBefore(ctx context.Context, t time.Time) ([]GoalID, error) {
	if t.IsZero() {
		return nil, fmt.Errorf("ros: cancel goals of %s: a zero time means every goal: use CancelAll", c.names.action)
	}
	return c.cancelGoals(ctx, GoalID{}, t)
}

func (c *ActionClient[G, R, F]) cancelGoals(ctx context.Context, id GoalID, before time.Time) ([]GoalID, error) {
	if err := c.checkOpen("cancel"); err != nil {
		return nil, err
	}
	req := action_msgs.CancelGoalRequest{GoalInfo: action_msgs.GoalInfo{GoalID: unique_identifier_msgs.UUID{UUID: id}, Stamp: actionStamp(before)}}
	cl := afor.NewClient[action_msgs.CancelGoalRequest, action_msgs.CancelGoalResponse](&requester[action_msgs.CancelGoalRequest, action_msgs.CancelGoalResponse, *action_msgs.CancelGoalRequest, *action_msgs.CancelGoalResponse]{
		node: c.node, name: c.names.cancelGoal, rc: c.cancel,
	})
	res, err := cl.Call(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("ros: cancel goals of %s: %w", c.names.action, err)
	}
	if res.ReturnCode != action_msgs.CancelGoalResponseErrorNone {
		return nil, fmt.Errorf("ros: cancel goals of %s: %w (%s)", c.names.action, ErrCancelRejected, cancelCode(res.ReturnCode))
	}
	ids := make([]GoalID, len(res.GoalsCanceling))
	for i, g := range res.GoalsCanceling {
		ids[i] = GoalID(g.GoalID.UUID)
	}
	return ids, nil
}

func cancelCode(c int8) string {
	switch c {
	case action_msgs.CancelGoalResponseErrorRejected:
		return "ERROR_REJECTED"
	case action_msgs.CancelGoalResponseErrorUnknownGoalID:
		return "ERROR_UNKNOWN_GOAL_ID"
	case action_msgs.CancelGoalResponseErrorGoalTerminated:
		return "ERROR_GOAL_TERMINATED"
	}
	return fmt.Sprintf("return code %d", c)
}

// Close removes the client from the graph. The handles of goals still
// running end: their Result returns an error matching ErrClosed. Closing
// the node closes the client. Close is idempotent.
func (c *ActionClient[G, R, F]) Close() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	goals := c.goals
	c.goals = map[GoalID]*GoalHandle[G, R, F]{}
	untrack, untype := c.untrack, c.untype
	c.mu.Unlock()
	if untrack != nil {
		untrack()
	}
	if untype != nil {
		untype()
	}
	for _, h := range goals {
		h.finish(StatusUnknown, *new(R), fmt.Errorf("ros: action client %s: %w", c.names.action, ErrClosed), true)
	}
	var errs []error
	for _, s := range []rmw.Subscription{c.statusSub, c.fbSub} {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	for _, rc := range []rmw.Client{c.send, c.cancel, c.result} {
		if rc != nil {
			errs = append(errs, rc.Close())
		}
	}
	if err := errors.Join(errs...); err != nil {
		c.node.logger.Warn("ros: closing an action client", "action", c.names.action, "err", err)
	}
	c.status.Close()
}

// ID returns the goal's UUID.
func (h *GoalHandle[G, R, F]) ID() GoalID { return h.id }

// Accepted returns when the server accepted the goal, by its clock.
func (h *GoalHandle[G, R, F]) Accepted() time.Time { return h.accepted }

// Feedback returns the goal's feedback as a sub. As for any subscription,
// its first reliable consumer (ListenReliable, OnInput) also gets the
// feedback that arrived before it, up to [afor.DefaultQueueSize] messages
// (see [afor.WithBacklog]); after that, a value that arrives while no
// listener or waiter is registered is kept only as the latest value. The
// sub closes when the result is in (feedback still on its way
// then is not delivered), or when the client closes.
func (h *GoalHandle[G, R, F]) Feedback() *afor.Sub[F] { return h.feedback }

// Status returns the goal's state as a sub: a value on every change seen on
// the status topic, and the final state with the result. It closes after
// the final state.
func (h *GoalHandle[G, R, F]) Status() *afor.Sub[GoalStatus] { return h.status }

// Done is closed when the result is in, or the goal ended with an error.
func (h *GoalHandle[G, R, F]) Done() <-chan struct{} { return h.done }

// Result waits for the goal to finish and returns its final state
// (succeeded, canceled or aborted) and result. It fails with an error
// matching ErrUnknownGoal if the server does not know the goal (its result
// expired), ErrClosed if the client closed, or ctx's error.
func (h *GoalHandle[G, R, F]) Result(ctx context.Context) (GoalStatus, R, error) {
	select {
	case <-h.done:
		if h.err != nil {
			return StatusUnknown, *new(R), h.err
		}
		return h.resStatus, h.result, nil
	case <-ctx.Done():
		return StatusUnknown, *new(R), fmt.Errorf("ros: result of goal %s: %w", h.id, context.Cause(ctx))
	}
}

// Cancel asks the server to cancel the goal. When the server does not
// cancel it (it finished, or the server refused), the error matches
// ErrCancelRejected and gives action_msgs' return code. The goal's
// Result then says how it ended.
func (h *GoalHandle[G, R, F]) Cancel(ctx context.Context) error {
	_, err := h.client.cancelGoals(ctx, h.id, time.Time{})
	return err
}

// finish records the outcome once and closes the subs; with stop, an
// error also cancels the get_result request.
func (h *GoalHandle[G, R, F]) finish(st GoalStatus, r R, err error, stop bool) {
	first := false
	h.once.Do(func() {
		first = true
		if err != nil {
			h.err = fmt.Errorf("ros: result of goal %s: %w", h.id, err)
		}
		h.resStatus, h.result = st, r
		if err == nil {
			if v, ok := h.status.Value(); !ok || v != st {
				h.status.Input(st)
			}
		}
		h.feedback.Close()
		h.status.Close()
		close(h.done)
	})
	// Out of once: cancelling the get_result request may call its reply
	// function, and so finish, at once.
	if first && err != nil && stop {
		h.client.mu.Lock()
		cancel := h.stop
		h.client.mu.Unlock()
		if cancel != nil {
			cancel()
		}
	}
}
