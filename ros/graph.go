package ros

import (
	"context"
	"fmt"
	"slices"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/internal/rmw"
)

// EndpointKind says what an endpoint of the graph is.
type EndpointKind uint8

// Endpoint kinds.
const (
	KindPublisher EndpointKind = iota + 1
	KindSubscription
	KindServer
	KindClient
)

func (k EndpointKind) String() string {
	switch k {
	case KindPublisher:
		return "publisher"
	case KindSubscription:
		return "subscription"
	case KindServer:
		return "server"
	case KindClient:
		return "client"
	}
	return fmt.Sprintf("EndpointKind(%d)", uint8(k))
}

// NodeInfo names a node of the graph.
type NodeInfo struct {
	Name      string
	Namespace string // "/" or "/a/b"
	Enclave   string
}

// unknownNodeName is the name rmw_dds_common gives, and the ROS tools show,
// for an endpoint no node has claimed (yet).
const unknownNodeName = "_NODE_NAME_UNKNOWN_"

// Known reports whether n names a node: false for the zero NodeInfo and for
// the placeholder "_NODE_NAMESPACE_UNKNOWN_/_NODE_NAME_UNKNOWN_" under which
// the graph over DDS lists an endpoint whose node it does not know yet.
func (n NodeInfo) Known() bool { return n.Name != "" && n.Name != unknownNodeName }

// FullyQualifiedName returns the namespace and name: "/a/b/talker".
func (n NodeInfo) FullyQualifiedName() string {
	if n.Namespace == "/" || n.Namespace == "" {
		return "/" + n.Name
	}
	return n.Namespace + "/" + n.Name
}

func nodeInfo(n rmw.NodeName) NodeInfo {
	return NodeInfo{Name: n.Name, Namespace: n.Namespace, Enclave: n.Enclave}
}

// Endpoint is a publisher, subscription, service server or client of the
// graph.
type Endpoint struct {
	Kind     EndpointKind
	Node     NodeInfo // see NodeInfo.Known: no node may claim it (yet)
	Name     string   // fully qualified topic or service name
	Type     string   // "std_msgs/msg/String", "std_srvs/srv/SetBool"
	TypeHash string
	QoS      QoS
	GID      GID
}

// GraphSnapshot is the ROS graph at one moment. It must not be modified.
type GraphSnapshot struct {
	Nodes     []NodeInfo
	Endpoints []Endpoint
}

func snapshotFromRMW(g *rmw.Graph) *GraphSnapshot {
	s := &GraphSnapshot{Nodes: make([]NodeInfo, len(g.Nodes)), Endpoints: make([]Endpoint, len(g.Endpoints))}
	for i, n := range g.Nodes {
		s.Nodes[i] = nodeInfo(n)
	}
	for i, e := range g.Endpoints {
		kind := EndpointKind(0)
		switch e.Kind {
		case rmw.KindPublisher:
			kind = KindPublisher
		case rmw.KindSubscription:
			kind = KindSubscription
		case rmw.KindService:
			kind = KindServer
		case rmw.KindClient:
			kind = KindClient
		}
		s.Endpoints[i] = Endpoint{Kind: kind, Node: nodeInfo(e.Node), Name: e.Name, Type: e.Type,
			TypeHash: e.TypeHash, QoS: qosFromRMW(e.QoS), GID: GID(e.GID)}
	}
	return s
}

// names returns the sorted names of the endpoints of the given kinds, each
// with its sorted types.
func (g *GraphSnapshot) names(kinds ...EndpointKind) map[string][]string {
	out := map[string][]string{}
	for _, e := range g.Endpoints {
		if !slices.Contains(kinds, e.Kind) {
			continue
		}
		if !slices.Contains(out[e.Name], e.Type) {
			out[e.Name] = append(out[e.Name], e.Type)
			slices.Sort(out[e.Name])
		}
	}
	return out
}

// Topics returns every topic with a publisher or subscription, and its
// types (more than one when publishers or subscriptions disagree).
func (g *GraphSnapshot) Topics() map[string][]string {
	return g.names(KindPublisher, KindSubscription)
}

// Services returns every service with a server or client, and its types.
func (g *GraphSnapshot) Services() map[string][]string { return g.names(KindServer, KindClient) }

// EndpointsOf returns the endpoints of the given kind on the fully qualified
// name.
func (g *GraphSnapshot) EndpointsOf(kind EndpointKind, name string) []Endpoint {
	var out []Endpoint
	for _, e := range g.Endpoints {
		if e.Kind == kind && e.Name == name {
			out = append(out, e)
		}
	}
	return out
}

