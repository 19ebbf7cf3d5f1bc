package rmwzenoh

import (
	"slices"
	"testing"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/internal/peers"
	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/transport/zenoh"
)

// startRouter runs testdata/zenoh_router.py (a Rust Zenoh router, through
// the eclipse-zenoh Python package) on a free port of 127.0.0.1 and returns
// its endpoint. It stops with the test.
func startRouter(t *testing.T, args ...string) string {
	t.Helper()
	return peers.ZenohRouter(t, "testdata/zenoh_router.py", args...)
}

// Two Go rmw_zenoh sessions, clients of a Rust router: pub/sub, a service
// and the graph go through the router.
func TestInteropThroughPythonRouter(t *testing.T) {
	ep := startRouter(t)
	ctx := testCtx(t)
	open := func() *Session {
		s, err := Open(ctx, Config{DomainID: 7, Zenoh: zenoh.Config{Mode: zenoh.ModeClient, Connect: []string{ep}}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	exchangeThroughRouter(t, open(), open(), depth10)
}

// Two Go rmw_zenoh sessions with rmw_zenoh's default session settings
// (peers, gossip), beside a Rust router configured as rmw_zenohd, which
// brokers nothing between peers: they learn of each other from the
// router's gossip, link directly (the greater ZID dialling) and exchange
// pub/sub (KEEP_ALL, so congestion control BLOCK), a service and the graph
// over that link.
func TestInteropPeersBesideRMWRouter(t *testing.T) {
	ep := startRouter(t, "--rmw")
	ctx := testCtx(t)
	open := func() *Session {
		s, err := Open(ctx, Config{DomainID: 7, Zenoh: zenoh.Config{Connect: []string{ep}, Listen: []string{"tcp/127.0.0.1:0"}}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	a, b := open(), open()
	exchangeThroughRouter(t, a, b, rmw.QoS{History: rmw.HistoryKeepAll})
}

// exchangeThroughRouter runs pub/sub (the publisher with QoS pubQoS), a
// service, transient local and the graph between sessions a and b.
func exchangeThroughRouter(t *testing.T, a, b *Session, pubQoS rmw.QoS) {
	t.Helper()
	ctx := testCtx(t)
	na, nb := mustNode(t, a, "/robot1", "talker"), mustNode(t, b, "/", "listener")

	got := make(chan rmw.Message, 4)
	sub, err := nb.CreateSubscription("/robot1/chatter", stringType, depth10, func(m rmw.Message) { got <- m })
	if err != nil {
		t.Fatal(err)
	}
	reqs := make(chan rmw.Request, 1)
	srv, err := nb.CreateService("/set_flag", setBoolType, depth10, func(r rmw.Request) { reqs <- r })
	if err != nil {
		t.Fatal(err)
	}
	pub, err := na.CreatePublisher("/robot1/chatter", stringType, pubQoS)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := na.CreateClient("/set_flag", setBoolType, depth10)
	if err != nil {
		t.Fatal(err)
	}
	// Each side sees the other's node and entities through the router.
	waitGraph(t, a, "listener's entities", func(g *rmw.Graph) bool {
		return hasEndpoint(rmw.KindSubscription, "/robot1/chatter", sub.GID())(g) && hasEndpoint(rmw.KindService, "/set_flag", srv.GID())(g)
	})
	waitGraph(t, b, "talker's entities", func(g *rmw.Graph) bool {
		return slices.Contains(g.Nodes, rmw.NodeName{Namespace: "/robot1", Name: "talker", Enclave: "/"}) &&
			hasEndpoint(rmw.KindPublisher, "/robot1/chatter", pub.GID())(g) && hasEndpoint(rmw.KindClient, "/set_flag", cl.GID())(g)
	})
	if err := pub.(*publisher).pub.WaitMatching(ctx); err != nil {
		t.Fatal(err)
	}
	if err := pub.Publish(ctx, []byte("hello")); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-got:
		if string(m.Payload) != "hello" || m.Info.Sequence != 1 || m.Info.PublisherGID != pub.GID() {
			t.Fatalf("got %q %+v", m.Payload, m.Info)
		}
	case <-ctx.Done():
		t.Fatal("no sample through the router")
	}
	if err := cl.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	go func() { r := <-reqs; _ = r.Reply(append([]byte("re:"), r.Payload...), nil) }()
	res, err := afor.NewClient[[]byte, []byte](cl).Call(ctx, []byte("x"))
	if err != nil || string(res) != "re:x" {
		t.Fatalf("call through the router: %q, %v", res, err)
	}
	// Transient local through the router: a late joiner gets the history.
	tl := rmw.QoS{Depth: 2, Durability: rmw.DurabilityTransientLocal}
	tlPub, err := na.CreatePublisher("/latched", stringType, tl)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"l0", "l1", "l2"} {
		if err := tlPub.Publish(ctx, []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	waitGraph(t, b, "latched publisher", hasEndpoint(rmw.KindPublisher, "/latched", tlPub.GID()))
	deliver, late := collect()
	if _, err := nb.CreateSubscription("/latched", stringType, tl, deliver); err != nil {
		t.Fatal(err)
	}
	expect(t, ctx, late, "l1", "l2")
	// Closing a session removes its node from the other's graph.
	_ = a.Close()
	waitGraph(t, b, "talker gone", func(g *rmw.Graph) bool { return len(g.Nodes) == 1 })
}
