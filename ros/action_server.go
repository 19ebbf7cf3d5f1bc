package ros

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"
	"sync/atomic"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/ros/msgs/action_msgs"
	"github.com/afor-go/afor/ros/msgs/unique_identifier_msgs"
)

// ActionServer serves an action: it is a server (in the sense of
// [afor.Server]) of goals, each an [ActionGoal] to accept or reject, then
// to execute from any goroutine. It offers the action's three services
// (send_goal, cancel_goal, get_result) and publishes its two topics
// (feedback, and status on every change of a goal's state). Create one
// with [NewActionServer]; its methods are safe for concurrent use.
//
// Like an afor.Server, it never loses a goal silently: goals that arrive
// before a listener are kept for the first one, and a goal that is
// dropped (the server closed, a bounded listener overflowed) is rejected.
type ActionServer[G, R, F any] struct {
	node    *Node
	names   actionNames
	wire    *actionWire[G, R, F]
	timeout time.Duration
	accept  func(GoalID) bool // the cancel filter, or nil
	goals   *afor.Server[*ActionGoal[G, R, F], struct{}]

	sendSrv, cancelSrv, resultSrv rmw.Service
	fbPub, statusPub              rmw.Publisher
	untrack                       func()
	untype                        func() // unregisters the action's types from the node's type cache
	warned                        atomic.Bool

	fbMu  sync.Mutex // guards fbBuf and publishing feedback
	fbBuf []byte

	mu      sync.Mutex // guards what follows, and orders the status publications
	active  map[GoalID]*ActionGoal[G, R, F]
	closed  bool
	statBuf []byte                      // reused for every status array
	statArr action_msgs.GoalStatusArray // reused too
}

// ActionGoal is a goal received by an [ActionServer]. Accept or Reject it
// first; an accepted goal is then executed from any goroutine: Execute
// (optional), PublishFeedback as often as needed, and one of Succeed,
// Abort or Canceled, with the result. The methods are safe for concurrent
// use.
//
// A client's cancel request is delivered through [ActionGoal.Context]: it
// is cancelled, with the cause ErrCancelRequested, when the goal goes to
// canceling; the code executing the goal then stops and calls Canceled
// (or Succeed or Abort, if it finished anyway).
type ActionGoal[G, R, F any] struct {
	// ID is the goal's UUID, chosen by the client.
	ID GoalID
	// Goal is the goal as the client sent it.
	Goal G

	srv    *ActionServer[G, R, F]
	resp   *afor.Responder[*ActionGoal[G, R, F], struct{}]
	ctx    context.Context
	cancel context.CancelCauseFunc

	// guarded by srv.mu:
	status   GoalStatus
	accepted time.Time
	result   []byte        // the encoded GetResult response, once terminal
	held     []rmw.Request // get_result requests waiting for the result
	expiry   *time.Timer   // removes the finished goal
}

