package rmwzenoh

import (
	"sync"

	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/transport/zenoh"
)

// closer is an entity of a node.
type closer interface{ close() error }

// node is an rmw.Node: its liveliness token and its entities.
type node struct {
	s     *Session
	id    uint64
	name  rmw.NodeName
	token *zenoh.Token

	mu       sync.Mutex
	entities map[closer]struct{}
	closed   bool
}

var _ rmw.Node = (*node)(nil)

// entityBase is what every entity has: its node, token and GID.
type entityBase struct {
	n     *node
	id    uint64
	token *zenoh.Token
	gid   rmw.GID
}

// GID returns the entity's GID, the hash of its liveliness token.
func (e *entityBase) GID() rmw.GID { return e.gid }

// newEntity reserves an id and builds the token of an entity of n.
func (n *node) newEntity(kind, name, ddsType, hash string, q rmw.QoS) (entityBase, string) {
	id := n.s.nextID()
	tok := entityToken(n.s.domain, n.s.zid, n.id, id, kind, n.name, name, ddsType, hash, q)
	return entityBase{n: n, id: id, gid: gidOf(tok)}, tok
}

// add registers a created entity, declaring its token last (as rmw_zenoh
// does, so that whoever sees the token finds the entity). If the node was
// closed meanwhile, the entity is closed and ErrClosed returned.
func (n *node) add(e *entityBase, c closer, tok string) error {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		_ = c.close()
		return ErrClosed
	}
	n.entities[c] = struct{}{}
	n.mu.Unlock()
	t, err := n.s.z.DeclareToken(tok)
	if err != nil {
		n.remove(c)
		_ = c.close()
		return err
	}
	n.mu.Lock()
	e.token = t
	closed := n.closed
	n.mu.Unlock()
	if closed { // Close ran between the two locks and missed the token
		_ = t.Undeclare()
	}
	return nil
}

// remove forgets a closed entity.
func (n *node) remove(c closer) {
	n.mu.Lock()
	delete(n.entities, c)
	n.mu.Unlock()
}

// undeclareToken withdraws the entity's token, if declared.
func (e *entityBase) undeclareToken() {
	e.n.mu.Lock()
	t := e.token
	e.token = nil
	e.n.mu.Unlock()
	if t != nil {
		_ = t.Undeclare()
	}
}

// CreatePublisher declares a publisher on topic.
func (n *node) CreatePublisher(topic string, t rmw.Type, q rmw.QoS) (rmw.Publisher, error) {
	return newPublisher(n, topic, t, q)
}

// CreateSubscription declares a subscription on topic.
func (n *node) CreateSubscription(topic string, t rmw.Type, q rmw.QoS, deliver func(rmw.Message)) (rmw.Subscription, error) {
	return newSubscription(n, topic, t, q, deliver)
}

// CreateService declares a service server.
func (n *node) CreateService(name string, t rmw.ServiceType, q rmw.QoS, handle func(rmw.Request)) (rmw.Service, error) {
	return newService(n, name, t, q, handle)
}

// CreateClient declares a service client.
func (n *node) CreateClient(name string, t rmw.ServiceType, q rmw.QoS) (rmw.Client, error) {
	return newClient(n, name, t, q)
}

// Close withdraws the node's token first, then closes its entities.
func (n *node) Close() error {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return nil
	}
	n.closed = true
	tok := n.token
	entities := make([]closer, 0, len(n.entities))
	for c := range n.entities {
		entities = append(entities, c)
	}
	n.mu.Unlock()
	if tok != nil {
		_ = tok.Undeclare()
	}
	for _, c := range entities {
		_ = c.close()
	}
	n.s.forget(n)
	return nil
}
