// Package rmwmem is a process-local ROS 2 middleware: it implements the
// rmw seam in memory, for the tests and examples of package ros and as a
// small model of what a middleware does. Sessions opened on one Network see
// each other as separate processes would: publications reach the matching
// subscriptions (same name, type and type hash), requests reach a service
// server, and every session sees the same graph.
//
// Delivery is synchronous: Publish calls each matching subscription's
// deliver function before it returns, in the order subscriptions were
// created. TRANSIENT_LOCAL publishers keep their last Depth payloads for
// TRANSIENT_LOCAL subscriptions created later.
//
// A live publication is delivered in the publisher's own buffer, which
// package ros reuses for its next message: it is not Stable, so the
// subscription copies what it decodes. History payloads are copies that
// nothing writes again, delivered Stable.
package rmwmem

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/internal/rmw"
)

// ErrClosed is returned by calls on a closed session, node or entity.
var ErrClosed = errors.New("rmwmem: closed")

// Network is the shared medium of the sessions opened on it. The zero value
// is not usable: create one with NewNetwork.
type Network struct {
	mu       sync.Mutex
	nodes    []*node
	pubs     []*publisher
	subs     []*subscription
	services []*service
	clients  []*client
	sessions []*Session
	version  atomic.Uint64 // bumped on every change of the entities
	changed  chan struct{} // closed and replaced on every change
	nextGID  uint64
}

// NewNetwork returns an empty network.
func NewNetwork() *Network {
	return &Network{changed: make(chan struct{})}
}

// Open opens a session (a ROS 2 context) on the network.
func (n *Network) Open() *Session {
	s := &Session{net: n, graph: afor.NewSub[*rmw.Graph](afor.WithName("rmwmem graph"))}
	n.mu.Lock()
	n.sessions = append(n.sessions, s)
	s.graph.Input(n.snapshotLocked())
	n.mu.Unlock()
	return s
}

// gidLocked returns a new GID: a network-wide counter, little endian.
func (n *Network) gidLocked() rmw.GID {
	n.nextGID++
	var g rmw.GID
	binary.LittleEndian.PutUint64(g[:], n.nextGID)
	return g
}

// changedLocked publishes a new graph snapshot to every session and wakes
// the waiters of a change.
func (n *Network) changedLocked() {
	n.version.Add(1)
	close(n.changed)
	n.changed = make(chan struct{})
	g := n.snapshotLocked()
	for _, s := range n.sessions {
		s.graph.Input(g)
	}
}

func (n *Network) snapshotLocked() *rmw.Graph {
	g := &rmw.Graph{}
	for _, nd := range n.nodes {
		g.Nodes = append(g.Nodes, nd.name)
	}
	add := func(kind rmw.EndpointKind, nd *node, name string, t rmw.Type, q rmw.QoS, gid rmw.GID) {
		g.Endpoints = append(g.Endpoints, rmw.Endpoint{Kind: kind, Node: nd.name, Name: name, Type: t.Name, TypeHash: t.Hash, QoS: q, GID: gid})
	}
	for _, p := range n.pubs {
		add(rmw.KindPublisher, p.node, p.topic, p.typ, p.qos, p.gid)
	}
	for _, s := range n.subs {
		add(rmw.KindSubscription, s.node, s.topic, s.typ, s.qos, s.gid)
	}
	for _, s := range n.services {
		add(rmw.KindService, s.node, s.name, s.typ.Service, s.qos, s.gid)
	}
	for _, c := range n.clients {
		add(rmw.KindClient, c.node, c.name, c.typ.Service, c.qos, c.gid)
	}
	return g
}

func remove[T comparable](list *[]T, v T) bool {
	i := slices.Index(*list, v)
	if i < 0 {
		return false
	}
	*list = slices.Delete(*list, i, i+1)
	return true
}

// Session is one context on a Network. It implements rmw.Session.
type Session struct {
	net    *Network
	graph  *afor.Sub[*rmw.Graph]
	closed bool // guarded by net.mu
}

var _ rmw.Session = (*Session)(nil)

// CreateNode announces a node.
func (s *Session) CreateNode(name rmw.NodeName) (rmw.Node, error) {
	n := s.net
	n.mu.Lock()
	defer n.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	nd := &node{sess: s, name: name}
	n.nodes = append(n.nodes, nd)
	n.changedLocked()
	return nd, nil
}

// Graph returns the graph as this session sees it.
func (s *Session) Graph() *afor.Sub[*rmw.Graph] { return s.graph }

// Close closes the session's nodes and the session.
func (s *Session) Close() error {
	n := s.net
	n.mu.Lock()
	if s.closed {
		n.mu.Unlock()
		return nil
	}
	s.closed = true
	var mine []*node
	for _, nd := range n.nodes {
		if nd.sess == s {
			mine = append(mine, nd)
		}
	}
	n.mu.Unlock()
	for _, nd := range mine {
		_ = nd.Close()
	}
	n.mu.Lock()
	remove(&n.sessions, s)
	n.mu.Unlock()
	s.graph.Close()
	return nil
}

