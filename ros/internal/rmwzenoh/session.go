package rmwzenoh

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/transport/zenoh"
)

// rmw_zenoh's default session endpoints (DEFAULT_RMW_ZENOH_SESSION_CONFIG).
const (
	DefaultConnect = "tcp/localhost:7447"
	DefaultListen  = "tcp/localhost:0"
)

// Config configures a Session.
type Config struct {
	// Zenoh configures the Zenoh session underneath. When it sets neither
	// Listen nor Connect endpoints nor multicast scouting, rmw_zenoh's
	// defaults apply: peer mode (unless Mode says otherwise), connecting
	// to DefaultConnect (a router, redialled until one answers) and
	// listening on DefaultListen. A zero Lease and KeepAlive become
	// DefaultLease and DefaultKeepAlive, and a zero Gossip rmw_zenoh's
	// gossip (to routers only, the greater ZID dialling; set
	// Gossip.Disabled to turn it off). Its Logger defaults to Logger.
	Zenoh zenoh.Config
	// DomainID is the ROS domain (ROS_DOMAIN_ID), at least 0.
	DomainID int
	// Logger receives diagnostics. Default: discard.
	Logger *slog.Logger
}

// Stats counts what a Session received from peers and dropped.
type Stats struct {
	// DroppedSamples counts samples without a valid rmw_zenoh attachment.
	DroppedSamples uint64
	// DroppedRequests counts service requests without a valid attachment
	// (answered with an error reply).
	DroppedRequests uint64
	// DroppedReplies counts replies without a valid attachment or that
	// match no request of the client.
	DroppedReplies uint64
	// BadTokens counts liveliness tokens under @ros2_lv that do not parse.
	BadTokens uint64
}

// Session is an rmw.Session over one Zenoh session, with rmw_zenoh_cpp's
// conventions. All methods are safe for concurrent use.
type Session struct {
	z      *zenoh.Session
	domain int
	zid    string
	log    *slog.Logger
	graph  *graph

	ids     atomic.Uint64 // next node or entity id, one counter as rmw_zenoh
	lastHLC atomic.Uint64 // last NTP64 time stamped on a sample

	droppedSamples, droppedRequests, droppedReplies atomic.Uint64

	mu     sync.Mutex
	nodes  map[*node]struct{}
	closed bool
}

var _ rmw.Session = (*Session)(nil)

