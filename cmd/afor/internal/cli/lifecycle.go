package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/lifecycle"
)

func lifecycleCommands() []command {
	return []command{
		{"lifecycle nodes", "[-a] [-c]", "list the managed (lifecycle) nodes", lifecycleNodes},
		{"lifecycle get", "[NODE]", "print a managed node's state (of every one without NODE)", lifecycleGet},
		{"lifecycle list", "NODE [-a]", "list the transitions available from a node's state (all with -a)", lifecycleList},
		{"lifecycle set", "NODE TRANSITION", "trigger a transition, by label (configure) or id (1)", lifecycleSet},
	}
}

// lifecycleNodeNames returns the managed nodes of g, as ros2lifecycle
// finds them: those with a get_state service of type
// lifecycle_msgs/srv/GetState; hidden ones only with all.
func lifecycleNodeNames(g *ros.GraphSnapshot, all bool) []string {
	return nodeNames(g, func(fq string) bool {
		if !all && hidden(fq) {
			return false
		}
		return slices.ContainsFunc(g.Servers(fq+"/get_state"), func(e ros.Endpoint) bool {
			return e.Type == "lifecycle_msgs/srv/GetState"
		})
	})
}

// absoluteNode makes a node name absolute, as ros2node's
// get_absolute_node_name does.
func absoluteNode(name string) string {
	if name != "" && !strings.HasPrefix(name, "/") {
		return "/" + name
	}
	return name
}

// lifecycleSetup opens the command's node, reads the graph, and checks
// that node (when not "") is a managed node.
func lifecycleSetup(ctx context.Context, rf *rosFlags, node string, all bool) (*cliNode, []string, error) {
	cn, err := rf.open(ctx)
	if err != nil {
		return nil, nil, err
	}
	g, err := rf.snapshot(ctx, cn)
	if err != nil {
		cn.Close()
		return nil, nil, err
	}
	names := lifecycleNodeNames(g, all)
	if node != "" && !slices.Contains(names, node) {
		cn.Close()
		return nil, nil, fmt.Errorf("Node not found: %s is not in the graph or is not a managed node (afor lifecycle nodes lists them)", node)
	}
	return cn, names, nil
}

// lifecycleClient returns a ready client of node's lifecycle.
func lifecycleClient(ctx context.Context, cn *cliNode, node string, timeout time.Duration) (*lifecycle.Client, error) {
	c, err := lifecycle.NewClient(cn.node, node)
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := c.WaitReady(wctx); err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, fmt.Errorf("the lifecycle services of %s did not answer (waited %v)", node, timeout)
	}
	return c, nil
}

func lifecycleNodes(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "lifecycle nodes", "[-a] [-c]", "List the managed (lifecycle) nodes of the ROS graph.")
	rf := f.ros(false)
	all := f.Bool("a", false, "also list hidden nodes (names starting with _)")
	f.BoolVar(all, "all", false, "same as -a")
	count := f.Bool("c", false, "print the number of nodes only")
	f.BoolVar(count, "count-nodes", false, "same as -c")
	if _, err := f.parse(args, 0, 0); err != nil {
		return err
	}
	cn, names, err := lifecycleSetup(ctx, rf, "", *all)
	if err != nil {
		return err
	}
	cn.Close()
	if *count {
		fmt.Fprintln(env.Stdout, len(names))
		return nil
	}
	printLines(env, names)
	return nil
}

func lifecycleGet(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "lifecycle get", "[NODE]", "Print the lifecycle state of NODE, or of every managed node.")
	rf := f.ros(false)
	hiddenToo := f.Bool("include-hidden-nodes", false, "consider hidden nodes as well")
	timeout := f.Duration("timeout", 5*time.Second, "how long to wait for a node's lifecycle services")
	pos, err := f.parse(args, 0, 1)
	if err != nil {
		return err
	}
	node := ""
	if len(pos) == 1 {
		node = absoluteNode(pos[0])
	}
	cn, names, err := lifecycleSetup(ctx, rf, node, *hiddenToo)
	if err != nil {
		return err
	}
	defer cn.Close()
	query := names
	if node != "" {
		query = []string{node}
	}
	for _, name := range query {
		c, err := lifecycleClient(ctx, cn, name, *timeout)
		var s lifecycle.State
		if err == nil {
			s, err = c.State(ctx)
		}
		if err != nil {
			if node != "" {
				return fmt.Errorf("Exception while calling service of node '%s': %w", name, err)
			}
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			fmt.Fprintf(env.Stderr, "Exception while calling service of node '%s': %v\n", name, err)
			continue
		}
		prefix := ""
		if node == "" {
			prefix = name + ": "
		}
		fmt.Fprintf(env.Stdout, "%s%s [%d]\n", prefix, s.Label, s.ID)
	}
	return nil
}