type node struct {
	sess   *Session
	name   rmw.NodeName
	closed bool // guarded by net.mu
}

func (nd *node) net() *Network { return nd.sess.net }

// Close closes the node's entities and removes it from the graph.
func (nd *node) Close() error {
	n := nd.net()
	n.mu.Lock()
	defer n.mu.Unlock()
	if nd.closed {
		return nil
	}
	nd.closed = true
	n.pubs = slices.DeleteFunc(n.pubs, func(p *publisher) bool { return p.node == nd })
	n.subs = slices.DeleteFunc(n.subs, func(s *subscription) bool {
		if s.node == nd {
			s.closed.Store(true)
			return true
		}
		return false
	})
	n.services = slices.DeleteFunc(n.services, func(s *service) bool {
		if s.node == nd {
			s.closed.Store(true)
			return true
		}
		return false
	})
	n.clients = slices.DeleteFunc(n.clients, func(c *client) bool { return c.node == nd })
	remove(&n.nodes, nd)
	n.changedLocked()
	return nil
}

// addLocked checks that the node is open, gives the entity a GID and
// announces the change.
func (nd *node) checkLocked() error {
	if nd.closed || nd.sess.closed {
		return ErrClosed
	}
	return nil
}

func (nd *node) CreatePublisher(topic string, t rmw.Type, q rmw.QoS) (rmw.Publisher, error) {
	n := nd.net()
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := nd.checkLocked(); err != nil {
		return nil, err
	}
	p := &publisher{node: nd, topic: topic, typ: t, qos: q, gid: n.gidLocked()}
	n.pubs = append(n.pubs, p)
	n.changedLocked()
	return p, nil
}

func (nd *node) CreateSubscription(topic string, t rmw.Type, q rmw.QoS, deliver func(rmw.Message)) (rmw.Subscription, error) {
	n := nd.net()
	n.mu.Lock()
	if err := nd.checkLocked(); err != nil {
		n.mu.Unlock()
		return nil, err
	}
	s := &subscription{node: nd, topic: topic, typ: t, qos: q, gid: n.gidLocked(), deliver: deliver}
	// A late-joining TRANSIENT_LOCAL subscription gets the history of the
	// TRANSIENT_LOCAL publishers, delivered before any new message.
	var history []rmw.Message
	if q.Durability == rmw.DurabilityTransientLocal {
		for _, p := range n.pubs {
			if p.matches(s) {
				p.mu.Lock()
				history = append(history, p.history...)
				p.mu.Unlock()
			}
		}
	}
	s.mu.Lock() // held until the history is delivered: Publish waits on it
	n.subs = append(n.subs, s)
	n.changedLocked()
	n.mu.Unlock()
	for _, m := range history {
		m.Info.ReceivedTime = time.Now()
		deliver(m)
	}
	s.mu.Unlock()
	return s, nil
}

func (nd *node) CreateService(name string, t rmw.ServiceType, q rmw.QoS, handle func(rmw.Request)) (rmw.Service, error) {
	n := nd.net()
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := nd.checkLocked(); err != nil {
		return nil, err
	}
	s := &service{node: nd, name: name, typ: t, qos: q, gid: n.gidLocked(), handle: handle}
	n.services = append(n.services, s)
	n.changedLocked()
	return s, nil
}

func (nd *node) CreateClient(name string, t rmw.ServiceType, q rmw.QoS) (rmw.Client, error) {
	n := nd.net()
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := nd.checkLocked(); err != nil {
		return nil, err
	}
	c := &client{node: nd, name: name, typ: t, qos: q, gid: n.gidLocked()}
	n.clients = append(n.clients, c)
	n.changedLocked()
	return c, nil
}

// closeEntity removes v from list and announces it, once.
func closeEntity[T comparable](n *Network, list *[]T, v T) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if remove(list, v) {
		n.changedLocked()
	}
}

type publisher struct {
	node  *node
	topic string
	typ   rmw.Type
	qos   rmw.QoS
	gid   rmw.GID
	seq   atomic.Int64
	route atomic.Pointer[route]

	mu      sync.Mutex // guards history
	history []rmw.Message
}

// route is a publisher's cached list of matching subscriptions.
type route struct {
	version uint64
	subs    []*subscription
}

func (p *publisher) matches(s *subscription) bool {
	return s.topic == p.topic && s.typ.Name == p.typ.Name && s.typ.Hash == p.typ.Hash
}

func (p *publisher) GID() rmw.GID { return p.gid }