// NewActionServer creates a server of the action name (resolved by the
// node, as rcl_action does) of type action, such as
// example_interfaces.Fibonacci{}. The action's services and topics are
// "<name>/_action/send_goal", "cancel_goal", "get_result", "feedback" and
// "status", with the QoS profiles rcl_action uses (status keeps the last
// array, transient local).
//
// Cancel requests follow action_msgs/srv/CancelGoal: a goal ID cancels that
// goal, a stamp every goal accepted at or before it, both zero every goal;
// every accepted or executing goal they name goes to canceling (unless
// [WithCancelFilter] refuses it). A finished goal and its result are kept
// for the result timeout ([WithResultTimeout]), then forgotten; get_result
// for a goal the server does not know is answered with StatusUnknown and a
// zero result, as rcl_action does.
//
//	srv, err := ros.NewActionServer(node, "fibonacci", example_interfaces.Fibonacci{})
//	for g := range srv.ListenReliable(ctx) {
//		if err := g.Accept(); err != nil {
//			continue
//		}
//		go run(g) // PublishFeedback, then Succeed
//	}
func NewActionServer[G, R, F any, PG interface {
	*G
	cdr.Message
}, PR interface {
	*R
	cdr.Message
}, PF interface {
	*F
	cdr.Message
}](n *Node, name string, action ActionType[G, R, F, PG, PR, PF], opts ...ActionOption) (*ActionServer[G, R, F], error) {
	o := actionOptions{resultTimeout: DefaultResultTimeout}
	for _, f := range opts {
		f(&o)
	}
	an, err := resolveActionNames(n, name)
	if err != nil {
		return nil, err
	}
	if o.resultTimeout <= 0 {
		return nil, fmt.Errorf("ros: action server %s: result timeout %v is not positive", an.action, o.resultTimeout)
	}
	s := &ActionServer[G, R, F]{
		node: n, names: an, wire: newActionWire(action), timeout: o.resultTimeout, accept: o.cancelFilter,
		goals:  afor.NewServer[*ActionGoal[G, R, F], struct{}](afor.WithName("ros action:"+an.action), afor.WithLogger(n.logger)),
		active: map[GoalID]*ActionGoal[G, R, F]{},
	}
	s.untype = addActionTypes(&n.types, messageType(action), s.wire)
	if err := s.create(); err != nil {
		s.closeEntities()
		s.goals.Close()
		return nil, fmt.Errorf("ros: action server %s: %w", an.action, err)
	}
	untrack, err := n.track(func() error { s.Close(); return nil })
	if err != nil {
		s.closeEntities()
		s.goals.Close()
		return nil, err
	}
	s.untrack = untrack
	s.goals.OnClose(s.shutdown)
	s.mu.Lock()
	s.publishStatusLocked() // an empty array: late joiners learn there is no goal
	s.mu.Unlock()
	return s, nil
}

func (s *ActionServer[G, R, F]) create() error {
	rn, w, an := s.node.rn, s.wire, s.names
	var err error
	if s.statusPub, err = rn.CreatePublisher(an.status, w.status, qosActionStatus.rmw()); err != nil {
		return err
	}
	if s.fbPub, err = rn.CreatePublisher(an.feedback, w.feedback, QoSDefault.rmw()); err != nil {
		return err
	}
	if s.resultSrv, err = rn.CreateService(an.getResult, w.getResult, QoSServices.rmw(), s.handleGetResult); err != nil {
		return err
	}
	if s.cancelSrv, err = rn.CreateService(an.cancelGoal, w.cancelGoal, QoSServices.rmw(), s.handleCancel); err != nil {
		return err
	}
	s.sendSrv, err = rn.CreateService(an.sendGoal, w.sendGoal, QoSServices.rmw(), s.handleSendGoal)
	return err
}

// Name returns the fully qualified action name.
func (s *ActionServer[G, R, F]) Name() string { return s.names.action }

// ListenReliable returns a loop over the goals received, in order, as
// afor.Server's ListenReliable does: goals received before the loop starts
// are kept for it, and consume the server with one such loop. Take each
// goal's decision (Accept or Reject) promptly: the client waits for it.
func (s *ActionServer[G, R, F]) ListenReliable(ctx context.Context, opts ...afor.ListenOption) iter.Seq[*ActionGoal[G, R, F]] {
	return func(yield func(*ActionGoal[G, R, F]) bool) {
		for r := range s.goals.ListenReliable(ctx, opts...) {
			if !yield(r.Request) {
				return
			}
		}
	}
}

// Done is closed when the server closes.
func (s *ActionServer[G, R, F]) Done() <-chan struct{} { return s.goals.Done() }

// Close removes the action server from the graph. Goals not yet decided
// are rejected; the contexts of accepted goals are cancelled with the
// cause ErrClosed, and get_result requests still waiting get an error
// reply. Closing the node closes the server. Close is idempotent.
func (s *ActionServer[G, R, F]) Close() { s.goals.Close() }

// shutdown runs once, when the goals server closes.
func (s *ActionServer[G, R, F]) shutdown() {
	if s.untrack != nil {
		s.untrack()
	}
	s.mu.Lock()
	s.closed = true
	var held []rmw.Request
	for _, g := range s.active {
		if g.expiry != nil {
			g.expiry.Stop()
		}
		if g.cancel != nil {
			g.cancel(ErrClosed)
		}
		held = append(held, g.held...)
		g.held = nil
	}
	s.mu.Unlock()
	for _, r := range held {
		_ = r.Reply(nil, fmt.Errorf("ros: action server %s: %w", s.names.action, ErrClosed))
	}
	s.closeEntities()
}

