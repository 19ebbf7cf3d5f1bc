package rmwdds

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/internal/netns"
	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/transport/dds"
)

var testDomain atomic.Int32

// sessionPair opens two sessions of a fresh domain that discover each other
// by unicast on 127.0.0.1.
func sessionPair(t *testing.T) (*Session, *Session) {
	t.Helper()
	netns.Require(t)
	d := 150 + int(testDomain.Add(1))%50
	open := func() *Session {
		s, err := Open(t.Context(), Config{DomainID: d, DDS: dds.Config{Range: dds.RangeLocalhost, Getenv: func(string) string { return "" }}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	return open(), open()
}

func waitCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	t.Cleanup(cancel)
	return ctx
}

var (
	stringType = rmw.Type{Name: "std_msgs/msg/String", DDSName: "std_msgs::msg::dds_::String_", Hash: hashString}
	setBool    = rmw.ServiceType{
		Service:  rmw.Type{Name: "std_srvs/srv/SetBool", DDSName: "std_srvs::srv::dds_::SetBool_", Hash: "RIHS01_abe9e4bb6b41b40e6789712c00ec8871923e089af3f667a79992a428cff2da0a"},
		Request:  rmw.Type{Name: "std_srvs/srv/SetBool_Request", DDSName: "std_srvs::srv::dds_::SetBool_Request_", Hash: hashSetFlagRequest},
		Response: rmw.Type{Name: "std_srvs/srv/SetBool_Response", DDSName: "std_srvs::srv::dds_::SetBool_Response_", Hash: hashSetFlagReply},
	}
)

// waitGraph waits until ok holds for s's graph. The next graph is armed
// before the current one is looked at, so that a graph that comes in
// between is not missed.
func waitGraph(t *testing.T, s *Session, ok func(*rmw.Graph) bool) *rmw.Graph {
	t.Helper()
	ctx := waitCtx(t)
	for {
		next := s.Graph().ArmNext(ctx)
		g, err := s.Graph().WaitForValue(ctx)
		if err != nil {
			t.Fatalf("graph: %v", err)
		}
		if ok(g) {
			next.Stop()
			return g
		}
		if _, err := next.Wait(ctx); err != nil {
			t.Fatalf("graph: %v (last %+v)", err, g)
		}
	}
}

func TestSessionPubSub(t *testing.T) {
	a, b := sessionPair(t)
	na, err := a.CreateNode(rmw.NodeName{Namespace: "/", Name: "talker"})
	if err != nil {
		t.Fatal(err)
	}
	nb, err := b.CreateNode(rmw.NodeName{Namespace: "/ns", Name: "listener"})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan rmw.Message, 10)
	sub, err := nb.CreateSubscription("/chatter", stringType, qosDefault, func(m rmw.Message) {
		m.Payload = slices.Clone(m.Payload)
		got <- m
	})
	if err != nil {
		t.Fatal(err)
	}
	pub, err := na.CreatePublisher("/chatter", stringType, qosDefault)
	if err != nil {
		t.Fatal(err)
	}
	ctx := waitCtx(t)
	if err := pub.(*publisher).w.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	payload := []byte{0, 1, 0, 0, 6, 0, 0, 0, 'h', 'e', 'l', 'l', 'o', 0}
	if err := pub.Publish(ctx, payload); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-got:
		// The encapsulation options may record the transport's padding.
		if len(m.Payload) < len(payload) || !slices.Equal(m.Payload[:2], payload[:2]) ||
			!slices.Equal(m.Payload[4:len(payload)], payload[4:]) || m.Info.PublisherGID != pub.GID() || m.Info.Sequence != 1 {
			t.Errorf("got %x %+v", m.Payload, m.Info)
		}
	case <-ctx.Done():
		t.Fatal("no message")
	}
	// Each side sees the other's node and endpoints: nodes from
	// ros_discovery_info, its own endpoints first hand.
	talker := rmw.NodeName{Namespace: "/", Name: "talker", Enclave: "/"}
	listener := rmw.NodeName{Namespace: "/ns", Name: "listener", Enclave: "/"}
	g := waitGraph(t, b, func(g *rmw.Graph) bool { return slices.Contains(g.Nodes, talker) })
	if !slices.Contains(g.Nodes, listener) {
		t.Errorf("b's graph lacks its own node: %+v", g.Nodes)
	}
	found := false
	for _, e := range g.Endpoints {
		if e.Kind == rmw.KindSubscription && e.Name == "/chatter" && e.Node == listener && e.GID == sub.GID() && e.TypeHash == hashString {
			found = true
		}
	}
	if !found {
		t.Errorf("b's graph lacks its subscription: %+v", g.Endpoints)
	}
	// Closing the node removes it from the other side's graph.
	if err := na.Close(); err != nil {
		t.Fatal(err)
	}
	waitGraph(t, b, func(g *rmw.Graph) bool { return !slices.Contains(g.Nodes, talker) })
	if err := pub.Publish(ctx, payload); err == nil {
		t.Error("publish after the node closed succeeded")
	}
}

