package ros

import (
	"sync"

	"github.com/afor-go/afor/ros/internal/rmw"
)

// statusTracker follows the matched and liveliness status of a publisher
// or subscription and hands each change to apply: from the middleware
// when it tracks them (rmw.StatusSource: DDS), else from the graph (the
// endpoints of the other kind on the topic with the same type are the
// matched ones, all alive: rmw_zenoh's liveliness tokens, the memory
// middleware's registry).
type statusTracker struct {
	n     *Node
	topic string
	typ   string
	other rmw.EndpointKind // the kind of the endpoints matched
	apply func(st, prev rmw.EndpointStatus)

	mu        sync.Mutex
	prev      rmw.EndpointStatus
	stopped   bool
	remove    func()           // ends the graph watch
	cur       map[rmw.GID]bool // graph: the endpoints matched now
	total     int              // graph: the matches so far
	graphSeen bool             // graph: a graph was applied
}

func newStatusTracker(n *Node, topic, typ string, kind EndpointKind, endpoint any, apply func(st, prev rmw.EndpointStatus)) *statusTracker {
	t := &statusTracker{n: n, topic: topic, typ: typ, apply: apply, other: rmw.KindSubscription}
	if kind == KindSubscription {
		t.other = rmw.KindPublisher
	}
	if src, ok := endpoint.(rmw.StatusSource); ok {
		src.OnStatus(t.update)
		return t
	}
	// OnInput runs before the graph sub holds the new graph as its value:
	// the callback takes the graph it is given, and the current one
	// counts only if no callback came first.
	graph := n.ctx.sess.Graph()
	remove := graph.OnInput(t.fromGraph)
	t.mu.Lock()
	t.remove = remove
	seen := t.graphSeen
	t.mu.Unlock()
	if g, ok := graph.Value(); ok && !seen {
		t.fromGraph(g)
	}
	return t
}

// update applies a new status.
func (t *statusTracker) update(st rmw.EndpointStatus) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped || st == t.prev {
		return
	}
	prev := t.prev
	t.prev = st
	t.apply(st, prev)
}

// fromGraph derives the status from graph g.
func (t *statusTracker) fromGraph(g *rmw.Graph) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped || g == nil {
		return
	}
	t.graphSeen = true
	now := map[rmw.GID]bool{}
	for _, e := range g.Endpoints {
		if e.Kind == t.other && e.Name == t.topic && e.Type == t.typ {
			if !t.cur[e.GID] {
				t.total++
			}
			now[e.GID] = true
		}
	}
	t.cur = now
	st := rmw.EndpointStatus{Matched: len(now), TotalMatched: t.total}
	if t.other == rmw.KindPublisher {
		st.Alive = len(now)
	}
	if st != t.prev {
		prev := t.prev
		t.prev = st
		t.apply(st, prev)
	}
}

// stop ends the tracking; a nil tracker is stopped already.
func (t *statusTracker) stop() {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.stopped = true
	remove := t.remove
	t.mu.Unlock()
	if remove != nil {
		remove()
	}
}
