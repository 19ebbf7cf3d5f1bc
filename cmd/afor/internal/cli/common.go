package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/dynmsg"
	"github.com/afor-go/afor/ros/idl"
)

// This file holds the steps several ROS commands share: reading the
// graph, resolving names, the list and type commands, VALUES, the
// parameter client and the subscription of topic hz and bw.

// resolver resolves a topic or service name for a node:
// (*ros.Node).ResolveTopicName or (*ros.Node).ResolveServiceName.
type resolver func(*ros.Node, string) (string, error)

// openNamed opens the command's node and resolves name with resolve.
func (r *rosFlags) openNamed(ctx context.Context, name string, resolve resolver) (*cliNode, string, error) {
	cn, err := r.open(ctx)
	if err != nil {
		return nil, "", err
	}
	full, err := resolve(cn.node, name)
	if err != nil {
		cn.Close()
		return nil, "", err
	}
	return cn, full, nil
}

// graph opens the command's node, resolves name with resolve (nil: no
// name), waits for the graph (snapshot) and closes the node: what the
// commands that only read the graph need.
func (r *rosFlags) graph(ctx context.Context, name string, resolve resolver) (string, *ros.GraphSnapshot, error) {
	var cn *cliNode
	var err error
	if resolve == nil {
		cn, err = r.open(ctx)
	} else {
		cn, name, err = r.openNamed(ctx, name, resolve)
	}
	if err != nil {
		return "", nil, err
	}
	defer cn.Close()
	g, err := r.snapshot(ctx, cn)
	if err != nil {
		return "", nil, err
	}
	return name, g, nil
}

// graphTypes returns the types of name, a what ("topic", "service") of
// the graph given by m, or an error that says where the names are listed.
func graphTypes(m map[string][]string, what, name string) ([]string, error) {
	types, ok := m[name]
	if !ok {
		return nil, fmt.Errorf("unknown %s %s: not in the graph (afor %s list shows the %ss)", what, name, what, what)
	}
	return types, nil
}

// listCommand runs "WHAT list" (what: topic, service, action): the names
// that names reads off the graph, with their types under -t. Hidden names
// are listed only under --include-hidden-WHATs, or always when the
// command has no such flag (hiddenFlag false).
func listCommand(ctx context.Context, env *Env, args []string, what, short string, hiddenFlag bool, names func(*ros.GraphSnapshot) map[string][]string) error {
	f := newFlags(env, what+" list", "[-t]", short)
	rf := f.ros(false)
	showTypes := f.Bool("t", false, "show each "+what+"'s type")
	hiddenToo := new(bool)
	if hiddenFlag {
		f.BoolVar(hiddenToo, "include-hidden-"+what+"s", false, "also list hidden "+what+"s")
	} else {
		*hiddenToo = true
	}
	if _, err := f.parse(args, 0, 0); err != nil {
		return err
	}
	_, g, err := rf.graph(ctx, "", nil)
	if err != nil {
		return err
	}
	printNamesAndTypes(env, names(g), *showTypes, *hiddenToo)
	return nil
}

// typeCommand runs "WHAT type NAME" (what: topic, service; usage: how
// the usage line spells NAME): the types of NAME, resolved by resolve, in
// the graph given by of, one a line.
func typeCommand(ctx context.Context, env *Env, args []string, what, usage, short string, resolve resolver, of func(*ros.GraphSnapshot) map[string][]string) error {
	f := newFlags(env, what+" type", usage, short)
	rf := f.ros(false)
	pos, err := f.parse(args, 1, 1)
	if err != nil {
		return err
	}
	name, g, err := rf.graph(ctx, pos[0], resolve)
	if err != nil {
		return err
	}
	types, err := graphTypes(of(g), what, name)
	if err != nil {
		return err
	}
	printLines(env, types)
	return nil
}

// printLines prints each of lines on a line of its own.
func printLines(env *Env, lines []string) {
	for _, l := range lines {
		fmt.Fprintln(env.Stdout, l)
	}
}

