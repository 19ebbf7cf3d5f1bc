package ros

import (
	"sync"

	"github.com/afor-go/afor/ros/internal/rmw"
)

// typeCache is a node's register of the types its entities use, by RIHS01
// hash, as rcl's node type cache: publishers and subscriptions register
// their message type, servers and clients their service type, action
// servers and clients their action type (and the types of their services
// and topics). The ~/get_type_description service answers for these
// types only. Its zero value is ready to use.
type typeCache struct {
	mu    sync.Mutex
	types map[string]*cachedType // by hash
}

type cachedType struct {
	name string
	refs int
}

// add registers t and returns the function that unregisters it (once).
func (c *typeCache) add(t rmw.Type) (remove func()) {
	if t.Hash == "" {
		return func() {}
	}
	c.mu.Lock()
	if c.types == nil {
		c.types = map[string]*cachedType{}
	}
	ct := c.types[t.Hash]
	if ct == nil {
		ct = &cachedType{name: t.Name}
		c.types[t.Hash] = ct
	}
	ct.refs++
	c.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			if ct.refs--; ct.refs == 0 && c.types[t.Hash] == ct {
				delete(c.types, t.Hash)
			}
		})
	}
}

// addService registers a service type (the service's own hash) and
// returns the function that unregisters it.
func (c *typeCache) addService(t rmw.ServiceType) (remove func()) { return c.add(t.Service) }

// addAction registers an action type and the types of its services and
// topics (send_goal, get_result, cancel_goal, feedback, status), and
// returns the function that unregisters them.
func addActionTypes[G, R, F any](c *typeCache, action rmw.Type, w *actionWire[G, R, F]) (remove func()) {
	rs := []func(){c.add(action), c.addService(w.sendGoal), c.addService(w.getResult), c.addService(w.cancelGoal),
		c.add(w.feedback), c.add(w.status)}
	return func() {
		for _, r := range rs {
			r()
		}
	}
}

// lookup returns the name of the type with that hash, if an entity of the
// node uses it.
func (c *typeCache) lookup(hash string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ct, ok := c.types[hash]
	if !ok {
		return "", false
	}
	return ct.name, true
}
