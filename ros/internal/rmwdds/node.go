package rmwdds

import (
	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/transport/dds"
)

// closer is an entity of a node.
type closer interface{ Close() error }

// node is an rmw.Node of a Session.
type node struct {
	s        *Session
	name     rmw.NodeName
	id       LocalNode
	entities map[closer]struct{} // guarded by s.mu
	closed   bool                // guarded by s.mu
}

var _ rmw.Node = (*node)(nil)

// register adds entity e to the node, its DDS endpoints to the graph and
// ros_discovery_info, and publishes the change. It fails when the node is
// closed.
func (n *node) register(e closer, eps ...localEndpoint) error {
	s := n.s
	s.mu.Lock()
	if n.closed || s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	n.entities[e] = struct{}{}
	for _, ep := range eps {
		s.addEndpointLocked(n, ep.guid, ep.topic, ep.qos)
	}
	s.changedLocked()
	s.mu.Unlock()
	s.writeInfo()
	return nil
}

// unregister removes entity e and its endpoints, and publishes the change.
func (n *node) unregister(e closer, guids ...dds.GUID) {
	s := n.s
	s.mu.Lock()
	if _, ok := n.entities[e]; !ok {
		s.mu.Unlock()
		return
	}
	delete(n.entities, e)
	s.removeEndpointsLocked(guids...)
	closed := s.closed
	if !closed {
		s.changedLocked()
	}
	s.mu.Unlock()
	if !closed {
		s.writeInfo()
	}
}

// localEndpoint is a DDS endpoint of this participant.
type localEndpoint struct {
	guid  dds.GUID
	topic dds.Topic
	qos   dds.QoS
}

// Close closes the node's entities and removes it from the graph.
func (n *node) Close() error {
	s := n.s
	s.mu.Lock()
	if n.closed {
		s.mu.Unlock()
		return nil
	}
	n.closed = true
	es := make([]closer, 0, len(n.entities))
	for e := range n.entities {
		es = append(es, e)
	}
	s.mu.Unlock()
	for _, e := range es {
		_ = e.Close()
	}
	s.mu.Lock()
	delete(s.nodes, n)
	s.local.RemoveNode(n.id)
	closed := s.closed
	if !closed {
		s.changedLocked()
	}
	s.mu.Unlock()
	if !closed {
		s.writeInfo()
	}
	return nil
}