// Open starts a Zenoh session with cfg and announces nothing yet: nodes
// appear on the graph as they are created. It subscribes to the graph
// (the liveliness tokens under @ros2_lv/<domain>/**, with history).
func Open(ctx context.Context, cfg Config) (*Session, error) {
	if cfg.DomainID < 0 {
		return nil, fmt.Errorf("%w: domain id %d", ErrInvalid, cfg.DomainID)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	z, err := zenoh.Open(ctx, zenohConfig(cfg.Zenoh, log))
	if err != nil {
		return nil, err
	}
	s := &Session{z: z, domain: cfg.DomainID, zid: zidFromSession(z.ZID()), log: log, nodes: make(map[*node]struct{})}
	s.graph, err = newGraph(s)
	if err != nil {
		_ = z.Close()
		return nil, err
	}
	return s, nil
}

// rmw_zenoh's default lease and keep-alive period (lease 60 s, two
// keep-alives per lease).
const (
	DefaultLease     = 60 * time.Second
	DefaultKeepAlive = DefaultLease / 2
)

// zenohConfig applies rmw_zenoh's defaults to zc (see Config.Zenoh).
func zenohConfig(zc zenoh.Config, log *slog.Logger) zenoh.Config {
	if len(zc.Listen) == 0 && len(zc.Connect) == 0 && !zc.Scouting.Multicast {
		zc.Connect = []string{DefaultConnect}
		if zc.Mode == zenoh.ModePeer {
			zc.Listen = []string{DefaultListen}
		}
	}
	if zc.Lease == 0 && zc.KeepAlive == 0 {
		zc.Lease, zc.KeepAlive = DefaultLease, DefaultKeepAlive
	}
	if g := zc.Gossip; !g.Disabled && g.Target == nil && g.Autoconnect == nil && g.ToPeer == zenoh.AutoconnectAlways {
		zc.Gossip = rmwGossip()
	}
	if zc.Logger == nil {
		zc.Logger = log
	}
	return zc
}

// rmwGossip returns the gossip settings of rmw_zenoh's session config:
// gossip on, multihop off, a peer gossiping to routers only and linking
// to the routers and peers it learns of, dialling a peer only when its
// own ZID is the greater.
func rmwGossip() zenoh.GossipConfig {
	return zenoh.GossipConfig{
		Target:      []zenoh.Role{zenoh.RoleRouter},
		Autoconnect: []zenoh.Role{zenoh.RoleRouter, zenoh.RolePeer},
		ToPeer:      zenoh.AutoconnectGreaterZID,
	}
}

// ZID returns the session's Zenoh ID as rmw_zenoh writes it in tokens.
func (s *Session) ZID() string { return s.zid }

// Graph returns the graph as this session sees it: a new snapshot is input
// on every change.
func (s *Session) Graph() *afor.Sub[*rmw.Graph] { return s.graph.sub }

// Stats returns the counts of dropped input.
func (s *Session) Stats() Stats {
	return Stats{
		DroppedSamples:  s.droppedSamples.Load(),
		DroppedRequests: s.droppedRequests.Load(),
		DroppedReplies:  s.droppedReplies.Load(),
		BadTokens:       s.graph.badTokens.Load(),
	}
}

// CreateNode announces a node: it takes the next id of the session's
// counter and declares the node's liveliness token.
func (s *Session) CreateNode(name rmw.NodeName) (rmw.Node, error) {
	if err := checkName("node name", name.Name); err != nil {
		return nil, err
	}
	name.Namespace, name.Enclave = orRoot(name.Namespace), orRoot(name.Enclave)
	for _, p := range []string{name.Namespace, name.Enclave} {
		if err := checkName("namespace or enclave", p); err != nil || p[0] != '/' {
			return nil, fmt.Errorf("%w: namespace or enclave %q must be absolute", ErrInvalid, p)
		}
	}
	n := &node{s: s, name: name, entities: make(map[closer]struct{})}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	n.id = s.nextID()
	s.nodes[n] = struct{}{}
	s.mu.Unlock()
	tok, err := s.z.DeclareToken(nodeToken(s.domain, s.zid, n.id, name))
	if err != nil {
		s.forget(n)
		return nil, err
	}
	n.mu.Lock()
	n.token = tok
	closed := n.closed
	n.mu.Unlock()
	if closed { // the session closed it meanwhile
		_ = tok.Undeclare()
		return nil, ErrClosed
	}
	return n, nil
}

// nextID takes the next value of the session's id counter (from 0).
func (s *Session) nextID() uint64 { return s.ids.Add(1) - 1 }

// forget removes a closed node.
func (s *Session) forget(n *node) {
	s.mu.Lock()
	delete(s.nodes, n)
	s.mu.Unlock()
}

// Close closes every node, the graph and the Zenoh session.
func (s *Session) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	nodes := make([]*node, 0, len(s.nodes))
	for n := range s.nodes {
		nodes = append(nodes, n)
	}
	s.mu.Unlock()
	for _, n := range nodes {
		_ = n.Close()
	}
	s.graph.close()
	return s.z.Close()
}

// timestamp returns an HLC timestamp for a sample sent at t: Unix-epoch
// NTP64, strictly increasing over the session (rmw_zenoh's subscribers
// drop a sample whose timestamp is not greater than the last one from the
// same session).
func (s *Session) timestamp(t time.Time) zenoh.Timestamp {
	ts := zenoh.NewTimestamp(t, nil)
	for {
		last := s.lastHLC.Load()
		v := max(ts.NTP64, last+1)
		if s.lastHLC.CompareAndSwap(last, v) {
			ts.NTP64 = v
			return ts
		}
	}
}

// String describes the session for logs.
func (s *Session) String() string {
	return "rmw_zenoh session " + s.zid + " domain " + strconv.Itoa(s.domain)
}

// ListenAddrs returns the endpoints the Zenoh session accepts links on,
// with the actual ports.
func (s *Session) ListenAddrs() []string { return s.z.ListenAddrs() }