func (s *ActionServer[G, R, F]) closeEntities() {
	if s.untype != nil {
		s.untype()
	}
	var cs []interface{ Close() error }
	for _, c := range []rmw.Service{s.sendSrv, s.cancelSrv, s.resultSrv} {
		if c != nil {
			cs = append(cs, c)
		}
	}
	for _, c := range []rmw.Publisher{s.fbPub, s.statusPub} {
		if c != nil {
			cs = append(cs, c)
		}
	}
	for _, c := range cs {
		if err := c.Close(); err != nil {
			s.node.logger.Warn("ros: closing an action server", "action", s.names.action, "err", err)
		}
	}
}

// handleSendGoal turns a send_goal request into an ActionGoal for the
// listeners; the decision answers it.
func (s *ActionServer[G, R, F]) handleSendGoal(r rmw.Request) {
	g := &ActionGoal[G, R, F]{srv: s}
	id, err := s.wire.decodeSendGoalRequest(r.Payload, &g.Goal)
	if err != nil {
		s.node.malformedInput("send_goal request", s.names.sendGoal, &s.warned, err)
		_ = r.Reply(nil, fmt.Errorf("ros: malformed send_goal request: %w", err))
		return
	}
	g.ID = id
	g.resp = afor.NewResponder(g, func(_ struct{}, err error) error { return s.decide(g, r, err) })
	if !s.goals.Input(g.resp) {
		_ = g.resp.Fail(ErrClosed)
	}
}

// decide answers a send_goal request: err nil accepts the goal.
func (s *ActionServer[G, R, F]) decide(g *ActionGoal[G, R, F], r rmw.Request, err error) error {
	if err != nil {
		payload, encErr := appendSendGoalResponse(nil, false, time.Time{})
		if encErr != nil {
			return encErr
		}
		return r.Reply(payload, nil)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		payload, _ := appendSendGoalResponse(nil, false, time.Time{})
		_ = r.Reply(payload, nil)
		return fmt.Errorf("ros: accept goal %s: %w", g.ID, ErrClosed)
	}
	if _, dup := s.active[g.ID]; dup {
		s.mu.Unlock()
		payload, _ := appendSendGoalResponse(nil, false, time.Time{})
		_ = r.Reply(payload, nil)
		return fmt.Errorf("ros: accept goal %s: a goal with this ID exists: %w", g.ID, ErrGoalRejected)
	}
	g.ctx, g.cancel = context.WithCancelCause(context.Background())
	g.status = StatusAccepted
	g.accepted = time.Now()
	s.active[g.ID] = g
	stamp := g.accepted
	s.mu.Unlock()
	// The reply goes before the status, so that a client sees its goal
	// accepted before it sees it in the status array.
	payload, err := appendSendGoalResponse(nil, true, stamp)
	if err != nil {
		return err
	}
	replyErr := r.Reply(payload, nil)
	s.mu.Lock()
	s.publishStatusLocked()
	s.mu.Unlock()
	return replyErr
}

// publishStatusLocked publishes the status of every goal the server knows.
func (s *ActionServer[G, R, F]) publishStatusLocked() {
	if s.statusPub == nil {
		return
	}
	arr := &s.statArr
	arr.StatusList = arr.StatusList[:0]
	for _, g := range s.active {
		arr.StatusList = append(arr.StatusList, action_msgs.GoalStatus{
			GoalInfo: action_msgs.GoalInfo{GoalID: unique_identifier_msgs.UUID{UUID: g.ID}, Stamp: actionStamp(g.accepted)},
			Status:   int8(g.status),
		})
	}
	buf, err := arr.AppendCDR(s.statBuf[:0])
	if err == nil {
		s.statBuf = buf
		err = s.statusPub.Publish(context.Background(), buf)
	}
	if err != nil && !errors.Is(err, ErrClosed) {
		s.node.logger.Warn("ros: publishing an action status", "action", s.names.action, "err", err)
	}
}