func lifecycleList(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "lifecycle list", "NODE [-a]", "List the transitions available from the state of NODE, or all of its transitions.")
	rf := f.ros(false)
	hiddenToo := f.Bool("include-hidden-nodes", false, "consider hidden nodes as well")
	all := f.Bool("a", false, "list every transition of the state machine")
	f.BoolVar(all, "all", false, "same as -a")
	timeout := f.Duration("timeout", 5*time.Second, "how long to wait for the node's lifecycle services")
	pos, err := f.parse(args, 1, 1)
	if err != nil {
		return err
	}
	node := absoluteNode(pos[0])
	cn, _, err := lifecycleSetup(ctx, rf, node, *hiddenToo)
	if err != nil {
		return err
	}
	defer cn.Close()
	c, err := lifecycleClient(ctx, cn, node, *timeout)
	if err != nil {
		return err
	}
	var ts []lifecycle.TransitionDescription
	if *all {
		ts, err = c.TransitionGraph(ctx)
	} else {
		ts, err = c.AvailableTransitions(ctx)
	}
	if err != nil {
		return fmt.Errorf("Exception while calling service of node '%s': %w", pos[0], err)
	}
	for _, t := range ts {
		fmt.Fprintf(env.Stdout, "- %s [%d]\n\tStart: %s\n\tGoal: %s\n", t.Transition.Label, t.Transition.ID, t.StartState.Label, t.GoalState.Label)
	}
	return nil
}

// errTransitionFailed is the error of a lifecycle set the node answered
// as unsuccessful.
var errTransitionFailed = errors.New("the node refused or failed the transition (afor lifecycle get shows where it is)")

func lifecycleSet(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "lifecycle set", "NODE TRANSITION", "Trigger the transition TRANSITION (a label such as configure, or an id such as 1) of NODE, and wait for its end.")
	rf := f.ros(false)
	hiddenToo := f.Bool("include-hidden-nodes", false, "consider hidden nodes as well")
	timeout := f.Duration("timeout", 5*time.Second, "how long to wait for the node's lifecycle services")
	pos, err := f.parse(args, 2, 2)
	if err != nil {
		return err
	}
	node := absoluteNode(pos[0])
	cn, _, err := lifecycleSetup(ctx, rf, node, *hiddenToo)
	if err != nil {
		return err
	}
	defer cn.Close()
	c, err := lifecycleClient(ctx, cn, node, *timeout)
	if err != nil {
		return err
	}
	ts, err := c.AvailableTransitions(ctx)
	if err != nil {
		return fmt.Errorf("Exception while calling service of node '%s': %w", pos[0], err)
	}
	// As ros2 lifecycle set: a label first, then an id.
	i := slices.IndexFunc(ts, func(t lifecycle.TransitionDescription) bool { return t.Transition.Label == pos[1] })
	if i < 0 {
		i = slices.IndexFunc(ts, func(t lifecycle.TransitionDescription) bool { return strconv.Itoa(int(t.Transition.ID)) == pos[1] })
	}
	if i < 0 {
		var b strings.Builder
		b.WriteString("Unknown transition requested, available ones are:")
		for _, t := range ts {
			fmt.Fprintf(&b, "\n- %s [%d]", t.Transition.Label, t.Transition.ID)
		}
		return errors.New(b.String())
	}
	err = c.ChangeState(ctx, ts[i].Transition)
	switch {
	case err == nil:
		fmt.Fprintln(env.Stdout, "Transitioning successful")
		return nil
	case errors.Is(err, lifecycle.ErrRejected):
		fmt.Fprintln(env.Stderr, "Transitioning failed")
		return errTransitionFailed
	}
	return fmt.Errorf("Exception while calling service of node '%s': %w", pos[0], err)
}
