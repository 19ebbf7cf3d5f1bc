package rmwzenoh

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/transport/zenoh"
)

var (
	stringType  = rmw.Type{Name: "std_msgs/msg/String", DDSName: ddsString, Hash: hashString}
	setBoolType = rmw.ServiceType{
		Service:  rmw.Type{Name: "std_srvs/srv/SetBool", DDSName: ddsSetBool, Hash: hashSetBool},
		Request:  rmw.Type{Name: "std_srvs/srv/SetBool_Request", DDSName: "std_srvs::srv::dds_::SetBool_Request_"},
		Response: rmw.Type{Name: "std_srvs/srv/SetBool_Response", DDSName: "std_srvs::srv::dds_::SetBool_Response_"},
	}
)

// testCtx returns a context that ends with the test or after 20 s.
func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// pair opens two sessions on 127.0.0.1, the second connected to the first,
// both peers, and waits for their link.
func pair(t testing.TB) (a, b *Session) {
	t.Helper()
	ctx := testCtx(t)
	a, err := Open(ctx, Config{Zenoh: zenoh.Config{Listen: []string{"tcp/127.0.0.1:0"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	b, err = Open(ctx, Config{Zenoh: zenoh.Config{Connect: a.z.ListenAddrs()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	if err := b.z.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	return a, b
}

func mustNode(t *testing.T, s *Session, ns, name string) rmw.Node {
	t.Helper()
	n, err := s.CreateNode(rmw.NodeName{Namespace: ns, Name: name})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// waitGraph waits until ok holds for s's graph.
func waitGraph(t *testing.T, s *Session, what string, ok func(*rmw.Graph) bool) {
	t.Helper()
	if err := s.graph.wait(testCtx(t), ok); err != nil {
		g, _ := s.Graph().Value()
		t.Fatalf("waiting for %s: %v; graph %+v", what, err, g)
	}
}

func hasEndpoint(kind rmw.EndpointKind, name string, gid rmw.GID) func(*rmw.Graph) bool {
	return func(g *rmw.Graph) bool {
		return slices.ContainsFunc(g.Endpoints, func(e rmw.Endpoint) bool {
			return e.Kind == kind && e.Name == name && e.GID == gid
		})
	}
}

func TestPubSubWithInfo(t *testing.T) {
	a, b := pair(t)
	ctx := testCtx(t)
	na, nb := mustNode(t, a, "/", "talker"), mustNode(t, b, "/robot1", "listener")
	got := make(chan rmw.Message, 10)
	sub, err := nb.CreateSubscription("/robot1/chatter", stringType, depth10, func(m rmw.Message) {
		m.Payload = bytes.Clone(m.Payload)
		got <- m
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	pub, err := na.CreatePublisher("/robot1/chatter", stringType, depth10)
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Close()
	if err := pub.(*publisher).pub.WaitMatching(ctx); err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	for i := range 3 {
		if err := pub.Publish(ctx, []byte{0, 1, 0, 0, byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		select {
		case m := <-got:
			if !bytes.Equal(m.Payload, []byte{0, 1, 0, 0, byte(i)}) {
				t.Fatalf("message %d payload %x", i, m.Payload)
			}
			if m.Info.Sequence != int64(i+1) || m.Info.PublisherGID != pub.GID() {
				t.Fatalf("message %d info %+v, want seq %d gid %x", i, m.Info, i+1, pub.GID())
			}
			if m.Info.SourceTime.Before(before.Add(-time.Second)) || m.Info.ReceivedTime.Before(m.Info.SourceTime.Add(-time.Second)) {
				t.Fatalf("message %d times %+v", i, m.Info)
			}
		case <-ctx.Done():
			t.Fatal("message not received")
		}
	}
	if pub.GID() == sub.GID() || pub.GID() == (rmw.GID{}) {
		t.Fatalf("GIDs %x %x", pub.GID(), sub.GID())
	}
}

func TestServiceDeferredReply(t *testing.T) {
	a, b := pair(t)
	ctx := testCtx(t)
	na, nb := mustNode(t, a, "/", "server"), mustNode(t, b, "/", "client")
	reqs := make(chan rmw.Request, 4)
	srv, err := na.CreateService("/set_flag", setBoolType, depth10, func(r rmw.Request) {
		r.Payload = bytes.Clone(r.Payload)
		reqs <- r
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cl, err := nb.CreateClient("/set_flag", setBoolType, depth10)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	// Answer later, from another goroutine.
	answered := make(chan error, 2)
	go func() {
		for i := range 2 {
			r := <-reqs
			if r.Info.Sequence != int64(i+1) || r.Info.PublisherGID != cl.GID() {
				answered <- errors.New("bad request info")
				return
			}
			answered <- r.Reply(append([]byte("re:"), r.Payload...), nil)
			if err := r.Reply(nil, nil); !errors.Is(err, ErrAlreadyReplied) {
				answered <- errors.New("second reply accepted")
				return
			}
		}
	}()
	c := afor.NewClient[[]byte, []byte](cl)
	for _, req := range []string{"one", "two"} {
		res, err := c.Call(ctx, []byte(req))
		if err != nil {
			t.Fatal(err)
		}
		if string(res) != "re:"+req {
			t.Fatalf("reply %q to %q", res, req)
		}
		if err := <-answered; err != nil {
			t.Fatal(err)
		}
	}
	// An error reply reaches the client as an error.
	go func() { r := <-reqs; answered <- r.Reply(nil, errors.New("no flag")) }()
	if _, err := c.Call(ctx, []byte("x")); !errors.Is(err, zenoh.ErrReplyError) {
		t.Fatalf("error reply: %v", err)
	}
	if err := <-answered; err != nil {
		t.Fatal(err)
	}
	// Without a server the call fails with ErrNoServer.
	_ = srv.Close()
	if _, err := c.Call(ctx, []byte("y")); !errors.Is(err, afor.ErrNoServer) {
		t.Fatalf("call without server: %v", err)
	}
}

func TestGraphAppearsAndDisappears(t *testing.T) {
	a, b := pair(t)
	na := mustNode(t, a, "/robot1", "gnode")
	pub, err := na.CreatePublisher("/robot1/chatter", stringType, depth10)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := na.CreateService("/robot1/set_flag", setBoolType, depth10, func(r rmw.Request) { _ = r.Reply(nil, nil) })
	if err != nil {
		t.Fatal(err)
	}
	nb := mustNode(t, b, "/", "watcher")
	sub, err := nb.CreateSubscription("/robot1/chatter", stringType, sensorQ, func(rmw.Message) {})
	if err != nil {
		t.Fatal(err)
	}
	node := rmw.NodeName{Namespace: "/robot1", Name: "gnode", Enclave: "/"}
	for _, s := range []*Session{a, b} { // own entities included
		waitGraph(t, s, "the remote node and its entities", func(g *rmw.Graph) bool {
			return slices.Contains(g.Nodes, node) && hasEndpoint(rmw.KindPublisher, "/robot1/chatter", pub.GID())(g) &&
				hasEndpoint(rmw.KindService, "/robot1/set_flag", srv.GID())(g) &&
				hasEndpoint(rmw.KindSubscription, "/robot1/chatter", sub.GID())(g)
		})
	}
	g, _ := b.Graph().Value()
	var services int
	for _, e := range g.Endpoints {
		if e.Kind == rmw.KindService {
			services++
			if e.Type != "std_srvs/srv/SetBool" || e.TypeHash != hashSetBool || e.Node != node {
				t.Fatalf("service endpoint %+v", e)
			}
		}
		if e.Kind == rmw.KindSubscription && (e.QoS.Reliability != rmw.ReliabilityBestEffort || e.QoS.Depth != 5) {
			t.Fatalf("subscription QoS %+v", e.QoS)
		}
	}
	if services != 1 {
		t.Fatalf("%d service endpoints, want 1", services)
	}
	// Closing the publisher removes it; closing the node removes the rest.
	_ = pub.Close()
	waitGraph(t, b, "publisher gone", func(g *rmw.Graph) bool { return !hasEndpoint(rmw.KindPublisher, "/robot1/chatter", pub.GID())(g) })
	_ = na.Close()
	waitGraph(t, b, "node gone", func(g *rmw.Graph) bool {
		return !slices.Contains(g.Nodes, node) && !hasEndpoint(rmw.KindService, "/robot1/set_flag", srv.GID())(g)
	})
	// A closed session's tokens disappear too.
	_ = b.Close()
	waitGraph(t, a, "watcher gone", func(g *rmw.Graph) bool { return len(g.Nodes) == 0 && len(g.Endpoints) == 0 })
}

func TestNodeAndEntityIDs(t *testing.T) {
	a, _ := pair(t)
	n1 := mustNode(t, a, "/", "first")
	p, err := n1.CreatePublisher("/x", stringType, depth10)
	if err != nil {
		t.Fatal(err)
	}
	n2 := mustNode(t, a, "/", "second")
	if n1.(*node).id != 0 || p.(*publisher).id != 1 || n2.(*node).id != 2 {
		t.Fatalf("ids %d %d %d, want 0 1 2", n1.(*node).id, p.(*publisher).id, n2.(*node).id)
	}
	want := entityToken(0, a.ZID(), 0, 1, kindPublisher, rmw.NodeName{Namespace: "/", Name: "first", Enclave: "/"}, "/x", ddsString, hashString, depth10)
	if p.GID() != gidOf(want) {
		t.Fatal("publisher GID is not the hash of its token")
	}
	_ = a.Close()
	if _, err := a.CreateNode(rmw.NodeName{Name: "late"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("CreateNode after Close: %v", err)
	}
	if err := p.Publish(t.Context(), nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Publish after Close: %v", err)
	}
}

func TestInvalidArguments(t *testing.T) {
	a, _ := pair(t)
	if _, err := a.CreateNode(rmw.NodeName{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("empty node name: %v", err)
	}
	if _, err := a.CreateNode(rmw.NodeName{Name: "n", Namespace: "rel"}); !errors.Is(err, ErrInvalid) {
		t.Errorf("relative namespace: %v", err)
	}
	n := mustNode(t, a, "/", "n")
	if _, err := n.CreatePublisher("chatter", stringType, depth10); !errors.Is(err, ErrInvalid) {
		t.Errorf("relative topic: %v", err)
	}
	if _, err := n.CreatePublisher("/chatter", rmw.Type{DDSName: ddsString}, depth10); !errors.Is(err, ErrInvalid) {
		t.Errorf("type without hash: %v", err)
	}
	if _, err := n.CreateSubscription("/chatter", stringType, rmw.QoS{Depth: -1}, func(rmw.Message) {}); !errors.Is(err, ErrInvalid) {
		t.Errorf("negative depth: %v", err)
	}
	if _, err := n.CreateService("/s", setBoolType, depth10, nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("nil handler: %v", err)
	}
}

func TestBadInputDroppedAndCounted(t *testing.T) {
	a, b := pair(t)
	ctx := testCtx(t)
	nb := mustNode(t, b, "/", "listener")
	got := make(chan rmw.Message, 10)
	sub, err := nb.CreateSubscription("/chatter", stringType, depth10, func(m rmw.Message) { got <- m })
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	reqs := make(chan rmw.Request, 1)
	srv, err := nb.CreateService("/set_flag", setBoolType, depth10, func(r rmw.Request) { reqs <- r })
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	key := dataKey(0, "/chatter", ddsString, hashString)
	raw, err := a.z.DeclarePublisher(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := raw.WaitMatching(ctx); err != nil {
		t.Fatal(err)
	}
	// No attachment, a short one, a wrong GID length: all dropped.
	bad := appendAttachment(nil, attachment{Seq: 1})
	bad[16] = 3
	for _, opts := range [][]zenoh.PutOption{nil, {zenoh.WithAttachment([]byte{1, 2, 3})}, {zenoh.WithAttachment(bad)}} {
		if err := raw.Put(ctx, []byte("bad"), opts...); err != nil {
			t.Fatal(err)
		}
	}
	// A garbage token under @ros2_lv is ignored.
	garbage, err := a.z.DeclareToken("@ros2_lv/0/garbage/token")
	if err != nil {
		t.Fatal(err)
	}
	defer garbage.Undeclare()
	// A request without attachment gets an error reply.
	waitGraph(t, a, "the service", hasEndpoint(rmw.KindService, "/set_flag", srv.GID()))
	replies, err := a.z.Get(ctx, dataKey(0, "/set_flag", ddsSetBool, hashSetBool), zenoh.WithQueryPayload([]byte{0, 1, 0, 0, 1}))
	if err != nil {
		t.Fatal(err)
	}
	var errReplies int
	for r := range replies {
		if r.Err == nil {
			t.Fatalf("request without attachment answered %+v", r.Sample)
		}
		errReplies++
	}
	if errReplies != 1 {
		t.Fatalf("%d error replies, want 1", errReplies)
	}
	// The session keeps serving: a proper publication arrives (after the
	// bad ones, on the same link), and so does a proper request.
	na := mustNode(t, a, "/", "talker")
	pub, err := na.CreatePublisher("/chatter", stringType, depth10)
	if err != nil {
		t.Fatal(err)
	}
	if err := pub.Publish(ctx, []byte("good")); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-got:
		if string(m.Payload) != "good" {
			t.Fatalf("delivered %q", m.Payload)
		}
	case <-ctx.Done():
		t.Fatal("good sample not delivered")
	}
	waitGraph(t, b, "talker", func(g *rmw.Graph) bool { return len(g.Nodes) == 2 })
	cl, err := na.CreateClient("/set_flag", setBoolType, depth10)
	if err != nil {
		t.Fatal(err)
	}
	go func() { r := <-reqs; _ = r.Reply([]byte("ok"), nil) }()
	if res, err := afor.NewClient[[]byte, []byte](cl).Call(ctx, []byte("req")); err != nil || string(res) != "ok" {
		t.Fatalf("call after bad input: %q, %v", res, err)
	}
	st := b.Stats()
	if st.DroppedSamples != 3 || st.DroppedRequests != 1 || st.BadTokens != 1 {
		t.Fatalf("stats %+v, want 3 samples, 1 request, 1 token", st)
	}
	if len(got) != 0 {
		t.Fatalf("%d more samples delivered", len(got))
	}
}

func TestClientDropsForeignReplies(t *testing.T) {
	a, b := pair(t)
	ctx := testCtx(t)
	// A raw queryable that first replies with a wrong sequence number and
	// no attachment, then correctly.
	key := dataKey(0, "/set_flag", ddsSetBool, hashSetBool)
	qa, err := a.z.DeclareQueryable(key, func(q *zenoh.Query) {
		in, err := parseAttachment(q.Attachment)
		if err != nil {
			q.Finish()
			return
		}
		wrong := in
		wrong.Seq++
		_ = q.Reply(ctx, key, []byte("wrong seq"), zenoh.WithAttachment(appendAttachment(nil, wrong)))
		_ = q.Reply(ctx, key, []byte("no attachment"))
		_ = q.ReplyAndFinish(ctx, key, []byte("right"), zenoh.WithAttachment(appendAttachment(nil, in)))
	}, zenoh.Complete())
	if err != nil {
		t.Fatal(err)
	}
	defer qa.Undeclare()
	tok, err := a.z.DeclareToken(entityToken(0, a.ZID(), 0, 1, kindService, rmw.NodeName{Name: "raw"}, "/set_flag", ddsSetBool, hashSetBool, depth10))
	if err != nil {
		t.Fatal(err)
	}
	defer tok.Undeclare()
	cl, err := mustNode(t, b, "/", "client").CreateClient("/set_flag", setBoolType, depth10)
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := afor.NewClient[[]byte, []byte](cl).Call(ctx, []byte("x"))
	if err != nil || string(res) != "right" {
		t.Fatalf("call: %q, %v", res, err)
	}
	if st := b.Stats(); st.DroppedReplies != 2 {
		t.Fatalf("stats %+v, want 2 dropped replies", st)
	}
}

func TestTimestampsIncrease(t *testing.T) {
	a, _ := pair(t)
	now := time.Now()
	prev := a.timestamp(now)
	for range 100 {
		ts := a.timestamp(now)
		if ts.NTP64 <= prev.NTP64 {
			t.Fatalf("timestamp %d after %d", ts.NTP64, prev.NTP64)
		}
		prev = ts
	}
}

func TestZenohConfigDefaults(t *testing.T) {
	zc := zenohConfig(zenoh.Config{}, nil)
	if zc.Mode != zenoh.ModePeer || !slices.Equal(zc.Connect, []string{"tcp/localhost:7447"}) || !slices.Equal(zc.Listen, []string{"tcp/localhost:0"}) {
		t.Fatalf("zero config -> %+v", zc)
	}
	zc = zenohConfig(zenoh.Config{Mode: zenoh.ModeClient}, nil)
	if !slices.Equal(zc.Connect, []string{"tcp/localhost:7447"}) || zc.Listen != nil {
		t.Fatalf("client -> %+v", zc)
	}
	zc = zenohConfig(zenoh.Config{Connect: []string{"tcp/127.0.0.1:1"}}, nil)
	if !slices.Equal(zc.Connect, []string{"tcp/127.0.0.1:1"}) || zc.Listen != nil {
		t.Fatalf("explicit endpoints overridden: %+v", zc)
	}
	if _, err := Open(t.Context(), Config{DomainID: -1}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("negative domain: %v", err)
	}
	// rmw_zenoh's lease and gossip, unless set.
	zc = zenohConfig(zenoh.Config{}, nil)
	if zc.Lease != 60*time.Second || zc.KeepAlive != 30*time.Second {
		t.Errorf("lease %v, keep-alive %v", zc.Lease, zc.KeepAlive)
	}
	g := zc.Gossip
	if g.Disabled || !slices.Equal(g.Target, []zenoh.Role{zenoh.RoleRouter}) ||
		!slices.Equal(g.Autoconnect, []zenoh.Role{zenoh.RoleRouter, zenoh.RolePeer}) || g.ToPeer != zenoh.AutoconnectGreaterZID {
		t.Errorf("gossip %+v", g)
	}
	zc = zenohConfig(zenoh.Config{Lease: time.Second, Gossip: zenoh.GossipConfig{Disabled: true}}, nil)
	if zc.Lease != time.Second || zc.KeepAlive != 0 || !zc.Gossip.Disabled || zc.Gossip.Target != nil {
		t.Errorf("explicit lease and gossip overridden: %+v", zc)
	}
}

func TestPublisherQoS(t *testing.T) {
	for _, tc := range []struct {
		q     rmw.QoS
		block bool
	}{
		{rmw.QoS{History: rmw.HistoryKeepAll, Reliability: rmw.ReliabilityReliable}, true},
		{rmw.QoS{History: rmw.HistoryKeepAll, Reliability: rmw.ReliabilityBestEffort}, false},
		{rmw.QoS{History: rmw.HistoryKeepLast, Depth: 10, Reliability: rmw.ReliabilityReliable}, false},
	} {
		if got := len(publisherQoS(tc.q)) == 1; got != tc.block {
			t.Errorf("%+v: block %v, want %v", tc.q, got, tc.block)
		}
	}
}