// nodeNames returns the fully qualified names of the graph's nodes that
// keep accepts, sorted, each once.
func nodeNames(g *ros.GraphSnapshot, keep func(fq string) bool) []string {
	var names []string
	for _, n := range g.Nodes {
		fq := n.FullyQualifiedName()
		if keep(fq) && !slices.Contains(names, fq) {
			names = append(names, fq)
		}
	}
	slices.Sort(names)
	return names
}

// request is what topic pub, service call and action send_goal send: the
// interface type of their TYPE argument and their VALUES argument, a
// message of one part of that type, parsed and encoded.
type request[T any] struct {
	typ     T
	msg     dynmsg.Message
	payload []byte
}

// readRequest loads the registry, resolves TYPE, pos[1], with resolve,
// and reads VALUES, pos[2] (the zero message when absent), as a message
// of the part of the type that part gives.
func readRequest[T any](r *rosFlags, pos []string, resolve func(*idl.Registry, string) (T, error), part func(T) *dynmsg.Type) (*request[T], error) {
	reg, err := r.registry()
	if err != nil {
		return nil, err
	}
	typ, err := resolve(reg, pos[1])
	if err != nil {
		return nil, err
	}
	t := part(typ)
	values := ""
	if len(pos) > 2 {
		values = pos[2]
	}
	msg, err := parseValues(t, values)
	if err != nil {
		return nil, err
	}
	payload, err := t.Encode(msg)
	if err != nil {
		return nil, fmt.Errorf("VALUES %q for %s: %w", values, t.Name(), err)
	}
	return &request[T]{typ: typ, msg: msg, payload: payload}, nil
}

// longName spells an interface type name in its long form: pkg/kind/Name
// for pkg/Name (kind: msg, srv, action).
func longName(name, kind string) string {
	if strings.Count(name, "/") == 1 {
		pkg, n, _ := strings.Cut(name, "/")
		return pkg + "/" + kind + "/" + n
	}
	return name
}

// paramTimeout adds --timeout, how long the param commands wait for a
// node's parameter services; whose is "a node's" or "the node's".
func (f *flags) paramTimeout(whose string) *time.Duration {
	return f.Duration("timeout", 5*time.Second, "how long to wait for "+whose+" parameter services")
}

// openParams opens the command's node and the parameter client of node,
// waiting for its services at most timeout.
func (r *rosFlags) openParams(ctx context.Context, node string, timeout time.Duration) (*cliNode, *ros.ParameterClient, error) {
	cn, err := r.open(ctx)
	if err != nil {
		return nil, nil, err
	}
	pc, err := paramClient(ctx, cn, node, timeout)
	if err != nil {
		cn.Close()
		return nil, nil, err
	}
	return cn, pc, nil
}

// sensorSub is what topic hz and topic bw read: the messages of a topic,
// with the sensor-data QoS, and the statistics window.
type sensorSub struct {
	cn     *cliNode
	topic  string
	sub    *afor.Sub[ros.RawMessage]
	window int
}

// openSensorSub parses the flags of topic hz or bw (TOPIC, --window with
// the default window), opens the command's node and subscribes to TOPIC
// once it has a publisher. It returns nil and no error when ctx ends
// first.
func openSensorSub(ctx context.Context, env *Env, args []string, name, short string, window int) (*sensorSub, error) {
	f := newFlags(env, name, "TOPIC [flags]", short)
	rf := f.ros(true)
	f.IntVar(&window, "window", window, "window size, in messages, for the statistics")
	f.IntVar(&window, "w", window, "shorthand of --window")
	pos, err := f.parse(args, 1, 1)
	if err != nil {
		return nil, err
	}
	if window <= 0 {
		return nil, fmt.Errorf("%w: --window %d: want a positive number of messages", ErrUsage, window)
	}
	cn, topic, err := rf.openNamed(ctx, pos[0], (*ros.Node).ResolveTopicName)
	if err != nil {
		return nil, err
	}
	q := ros.QoSSensorData
	sub, _, err := rawSub(ctx, rf, cn, topic, "", true, &q)
	if err != nil {
		cn.Close()
		if ctx.Err() != nil {
			return nil, nil
		}
		return nil, err
	}
	return &sensorSub{cn: cn, topic: topic, sub: sub, window: window}, nil
}

// Close closes the subscription, then the node.
func (s *sensorSub) Close() {
	s.sub.Close()
	s.cn.Close()
}