// handleGetResult answers now for a finished goal or an unknown one, and
// holds the request of an active goal until it finishes.
func (s *ActionServer[G, R, F]) handleGetResult(r rmw.Request) {
	id, err := s.wire.decodeGetResultRequest(r.Payload)
	if err != nil {
		s.node.malformedInput("get_result request", s.names.getResult, &s.warned, err)
		_ = r.Reply(nil, fmt.Errorf("ros: malformed get_result request: %w", err))
		return
	}
	s.mu.Lock()
	g, ok := s.active[id]
	switch {
	case !ok:
		s.mu.Unlock()
		var zero R
		payload, err := s.wire.appendGetResultResponse(nil, StatusUnknown, &zero)
		if err != nil {
			_ = r.Reply(nil, err)
			return
		}
		_ = r.Reply(payload, nil)
	case g.result != nil:
		payload := g.result
		s.mu.Unlock()
		_ = r.Reply(payload, nil)
	default:
		g.held = append(g.held, r)
		s.mu.Unlock()
	}
}

// handleCancel applies a cancel_goal request as
// action_msgs/srv/CancelGoal defines it.
func (s *ActionServer[G, R, F]) handleCancel(r rmw.Request) {
	var req action_msgs.CancelGoalRequest
	if err := req.UnmarshalCDR(r.Payload); err != nil {
		s.node.malformedInput("cancel_goal request", s.names.cancelGoal, &s.warned, err)
		_ = r.Reply(nil, fmt.Errorf("ros: malformed cancel_goal request: %w", err))
		return
	}
	id := GoalID(req.GoalInfo.GoalID.UUID)
	before := actionTime(req.GoalInfo.Stamp)
	res := action_msgs.CancelGoalResponse{}
	s.mu.Lock()
	var target *ActionGoal[G, R, F]
	if !id.IsZero() {
		target = s.active[id]
	}
	for _, g := range s.active {
		named := id.IsZero() && before.IsZero() || g == target || !before.IsZero() && !g.accepted.After(before)
		// Only accepted and executing goals can go to canceling (rcl's
		// rcl_action_goal_handle_is_cancelable).
		cancelable := g.status == StatusAccepted || g.status == StatusExecuting
		if !named || !cancelable || s.accept != nil && !s.accept(g.ID) {
			continue
		}
		g.status = StatusCanceling
		g.cancel(ErrCancelRequested)
		res.GoalsCanceling = append(res.GoalsCanceling, action_msgs.GoalInfo{
			GoalID: unique_identifier_msgs.UUID{UUID: g.ID}, Stamp: actionStamp(g.accepted)})
	}
	switch {
	case len(res.GoalsCanceling) > 0:
		res.ReturnCode = action_msgs.CancelGoalResponseErrorNone
		s.publishStatusLocked()
	case !id.IsZero() && target == nil:
		res.ReturnCode = action_msgs.CancelGoalResponseErrorUnknownGoalID
	case target != nil && target.status.Terminal():
		res.ReturnCode = action_msgs.CancelGoalResponseErrorGoalTerminated
	default:
		res.ReturnCode = action_msgs.CancelGoalResponseErrorRejected
	}
	s.mu.Unlock()
	payload, err := res.AppendCDR(nil)
	if err != nil {
		_ = r.Reply(nil, err)
		return
	}
	_ = r.Reply(payload, nil)
}

// Accept accepts the goal: the client is told, the goal is accepted in the
// status topic, and its Context starts. It fails if the goal was already
// decided, or the server closed (the goal is then rejected).
func (g *ActionGoal[G, R, F]) Accept() error {
	if err := g.resp.Respond(struct{}{}); err != nil {
		return fmt.Errorf("ros: accept goal %s: %w", g.ID, err)
	}
	return nil
}

// Reject rejects the goal: the client's SendGoal fails with an error
// matching ErrGoalRejected. It fails if the goal was already decided.
func (g *ActionGoal[G, R, F]) Reject() error {
	if err := g.resp.Fail(ErrGoalRejected); err != nil {
		return fmt.Errorf("ros: reject goal %s: %w", g.ID, err)
	}
	return nil
}

