package ros

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/afor-go/afor/ros/internal/names"
	"github.com/afor-go/afor/ros/internal/rmw"
)

// Node is a ROS 2 node: a name in the graph that owns publishers,
// subscriptions, services and clients. Its methods are safe for concurrent
// use. Close it to remove it and its entities from the graph.
type Node struct {
	ctx       *Context
	rn        rmw.Node
	name      string
	namespace string
	rules     []names.Rule // the node's own rules, then the context's
	logger    *slog.Logger
	owns      bool // the node closes its private context
	malformed atomic.Uint64

	// Parameters, /rosout and the ROS clock (param.go, rosout.go, clock.go).
	params paramState
	rosout *rosoutSink // nil with WithRosout(false)
	clock  *Clock

	qosEvents qosEventHub // incompatible QoS callbacks (qos_event.go)
	subEvents sync.Map    // *afor.Sub[V] -> *subscriptionEvents (events.go)
	types     typeCache   // the types the node uses (type_description.go)

	mu      sync.Mutex
	closed  bool
	nextID  uint64
	closers map[uint64]func() error
}

// NewNode creates a node named name on a context of its own, closed with
// the node. opts are context options ([WithDomainID], [WithMiddleware],
// [WithEnclave], [WithArgs], [WithLogger]) and node options
// ([WithNamespace]). Several nodes can share a context: see [Open].
//
// The name and namespace are validated as rmw does, then renamed by the
// "__node:=" and "__ns:=" rules of WithArgs, as rcl does. An invalid name
// is an error matching ErrInvalidName.
func NewNode(ctx context.Context, name string, opts ...Option) (*Node, error) {
	o := collect(opts)
	if err := names.ValidateNodeName(name); err != nil {
		return nil, fmt.Errorf("ros: %w", err)
	}
	c, err := open(ctx, o)
	if err != nil {
		return nil, err
	}
	o.args, o.argsSet = nil, false // they are the context's rules
	n, err := c.newNode(name, o, true)
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	return n, nil
}

func (c *Context) newNode(name string, o options, owns bool) (*Node, error) {
	if err := names.ValidateNodeName(name); err != nil {
		return nil, fmt.Errorf("ros: %w", err)
	}
	var rules []names.Rule
	overrides := c.params
	if o.argsSet {
		a, err := names.ParseArgs(o.args)
		if err != nil {
			return nil, fmt.Errorf("ros: %w", err)
		}
		rules = append(rules, a.Rules...)
		own, err := loadParamArgs(a.Params)
		if err != nil {
			return nil, err
		}
		overrides = append(overrides[:len(overrides):len(overrides)], own...)
	}
	rules = append(rules, c.rules...)
	ns := o.namespace
	switch {
	case ns == "":
		ns = "/"
	case ns[0] != '/':
		ns = "/" + ns
	}
	if err := names.ValidateNamespace(ns); err != nil {
		return nil, fmt.Errorf("ros: %w", err)
	}
	finalName := names.NodeName(rules, name, ns)
	ns = names.Namespace(rules, name, ns)
	logger := o.logger
	if logger == nil {
		logger = c.logger
	}
	n := &Node{ctx: c, name: finalName, namespace: ns, rules: rules, owns: owns, closers: map[uint64]func() error{}}
	n.logger = logger.With("node", n.FullyQualifiedName())
	n.clock = newClock(n)
	n.initParams(overrides)
	if err := c.addNode(n); err != nil {
		return nil, err
	}
	if err := n.startBuiltins(o, logger); err != nil {
		_ = n.closeEntities()
		c.removeNode(n)
		return nil, fmt.Errorf("ros: new node %s: %w", n.FullyQualifiedName(), err)
	}
	return n, nil
}

