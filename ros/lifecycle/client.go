package lifecycle

import (
	"context"
	"fmt"
	"strings"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/lifecycle_msgs"
)

// Client drives another managed node through its lifecycle services, as
// ros2 lifecycle and Nav2's lifecycle manager do; the node may be written
// with rclpy, rclcpp or this package. Create one with [NewClient]; it lives
// as long as its node.
type Client struct {
	node        *ros.Node
	target      string
	change      *afor.Client[lifecycle_msgs.ChangeStateRequest, lifecycle_msgs.ChangeStateResponse]
	get         *afor.Client[lifecycle_msgs.GetStateRequest, lifecycle_msgs.GetStateResponse]
	states      *afor.Client[lifecycle_msgs.GetAvailableStatesRequest, lifecycle_msgs.GetAvailableStatesResponse]
	transitions *afor.Client[lifecycle_msgs.GetAvailableTransitionsRequest, lifecycle_msgs.GetAvailableTransitionsResponse]
	graph       *afor.Client[lifecycle_msgs.GetAvailableTransitionsRequest, lifecycle_msgs.GetAvailableTransitionsResponse]
}

// NewClient creates, on node n, a client of the lifecycle of the node
// named target: a fully qualified name ("/camera") or one relative to n's
// namespace.
//
//	c, err := lifecycle.NewClient(node, "/camera")
//	err = c.WaitReady(ctx)
//	err = c.ChangeState(ctx, lifecycle.Configure)
func NewClient(n *ros.Node, target string) (*Client, error) {
	target = strings.TrimSuffix(target, "/")
	full, err := n.ResolveServiceName(target)
	if err != nil {
		return nil, err
	}
	c := &Client{node: n, target: full}
	name := func(s string) string { return full + "/" + s }
	if c.change, err = ros.NewClient(n, name("change_state"), lifecycle_msgs.ChangeState{}); err != nil {
		return nil, err
	}
	if c.get, err = ros.NewClient(n, name("get_state"), lifecycle_msgs.GetState{}); err != nil {
		return nil, err
	}
	if c.states, err = ros.NewClient(n, name("get_available_states"), lifecycle_msgs.GetAvailableStates{}); err != nil {
		return nil, err
	}
	if c.transitions, err = ros.NewClient(n, name("get_available_transitions"), lifecycle_msgs.GetAvailableTransitions{}); err != nil {
		return nil, err
	}
	if c.graph, err = ros.NewClient(n, name("get_transition_graph"), lifecycle_msgs.GetAvailableTransitions{}); err != nil {
		return nil, err
	}
	return c, nil
}

// Target returns the fully qualified name of the managed node.
func (c *Client) Target() string { return c.target }

// WaitReady waits until the target's lifecycle services are in the graph.
func (c *Client) WaitReady(ctx context.Context) error {
	for _, w := range []interface{ WaitForServer(context.Context) error }{c.change, c.get, c.states, c.transitions, c.graph} {
		if err := w.WaitForServer(ctx); err != nil {
			return fmt.Errorf("lifecycle: services of %s: %w", c.target, err)
		}
	}
	return nil
}

// State returns the target's current state.
func (c *Client) State(ctx context.Context) (State, error) {
	res, err := c.get.Call(ctx, lifecycle_msgs.GetStateRequest{})
	if err != nil {
		return State{}, fmt.Errorf("lifecycle: state of %s: %w", c.target, err)
	}
	return res.CurrentState, nil
}

// ChangeState asks the target to run transition t, by its label when it
// has one, else by its id (the change_state service's rule), and waits
// until the transition is over: a long activation is waited for, within
// ctx. An unsuccessful answer is an error matching [ErrRejected].
func (c *Client) ChangeState(ctx context.Context, t Transition) error {
	res, err := c.change.Call(ctx, lifecycle_msgs.ChangeStateRequest{Transition: t})
	if err != nil {
		return fmt.Errorf("lifecycle: %s of %s: %w", describe(t), c.target, err)
	}
	if !res.Success {
		return fmt.Errorf("%w: %s of %s", ErrRejected, describe(t), c.target)
	}
	return nil
}

// AvailableStates returns every state of the target's state machine.
func (c *Client) AvailableStates(ctx context.Context) ([]State, error) {
	res, err := c.states.Call(ctx, lifecycle_msgs.GetAvailableStatesRequest{})
	if err != nil {
		return nil, fmt.Errorf("lifecycle: states of %s: %w", c.target, err)
	}
	return res.AvailableStates, nil
}

// AvailableTransitions returns the transitions out of the target's current
// state.
func (c *Client) AvailableTransitions(ctx context.Context) ([]TransitionDescription, error) {
	res, err := c.transitions.Call(ctx, lifecycle_msgs.GetAvailableTransitionsRequest{})
	if err != nil {
		return nil, fmt.Errorf("lifecycle: transitions of %s: %w", c.target, err)
	}
	return res.AvailableTransitions, nil
}

// TransitionGraph returns every transition of the target's state machine.
func (c *Client) TransitionGraph(ctx context.Context) ([]TransitionDescription, error) {
	res, err := c.graph.Call(ctx, lifecycle_msgs.GetAvailableTransitionsRequest{})
	if err != nil {
		return nil, fmt.Errorf("lifecycle: transition graph of %s: %w", c.target, err)
	}
	return res.AvailableTransitions, nil
}

// Events subscribes to the target's "transition_event" topic: every
// change of state from now on, as the node publishes it (rcl_lifecycle
// and this package leave the transition empty: start and goal states
// only). Closing the sub ends the subscription.
func (c *Client) Events(opts ...afor.Option) (*afor.Sub[lifecycle_msgs.TransitionEvent], error) {
	return ros.Subscribe[lifecycle_msgs.TransitionEvent](c.node, c.target+"/transition_event", ros.QoSDefault, opts...)
}
