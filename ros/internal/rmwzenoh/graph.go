package rmwzenoh

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/transport/zenoh"
)

// graph follows the liveliness tokens of the session's domain and turns
// them into rmw.Graph snapshots.
type graph struct {
	sub       *afor.Sub[*rmw.Graph]
	ls        *zenoh.LivelinessSubscriber
	badTokens atomic.Uint64

	mu      sync.Mutex
	tokens  map[string]token // by token key
	cur     *rmw.Graph
	changed chan struct{} // closed and replaced on every change
}

// newGraph subscribes, with history, to @ros2_lv/<domain>/**.
func newGraph(s *Session) (*graph, error) {
	g := &graph{
		sub:     afor.NewSub[*rmw.Graph](),
		tokens:  make(map[string]token),
		cur:     &rmw.Graph{},
		changed: make(chan struct{}),
	}
	g.sub.Input(g.cur)
	ls, err := s.z.DeclareLivelinessSubscriber(livelinessPrefix+"/"+strconv.Itoa(s.domain)+"/**", func(smp zenoh.Sample) {
		g.event(s, smp)
	}, zenoh.WithHistory())
	if err != nil {
		g.sub.CloseWithError(err)
		return nil, err
	}
	g.ls = ls
	return g, nil
}

// event applies one token's appearance or disappearance.
func (g *graph) event(s *Session, smp zenoh.Sample) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if smp.Kind == zenoh.KindDelete {
		if _, ok := g.tokens[smp.KeyExpr]; !ok {
			return
		}
		delete(g.tokens, smp.KeyExpr)
	} else {
		t, err := parseToken(smp.KeyExpr)
		if err != nil {
			g.badTokens.Add(1)
			s.log.Debug("rmw_zenoh: liveliness token ignored", "err", err)
			return
		}
		if _, ok := g.tokens[smp.KeyExpr]; ok {
			return
		}
		g.tokens[smp.KeyExpr] = t
	}
	g.cur = g.snapshot()
	close(g.changed)
	g.changed = make(chan struct{})
	g.sub.Input(g.cur)
}

// snapshot builds the graph from the tokens, nodes and endpoints sorted.
// A node is listed once even when two sessions announce the same name.
func (g *graph) snapshot() *rmw.Graph {
	out := &rmw.Graph{}
	for key, t := range g.tokens {
		if t.Kind == kindNode {
			out.Nodes = append(out.Nodes, t.Node)
		} else {
			out.Endpoints = append(out.Endpoints, t.endpoint(key))
		}
	}
	cmpNode := func(a, b rmw.NodeName) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Enclave, b.Enclave))
	}
	slices.SortFunc(out.Nodes, cmpNode)
	out.Nodes = slices.Compact(out.Nodes)
	slices.SortFunc(out.Endpoints, func(a, b rmw.Endpoint) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Kind, b.Kind), cmpNode(a.Node, b.Node),
			slices.Compare(a.GID[:], b.GID[:]))
	})
	return out
}

// wait returns when ok holds for the current graph, or ctx ends.
func (g *graph) wait(ctx context.Context, ok func(*rmw.Graph) bool) error {
	for {
		g.mu.Lock()
		cur, changed := g.cur, g.changed
		g.mu.Unlock()
		if ok(cur) {
			return nil
		}
		select {
		case <-changed:
		case <-g.sub.Done():
			return ErrClosed
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// close stops following the graph and closes the Sub.
func (g *graph) close() {
	_ = g.ls.Undeclare()
	g.sub.CloseWithError(ErrClosed)
}