// addNode creates the middleware's node and adds it to the context.
func (c *Context) addNode(n *Node) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return fmt.Errorf("ros: new node %s: %w", n.FullyQualifiedName(), ErrClosed)
	}
	rn, err := c.sess.CreateNode(rmw.NodeName{Namespace: n.namespace, Name: n.name, Enclave: c.enclave})
	if err != nil {
		return fmt.Errorf("ros: new node %s: %w", n.FullyQualifiedName(), err)
	}
	n.rn = rn
	c.nodes = append(c.nodes, n)
	return nil
}

// Name returns the node's name, after remapping.
func (n *Node) Name() string { return n.name }

// Namespace returns the node's namespace, after remapping: "/" or "/a/b".
func (n *Node) Namespace() string { return n.namespace }

// FullyQualifiedName returns the namespace and name: "/a/b/talker".
func (n *Node) FullyQualifiedName() string {
	if n.namespace == "/" {
		return "/" + n.name
	}
	return n.namespace + "/" + n.name
}

// Context returns the context the node runs on.
func (n *Node) Context() *Context { return n.ctx }

// Logger returns the node's logger.
func (n *Node) Logger() *slog.Logger { return n.logger }

// ResolveTopicName returns the fully qualified name a topic name stands for
// on this node: validated, expanded ("~/x", "{node}", relative names) and
// remapped, as rcl_node_resolve_name does.
func (n *Node) ResolveTopicName(name string) (string, error) { return n.resolve(name, false) }

// ResolveServiceName is ResolveTopicName for a service name (rules limited
// to topics with "rostopic://" do not apply, those limited to services with
// "rosservice://" do).
func (n *Node) ResolveServiceName(name string) (string, error) { return n.resolve(name, true) }

func (n *Node) resolve(name string, service bool) (string, error) {
	full, err := names.Resolve(n.rules, name, n.name, n.namespace, service)
	if err != nil {
		return "", fmt.Errorf("ros: %w", err)
	}
	return full, nil
}

// NodeStats counts what a node's entities lost.
type NodeStats struct {
	// Malformed counts the messages, requests and replies that did not
	// decode as their type and were dropped.
	Malformed uint64
}

// Stats returns the node's counters.
func (n *Node) Stats() NodeStats { return NodeStats{Malformed: n.malformed.Load()} }

// malformedInput counts and logs a payload that did not decode: the first
// of an entity at Warn, the others at Debug.
func (n *Node) malformedInput(what, name string, first *atomic.Bool, err error) {
	n.malformed.Add(1)
	level := slog.LevelDebug
	if first.CompareAndSwap(false, true) {
		level = slog.LevelWarn
	}
	n.logger.Log(context.Background(), level, "ros: dropped a malformed "+what, "name", name, "err", err)
}

// checkOpen returns an error matching ErrClosed once the node is closed.
func (n *Node) checkOpen() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return fmt.Errorf("ros: node %s: %w", n.FullyQualifiedName(), ErrClosed)
	}
	return nil
}

// track registers the closing of an entity with the node; the returned
// function unregisters it. It fails once the node is closed.
func (n *Node) track(close func() error) (untrack func(), err error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil, fmt.Errorf("ros: node %s: %w", n.FullyQualifiedName(), ErrClosed)
	}
	n.nextID++
	id := n.nextID
	n.closers[id] = close
	return func() {
		n.mu.Lock()
		delete(n.closers, id)
		n.mu.Unlock()
	}, nil
}

// closeEntities closes the node's entities and removes it from the graph.
func (n *Node) closeEntities() error {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return nil
	}
	n.closed = true
	closers := n.closers
	n.closers = nil
	n.mu.Unlock()
	var errs []error
	for _, f := range closers {
		errs = append(errs, f())
	}
	errs = append(errs, n.rn.Close())
	return errors.Join(errs...)
}

// Close closes the node's publishers, subscriptions (their subs end),
// services and clients, and removes the node from the graph; a node made
// with [NewNode] also closes its context. Close is idempotent.
func (n *Node) Close() error {
	err := n.closeEntities()
	n.ctx.removeNode(n)
	if n.owns {
		err = errors.Join(err, n.ctx.Close())
	}
	return err
}

func (n *Node) String() string { return n.FullyQualifiedName() }
