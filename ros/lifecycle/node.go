package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/lifecycle_msgs"
)

// Event is a change of state of a managed node: the transition taken, and
// the states it went from and to. A trigger makes two events (into the
// transition state, then out of it), three or four with error processing.
type Event struct {
	Transition Transition
	Start      State
	Goal       State
}

func (e Event) String() string {
	return fmt.Sprintf("%s -> %s (%s)", e.Start.Label, e.Goal.Label, e.Transition.Label)
}

// Node is a managed ROS 2 node (a lifecycle node): a [ros.Node] with the
// state machine of rcl_lifecycle, driven by its own triggers ([Node.Trigger],
// [Node.Configure], ...) or by other nodes through the lifecycle services
// (ros2 lifecycle set, Nav2's lifecycle manager, a [Client]), and served
// exactly as rclpy's LifecycleNode serves it. Its methods are safe for
// concurrent use. Create one with [Manage].
type Node struct {
	*ros.Node

	handlers map[uint8]Handler
	logger   *slog.Logger
	pub      *ros.Publisher[lifecycle_msgs.TransitionEvent, *lifecycle_msgs.TransitionEvent]
	events   *afor.Sub[Event]
	states   *afor.Sub[State] // every state entered; the current one is its value
	servers  []interface{ Close() }

	life     context.Context // ends when the node closes
	stopLife context.CancelFunc
	endOnce  sync.Once
	wg       sync.WaitGroup

	enabled atomic.Bool   // lifecycle publishers publish
	epoch   atomic.Uint64 // activations so far: publishers warn once per inactive period

	mu     sync.Mutex
	state  State
	closed bool
}

// Manage makes n a managed node, in the unconfigured state, as rclpy's
// LifecycleNode does: it creates the publisher of "~/transition_event"
// (lifecycle_msgs/msg/TransitionEvent) and the services "~/change_state",
// "~/get_state", "~/get_available_states", "~/get_available_transitions"
// and "~/get_transition_graph", and runs transitions with the handlers of
// opts ([OnConfigure], [OnActivate], ...).
//
// Requests to change state are run one at a time, in the order they
// arrive; the other services answer at once, also during a long
// transition. Closing the managed node closes n.
//
//	node, err := ros.NewNode(ctx, "camera")
//	lc, err := lifecycle.Manage(node, lifecycle.OnConfigure(openCamera), lifecycle.OnActivate(startStreaming))
//	defer lc.Close()
func Manage(n *ros.Node, opts ...Option) (*Node, error) {
	var c config
	for _, o := range opts {
		o(&c)
	}
	life, stop := context.WithCancel(context.Background())
	ln := &Node{Node: n, handlers: c.handlers, logger: n.Logger(), state: Unconfigured, life: life, stopLife: stop}
	name := n.FullyQualifiedName()
	ln.events = afor.NewSub[Event](afor.WithName("lifecycle events:"+name), afor.WithLogger(ln.logger))
	ln.states = afor.NewSub[State](afor.WithName("lifecycle states:"+name), afor.WithLogger(ln.logger))
	ln.states.Input(Unconfigured)
	if err := ln.start(); err != nil {
		ln.end()
		for _, s := range ln.servers {
			s.Close()
		}
		if ln.pub != nil {
			_ = ln.pub.Close()
		}
		return nil, fmt.Errorf("lifecycle: manage %s: %w", name, err)
	}
	return ln, nil
}

// start creates the communication interface in rcl_lifecycle's order and
// the goroutines that serve it.
func (n *Node) start() error {
	var err error
	if n.pub, err = ros.NewPublisher[lifecycle_msgs.TransitionEvent](n.Node, "~/transition_event", ros.QoSDefault); err != nil {
		return err
	}
	change, err := ros.NewServer(n.Node, "~/change_state", lifecycle_msgs.ChangeState{})
	if err != nil {
		return err
	}
	n.servers = append(n.servers, change)
	change.OnClose(n.end)
	get, err := ros.NewServer(n.Node, "~/get_state", lifecycle_msgs.GetState{})
	if err != nil {
		return err
	}
	n.servers = append(n.servers, get)
	avStates, err := ros.NewServer(n.Node, "~/get_available_states", lifecycle_msgs.GetAvailableStates{})
	if err != nil {
		return err
	}
	n.servers = append(n.servers, avStates)
	avTransitions, err := ros.NewServer(n.Node, "~/get_available_transitions", lifecycle_msgs.GetAvailableTransitions{})
	if err != nil {
		return err
	}
	n.servers = append(n.servers, avTransitions)
	graphSrv, err := ros.NewServer(n.Node, "~/get_transition_graph", lifecycle_msgs.GetAvailableTransitions{})
	if err != nil {
		return err
	}
	n.servers = append(n.servers, graphSrv)

	serve(n, change, func(r lifecycle_msgs.ChangeStateRequest) lifecycle_msgs.ChangeStateResponse {
		_, err := n.trigger(n.life, r.Transition, true)
		return lifecycle_msgs.ChangeStateResponse{Success: err == nil}
	})
	serve(n, get, func(lifecycle_msgs.GetStateRequest) lifecycle_msgs.GetStateResponse {
		return lifecycle_msgs.GetStateResponse{CurrentState: n.State()}
	})
	serve(n, avStates, func(lifecycle_msgs.GetAvailableStatesRequest) lifecycle_msgs.GetAvailableStatesResponse {
		return lifecycle_msgs.GetAvailableStatesResponse{AvailableStates: States()}
	})
	serve(n, avTransitions, func(lifecycle_msgs.GetAvailableTransitionsRequest) lifecycle_msgs.GetAvailableTransitionsResponse {
		return lifecycle_msgs.GetAvailableTransitionsResponse{AvailableTransitions: AvailableTransitions(n.State())}
	})
	serve(n, graphSrv, func(lifecycle_msgs.GetAvailableTransitionsRequest) lifecycle_msgs.GetAvailableTransitionsResponse {
		return lifecycle_msgs.GetAvailableTransitionsResponse{AvailableTransitions: Graph()}
	})
	return nil
}