func (p *publisher) Close() error {
	closeEntity(p.node.net(), &p.node.net().pubs, p)
	return nil
}

// Publish delivers payload to every matching subscription.
func (p *publisher) Publish(ctx context.Context, payload []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	n := p.node.net()
	r := p.route.Load()
	if r == nil || r.version != n.version.Load() {
		n.mu.Lock()
		if !slices.Contains(n.pubs, p) {
			n.mu.Unlock()
			return ErrClosed
		}
		r = &route{version: n.version.Load()}
		for _, s := range n.subs {
			if p.matches(s) {
				r.subs = append(r.subs, s)
			}
		}
		n.mu.Unlock()
		p.route.Store(r)
	}
	now := time.Now()
	m := rmw.Message{Payload: payload, Info: rmw.MessageInfo{
		PublisherGID: p.gid, Sequence: p.seq.Add(1), SourceTime: now, ReceivedTime: now,
	}}
	if p.qos.Durability == rmw.DurabilityTransientLocal {
		p.keep(m)
	}
	for _, s := range r.subs {
		s.mu.Lock()
		if !s.closed.Load() {
			s.deliver(m)
		}
		s.mu.Unlock()
	}
	return nil
}

// keep adds a copy of m to the history (KEEP_LAST depth, or everything for
// KEEP_ALL).
func (p *publisher) keep(m rmw.Message) {
	m.Payload = slices.Clone(m.Payload)
	m.Stable = true // never written again: late joiners may alias it
	p.mu.Lock()
	defer p.mu.Unlock()
	p.history = append(p.history, m)
	if p.qos.History != rmw.HistoryKeepAll && len(p.history) > max(p.qos.Depth, 1) {
		p.history = slices.Delete(p.history, 0, len(p.history)-max(p.qos.Depth, 1))
	}
}

type subscription struct {
	node    *node
	topic   string
	typ     rmw.Type
	qos     rmw.QoS
	gid     rmw.GID
	deliver func(rmw.Message)
	mu      sync.Mutex // serializes deliveries
	closed  atomic.Bool
}

func (s *subscription) GID() rmw.GID { return s.gid }

func (s *subscription) Close() error {
	s.closed.Store(true)
	closeEntity(s.node.net(), &s.node.net().subs, s)
	return nil
}

type service struct {
	node   *node
	name   string
	typ    rmw.ServiceType
	qos    rmw.QoS
	gid    rmw.GID
	handle func(rmw.Request)
	closed atomic.Bool
}

func (s *service) GID() rmw.GID { return s.gid }

func (s *service) Close() error {
	s.closed.Store(true)
	closeEntity(s.node.net(), &s.node.net().services, s)
	return nil
}

type client struct {
	node *node
	name string
	typ  rmw.ServiceType
	qos  rmw.QoS
	gid  rmw.GID
	seq  atomic.Int64
}

func (c *client) GID() rmw.GID { return c.gid }

func (c *client) Close() error {
	closeEntity(c.node.net(), &c.node.net().clients, c)
	return nil
}

// find returns a server of the client's service, and the channel closed on
// the next change of the network.
func (c *client) find() (*service, <-chan struct{}, error) {
	n := c.node.net()
	n.mu.Lock()
	defer n.mu.Unlock()
	if !slices.Contains(n.clients, c) {
		return nil, nil, ErrClosed
	}
	for _, s := range n.services {
		if s.name == c.name && s.typ.Service.Name == c.typ.Service.Name && s.typ.Service.Hash == c.typ.Service.Hash {
			return s, n.changed, nil
		}
	}
	return nil, n.changed, nil
}

// Send hands the request to the first server of the service.
func (c *client) Send(ctx context.Context, payload []byte, reply func([]byte, error)) (func(), error) {
	s, _, err := c.find()
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, fmt.Errorf("rmwmem: %s: %w", c.name, afor.ErrNoServer)
	}
	var abandoned atomic.Bool
	var answered atomic.Bool
	now := time.Now()
	req := rmw.Request{
		Payload: payload,
		Info:    rmw.MessageInfo{PublisherGID: c.gid, Sequence: c.seq.Add(1), SourceTime: now, ReceivedTime: now},
		Reply: func(res []byte, err error) error {
			if !answered.CompareAndSwap(false, true) {
				return errors.New("rmwmem: request already answered")
			}
			if !abandoned.Load() {
				reply(slices.Clone(res), err)
			}
			return nil
		},
	}
	if s.closed.Load() {
		return nil, fmt.Errorf("rmwmem: %s: %w", c.name, afor.ErrNoServer)
	}
	s.handle(req)
	return func() { abandoned.Store(true) }, nil
}

// WaitReady waits for a server of the client's service.
func (c *client) WaitReady(ctx context.Context) error {
	for {
		s, changed, err := c.find()
		if err != nil {
			return err
		}
		if s != nil {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