func TestSessionService(t *testing.T) {
	a, b := sessionPair(t)
	ns, err := a.CreateNode(rmw.NodeName{Namespace: "/", Name: "server"})
	if err != nil {
		t.Fatal(err)
	}
	nc, err := b.CreateNode(rmw.NodeName{Namespace: "/", Name: "client"})
	if err != nil {
		t.Fatal(err)
	}
	reqs := make(chan rmw.Request, 4)
	srv, err := ns.CreateService("/set_flag", setBool, qosDefault, func(r rmw.Request) {
		r.Payload = slices.Clone(r.Payload)
		reqs <- r // answered later: a deferred reply
	})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := nc.CreateClient("/set_flag", setBool, qosDefault)
	if err != nil {
		t.Fatal(err)
	}
	ctx := waitCtx(t)
	if err := cl.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	// The server's writer must also have matched the client's reader.
	if err := srv.(*service).rr.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	replies := make(chan []byte, 4)
	request := []byte{0, 1, 0, 0, 1, 0, 0, 0}
	for range 2 {
		if _, err := cl.Send(ctx, request, func(p []byte, err error) {
			if err != nil {
				t.Errorf("reply error: %v", err)
			}
			replies <- slices.Clone(p)
		}); err != nil {
			t.Fatal(err)
		}
	}
	var got []rmw.Request
	for range 2 {
		select {
		case r := <-reqs:
			got = append(got, r)
		case <-ctx.Done():
			t.Fatal("no request")
		}
	}
	for i, r := range got {
		if !slices.Equal(r.Payload[:len(request)], request) || r.Info.Sequence != int64(i+1) {
			t.Errorf("request %d: %x %+v", i, r.Payload, r.Info)
		}
	}
	// Answer the second first.
	answer := func(r rmw.Request, b byte) {
		if err := r.Reply([]byte{0, 1, 0, 0, b, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}, nil); err != nil {
			t.Fatal(err)
		}
	}
	answer(got[1], 1)
	answer(got[0], 0)
	if err := got[0].Reply(nil, nil); !errors.Is(err, ErrAlreadyReplied) {
		t.Errorf("second reply: %v", err)
	}
	for _, want := range []byte{1, 0} {
		select {
		case p := <-replies:
			if p[4] != want {
				t.Errorf("reply %x, want success %d", p, want)
			}
		case <-ctx.Done():
			t.Fatal("no reply")
		}
	}
	// The service is listed once on both sides, with its node.
	server := rmw.NodeName{Namespace: "/", Name: "server", Enclave: "/"}
	waitGraph(t, b, func(g *rmw.Graph) bool { return slices.Contains(g.Nodes, server) })
	g := waitGraph(t, a, func(*rmw.Graph) bool { return true })
	n := 0
	for _, e := range g.Endpoints {
		if e.Kind == rmw.KindService {
			n++
			if e.Name != "/set_flag" || e.Type != "std_srvs/srv/SetBool" || e.Node != server || e.GID != srv.GID() {
				t.Errorf("service endpoint %+v", e)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d service endpoints: %+v", n, g.Endpoints)
	}

	// A request whose ctx ends gets the ctx's error; a closed client's
	// pending requests get ErrClosed.
	short, cancel := context.WithCancel(ctx)
	errs := make(chan error, 2)
	if _, err := cl.Send(short, request, func(_ []byte, err error) { errs <- err }); err != nil {
		t.Fatal(err)
	}
	<-reqs
	cancel()
	if err := <-errs; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled request: %v", err)
	}
	if _, err := cl.Send(ctx, request, func(_ []byte, err error) { errs <- err }); err != nil {
		t.Fatal(err)
	}
	<-reqs
	_ = cl.Close()
	if err := <-errs; !errors.Is(err, ErrClosed) {
		t.Errorf("request of a closed client: %v", err)
	}
	if _, err := cl.Send(ctx, request, func([]byte, error) {}); err == nil {
		t.Error("Send on a closed client succeeded")
	}
}

func TestSessionNoServer(t *testing.T) {
	a, _ := sessionPair(t)
	n, err := a.CreateNode(rmw.NodeName{Namespace: "/", Name: "lonely"})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := n.CreateClient("/nobody", setBool, qosDefault)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Send(t.Context(), []byte{0, 1, 0, 0, 1}, func([]byte, error) {}); !errors.Is(err, afor.ErrNoServer) {
		t.Errorf("Send without a server: %v", err)
	}
	for _, bad := range []rmw.NodeName{{}, {Namespace: "/"}, {Namespace: "x", Name: "n"}} {
		if _, err := a.CreateNode(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("CreateNode(%+v): %v", bad, err)
		}
	}
	if _, err := n.CreatePublisher("chatter", stringType, qosDefault); !errors.Is(err, ErrInvalid) {
		t.Errorf("relative topic: %v", err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := a.CreateNode(rmw.NodeName{Namespace: "/", Name: "late"}); !errors.Is(err, ErrClosed) {
		t.Errorf("CreateNode after Close: %v", err)
	}
	if _, err := n.CreatePublisher("/chatter", stringType, qosDefault); err == nil {
		t.Error("CreatePublisher on a closed session succeeded")
	}
}