// Publishers returns the publishers of a fully qualified topic name.
func (g *GraphSnapshot) Publishers(topic string) []Endpoint {
	return g.EndpointsOf(KindPublisher, topic)
}

// Subscriptions returns the subscriptions of a fully qualified topic name.
func (g *GraphSnapshot) Subscriptions(topic string) []Endpoint {
	return g.EndpointsOf(KindSubscription, topic)
}

// Servers returns the servers of a fully qualified service name.
func (g *GraphSnapshot) Servers(service string) []Endpoint { return g.EndpointsOf(KindServer, service) }

// Clients returns the clients of a fully qualified service name.
func (g *GraphSnapshot) Clients(service string) []Endpoint { return g.EndpointsOf(KindClient, service) }

// HasNode reports whether a node of that fully qualified name is in the
// graph.
func (g *GraphSnapshot) HasNode(fullyQualifiedName string) bool {
	return slices.ContainsFunc(g.Nodes, func(n NodeInfo) bool { return n.FullyQualifiedName() == fullyQualifiedName })
}

// Graph is the ROS graph as a node sees it: the nodes, topics and services
// of every node that its middleware reaches, its own included. Get one with
// [Node.Graph]. Names given to its methods are resolved by the node, as
// for a publisher's topic.
type Graph struct {
	node *Node
}

// Graph returns the graph as the node sees it.
func (n *Node) Graph() *Graph { return &Graph{node: n} }

func (g *Graph) sub() *afor.Sub[*rmw.Graph] { return g.node.ctx.sess.Graph() }

// Snapshot returns the current graph.
func (g *Graph) Snapshot() *GraphSnapshot {
	v, ok := g.sub().Value()
	if !ok {
		return &GraphSnapshot{}
	}
	return snapshotFromRMW(v)
}

// Updates returns a sub of graph snapshots: its value is the current graph
// and a new one is input on every change. Close it when done; it closes
// with the context.
func (g *Graph) Updates(opts ...afor.Option) *afor.Sub[*GraphSnapshot] {
	return afor.Map(g.sub(), func(v *rmw.Graph) (*GraphSnapshot, error) { return snapshotFromRMW(v), nil }, opts...)
}

// WaitFor waits until cond holds for the graph, and returns that graph. It
// returns ctx's error when ctx ends first and an error matching ErrClosed
// when the context closes.
func (g *Graph) WaitFor(ctx context.Context, cond func(*GraphSnapshot) bool) (*GraphSnapshot, error) {
	sub := g.sub()
	for v := range sub.Listen(ctx) {
		if s := snapshotFromRMW(v); cond(s) {
			return s, nil
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("ros: graph: %w", ErrClosed)
}

func (g *Graph) waitEndpoint(ctx context.Context, kind EndpointKind, name string, service bool) error {
	full, err := g.node.resolve(name, service)
	if err != nil {
		return err
	}
	_, err = g.WaitFor(ctx, func(s *GraphSnapshot) bool { return len(s.EndpointsOf(kind, full)) > 0 })
	return err
}

// WaitForPublisher waits until topic has a publisher.
func (g *Graph) WaitForPublisher(ctx context.Context, topic string) error {
	return g.waitEndpoint(ctx, KindPublisher, topic, false)
}

// WaitForSubscriber waits until topic has a subscription.
func (g *Graph) WaitForSubscriber(ctx context.Context, topic string) error {
	return g.waitEndpoint(ctx, KindSubscription, topic, false)
}

// WaitForService waits until service has a server.
func (g *Graph) WaitForService(ctx context.Context, service string) error {
	return g.waitEndpoint(ctx, KindServer, service, true)
}

// WaitForNode waits until a node of that fully qualified name
// ("/ns/talker") is in the graph.
func (g *Graph) WaitForNode(ctx context.Context, fullyQualifiedName string) error {
	_, err := g.WaitFor(ctx, func(s *GraphSnapshot) bool { return s.HasNode(fullyQualifiedName) })
	return err
}

// warnOtherTypes logs a warning when the graph already has topic with a
// type other than typ: such endpoints never match.
func (n *Node) warnOtherTypes(topic, typ string) {
	v, ok := n.ctx.sess.Graph().Value()
	if !ok {
		return
	}
	for _, e := range v.Endpoints {
		if e.Name == topic && e.Type != typ && (e.Kind == rmw.KindPublisher || e.Kind == rmw.KindSubscription) {
			n.logger.Warn("ros: topic already has another type: its endpoints will not match", "topic", topic, "type", typ, "other", e.Type)
			return
		}
	}
}