// serve answers the requests of srv with f, one at a time, on a goroutine
// of the node, until the node closes.
func serve[Req, Res any](n *Node, srv *afor.Server[Req, Res], f func(Req) Res) {
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		for r := range srv.ListenReliable(n.life) {
			if err := r.Respond(f(r.Request)); err != nil {
				n.logger.Debug("lifecycle: a reply was not sent", "err", err)
			}
		}
	}()
}

// State returns the node's current state.
func (n *Node) State() State {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.state
}

// Events returns the node's changes of state as an [afor.Sub], from now
// on: each is also published on "~/transition_event" (with the transition
// left empty, as rcl_lifecycle publishes it). The sub closes with the
// node.
func (n *Node) Events() *afor.Sub[Event] { return n.events }

// WaitForState waits until the node is in state s (compared by id) and
// returns nil, at once if it is there now. It fails with ctx's error, or
// with one matching ros.ErrClosed once the node closes.
func (n *Node) WaitForState(ctx context.Context, s State) error {
	for cur := range n.states.ListenReliable(ctx, afor.QueueSize(0)) {
		if cur.ID == s.ID {
			return nil
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return fmt.Errorf("lifecycle: wait for %s: %w", s.Label, ros.ErrClosed)
}

// Trigger runs transition t from the current state, as the change_state
// service does: by its label when it has one (the "shutdown" of the
// current state, for instance), else by its id. It returns the state the
// node is in afterwards, and nil when the transition succeeded, or an
// error matching [ErrInvalidTransition] (t does not start from the current
// state, or another transition runs: nothing changed), [ErrFailure] (the
// handler refused: the node is back where it started) or [ErrHandler] (the
// handler erred or panicked: the node went through error processing).
//
// The handler runs on the caller's goroutine, with a ctx that ends when
// ctx does or the node closes.
func (n *Node) Trigger(ctx context.Context, t Transition) (State, error) {
	if err := ctx.Err(); err != nil {
		return n.State(), err
	}
	return n.trigger(ctx, t, false)
}

// Configure triggers the "configure" transition (see [Node.Trigger]).
func (n *Node) Configure(ctx context.Context) (State, error) { return n.Trigger(ctx, Configure) }

// Activate triggers the "activate" transition.
func (n *Node) Activate(ctx context.Context) (State, error) { return n.Trigger(ctx, Activate) }

// Deactivate triggers the "deactivate" transition.
func (n *Node) Deactivate(ctx context.Context) (State, error) { return n.Trigger(ctx, Deactivate) }

// Cleanup triggers the "cleanup" transition.
func (n *Node) Cleanup(ctx context.Context) (State, error) { return n.Trigger(ctx, Cleanup) }

// Shutdown triggers the "shutdown" transition of the current state.
func (n *Node) Shutdown(ctx context.Context) (State, error) {
	return n.Trigger(ctx, Shutdown)
}

// trigger runs t as rclpy's LifecycleNode does: into the transition
// state, its handler, out of it by the handler's result, and on an error
// the error processing handler and out of errorprocessing. remote logs an
// invalid transition as a warning (its caller only learns "failed").
func (n *Node) trigger(ctx context.Context, t Transition, remote bool) (State, error) {
	n.mu.Lock()
	if n.closed {
		cur := n.state
		n.mu.Unlock()
		return cur, fmt.Errorf("lifecycle: %s: %w", describe(t), ros.ErrClosed)
	}
	start := n.state
	var td TransitionDescription
	ok := false
	if !IsTransitionState(start) { // a transition is running: nothing may start
		if t.Label != "" {
			td, ok = byLabel(start, t.Label)
		} else {
			td, ok = byID(start, t.ID)
		}
	}
	if !ok {
		n.mu.Unlock()
		level := slog.LevelDebug
		if remote {
			level = slog.LevelWarn
		}
		n.logger.Log(context.Background(), level, "lifecycle: unable to start transition", "transition", describe(t), "state", start.Label)
		return start, fmt.Errorf("%w: no transition %s from state %s", ErrInvalidTransition, describe(t), start.Label)
	}
	n.enterLocked(td)
	n.mu.Unlock()

	hctx, cancel := n.handlerContext(ctx)
	herr := n.run(hctx, td.GoalState, start)
	cancel()
	result := resultLabel(herr)
	end := n.leave(td.GoalState, result)
	switch result {
	case LabelSuccess:
		return end, nil
	case LabelFailure:
		return end, fmt.Errorf("lifecycle: %s from %s: %w", td.Transition.Label, start.Label, herr)
	}
	n.logger.Warn("lifecycle: transition handler error: error processing", "transition", td.Transition.Label, "err", herr)
	eerr := n.run(n.life, ErrorProcessing, start)
	end = n.leave(ErrorProcessing, resultLabel(eerr))
	err := fmt.Errorf("lifecycle: %s from %s: %w: %w", td.Transition.Label, start.Label, ErrHandler, herr)
	if eerr != nil {
		err = errors.Join(err, fmt.Errorf("lifecycle: error processing: %w", eerr))
	}
	return end, err
}

// leave takes the node out of transition state from by the transition
// labelled result, and returns the state it enters.
func (n *Node) leave(from State, result string) State {
	n.mu.Lock()
	defer n.mu.Unlock()
	td, _ := byLabel(from, result) // every transition state has the three
	n.enterLocked(td)
	return td.GoalState
}

// enterLocked takes transition td: the node's state becomes its goal, the
// lifecycle publishers follow, and the change is published and given to
// Events. Called with mu held, so that events keep their order.
func (n *Node) enterLocked(td TransitionDescription) {
	n.state = td.GoalState
	on := td.GoalState.ID == Activating.ID || td.GoalState.ID == Active.ID
	if on && !n.enabled.Load() {
		n.epoch.Add(1)
	}
	n.enabled.Store(on)
	n.logger.Debug("lifecycle: "+td.StartState.Label+" -> "+td.GoalState.Label, "transition", td.Transition.Label)
	msg := lifecycle_msgs.TransitionEvent{StartState: td.StartState, GoalState: td.GoalState}
	if err := n.pub.Publish(context.Background(), &msg); err != nil && !errors.Is(err, ros.ErrClosed) {
		n.logger.Warn("lifecycle: could not publish the transition event", "err", err)
	}
	n.states.Input(td.GoalState)
	n.events.Input(Event{Transition: td.Transition, Start: td.StartState, Goal: td.GoalState})
}

// handlerContext returns the ctx of a handler run for a caller's ctx: it
// ends with ctx or when the node closes.
func (n *Node) handlerContext(ctx context.Context) (context.Context, context.CancelFunc) {
	hctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(n.life, cancel)
	return hctx, func() { stop(); cancel() }
}

// run runs the handler of transition state s, turning a panic into an
// error.
func (n *Node) run(ctx context.Context, s State, from State) (err error) {
	h := n.handlers[s.ID]
	if h == nil {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			n.logger.Error("lifecycle: a transition handler panicked", "state", s.Label, "panic", r)
			err = fmt.Errorf("lifecycle: %s handler panicked: %v", s.Label, r)
		}
	}()
	return h(ctx, from)
}

// resultLabel maps a handler's result to the label of the transition out
// of its transition state.
func resultLabel(err error) string {
	switch {
	case err == nil:
		return LabelSuccess
	case errors.Is(err, ErrFailure):
		return LabelFailure
	}
	return LabelError
}

// describe names a requested transition: its label, else its id.
func describe(t Transition) string {
	if t.Label != "" {
		return strconv.Quote(t.Label)
	}
	return strconv.Itoa(int(t.ID))
}

// end stops the node's goroutines and closes its subs; it runs once, on
// Close or when the ros node closes under it.
func (n *Node) end() {
	n.endOnce.Do(func() {
		n.mu.Lock()
		n.closed = true
		n.mu.Unlock()
		n.stopLife()
		n.events.Close()
		n.states.Close()
	})
}

// Close closes the managed node: it ends the ctx of a running handler,
// waits for the lifecycle goroutines (a handler that ignores its ctx
// delays it) and closes the ros node. It does not run the shutdown
// transition: trigger it first for an orderly exit. Close is idempotent.
func (n *Node) Close() error {
	n.end()
	for _, s := range n.servers {
		s.Close()
	}
	n.wg.Wait()
	return n.Node.Close()
}