// Context returns the goal's context, valid once the goal is accepted: it
// is cancelled when a client asks to cancel the goal (the cause is
// ErrCancelRequested), when the goal finishes, or when the server closes
// (ErrClosed). Before Accept it is an already cancelled context.
func (g *ActionGoal[G, R, F]) Context() context.Context {
	g.srv.mu.Lock()
	defer g.srv.mu.Unlock()
	if g.ctx == nil {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(fmt.Errorf("ros: goal %s not accepted: %w", g.ID, ErrGoalState))
		return ctx
	}
	return g.ctx
}

// Status returns the goal's state.
func (g *ActionGoal[G, R, F]) Status() GoalStatus {
	g.srv.mu.Lock()
	defer g.srv.mu.Unlock()
	return g.status
}

// Execute moves an accepted goal to executing, which clients see in the
// status topic. It is optional: Succeed and Abort finish an accepted goal
// too. It is a no-op on an executing goal.
func (g *ActionGoal[G, R, F]) Execute() error {
	s := g.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	switch g.status {
	case StatusExecuting:
		return nil
	case StatusAccepted:
		g.status = StatusExecuting
		s.publishStatusLocked()
		return nil
	}
	return fmt.Errorf("ros: execute goal %s (%v): %w", g.ID, g.status, ErrGoalState)
}

// PublishFeedback publishes fb on the feedback topic, for the clients of
// the goal. The goal must be accepted and not finished.
func (g *ActionGoal[G, R, F]) PublishFeedback(ctx context.Context, fb F) error {
	s := g.srv
	if st := g.Status(); !st.Active() {
		return fmt.Errorf("ros: feedback of goal %s (%v): %w", g.ID, st, ErrGoalState)
	}
	s.fbMu.Lock()
	defer s.fbMu.Unlock()
	buf, err := s.wire.appendFeedback(s.fbBuf[:0], g.ID, &fb)
	if err != nil {
		return fmt.Errorf("ros: feedback of goal %s: %w", g.ID, err)
	}
	s.fbBuf = buf
	if err := s.fbPub.Publish(ctx, buf); err != nil {
		return fmt.Errorf("ros: feedback of goal %s: %w", g.ID, err)
	}
	return nil
}

// Succeed finishes the goal as succeeded with result.
func (g *ActionGoal[G, R, F]) Succeed(result R) error {
	return g.finish(StatusSucceeded, result)
}

// Abort finishes the goal as aborted with result.
func (g *ActionGoal[G, R, F]) Abort(result R) error { return g.finish(StatusAborted, result) }

// Canceled finishes a canceling goal (one a client asked to cancel) as
// canceled with result. On a goal nobody asked to cancel it fails with an
// error matching ErrGoalState: use Abort.
func (g *ActionGoal[G, R, F]) Canceled(result R) error {
	return g.finish(StatusCanceled, result)
}

// finish moves the goal to a terminal state, answers the get_result
// requests held for it, and schedules its expiry.
func (g *ActionGoal[G, R, F]) finish(status GoalStatus, result R) error {
	s := g.srv
	s.mu.Lock()
	if !g.status.Active() || status == StatusCanceled && g.status != StatusCanceling {
		st := g.status
		s.mu.Unlock()
		return fmt.Errorf("ros: goal %s: %v to %v: %w", g.ID, st, status, ErrGoalState)
	}
	payload, err := s.wire.appendGetResultResponse(nil, status, &result)
	if err != nil {
		s.mu.Unlock()
		return fmt.Errorf("ros: result of goal %s: %w", g.ID, err)
	}
	g.status, g.result = status, payload
	held := g.held
	g.held = nil
	g.cancel(nil)
	if !s.closed {
		g.expiry = time.AfterFunc(s.timeout, func() { s.expire(g) })
		s.publishStatusLocked()
	}
	s.mu.Unlock()
	for _, r := range held {
		_ = r.Reply(payload, nil)
	}
	return nil
}

// expire forgets a finished goal.
func (s *ActionServer[G, R, F]) expire(g *ActionGoal[G, R, F]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.active[g.ID] != g {
		return
	}
	delete(s.active, g.ID)
	s.publishStatusLocked()
}
