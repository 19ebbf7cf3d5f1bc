package rmwmem

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/internal/rmw"
)

var (
	strType = rmw.Type{Name: "std_msgs/msg/String", DDSName: "std_msgs::msg::dds_::String_", Hash: "RIHS01_a"}
	intType = rmw.Type{Name: "std_msgs/msg/Int32", DDSName: "std_msgs::msg::dds_::Int32_", Hash: "RIHS01_b"}
	srvType = rmw.ServiceType{Service: rmw.Type{Name: "std_srvs/srv/Empty", Hash: "RIHS01_c"}}
	qos     = rmw.QoS{History: rmw.HistoryKeepLast, Depth: 10, Reliability: rmw.ReliabilityReliable, Durability: rmw.DurabilityVolatile}
)

func mustNode(t *testing.T, s *Session, name string) rmw.Node {
	t.Helper()
	n, err := s.CreateNode(rmw.NodeName{Namespace: "/", Name: name, Enclave: "/"})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestPubSubMatchesNameTypeAndHash(t *testing.T) {
	net := NewNetwork()
	a, b := net.Open(), net.Open()
	defer a.Close()
	defer b.Close()
	na, nb := mustNode(t, a, "a"), mustNode(t, b, "b")
	var got []rmw.Message
	_, err := nb.CreateSubscription("/t", strType, qos, func(m rmw.Message) {
		m.Payload = append([]byte(nil), m.Payload...)
		got = append(got, m)
	})
	if err != nil {
		t.Fatal(err)
	}
	other := strType
	other.Hash = "RIHS01_other"
	for _, pt := range []struct {
		topic string
		typ   rmw.Type
	}{{"/t", strType}, {"/t", intType}, {"/t", other}, {"/u", strType}} {
		p, err := na.CreatePublisher(pt.topic, pt.typ, qos)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := p.Publish(context.Background(), []byte("x")); err != nil {
				t.Fatal(err)
			}
		}
		if pt.typ == strType && pt.topic == "/t" {
			if len(got) != 2 || got[0].Info.Sequence != 1 || got[1].Info.Sequence != 2 || got[0].Info.PublisherGID != p.GID() {
				t.Fatalf("got %+v", got)
			}
		}
	}
	if len(got) != 2 {
		t.Errorf("a publisher of another name, type or hash reached the subscription: %d messages", len(got))
	}
}

func TestTransientLocalHistory(t *testing.T) {
	net := NewNetwork()
	s := net.Open()
	defer s.Close()
	n := mustNode(t, s, "n")
	tl := qos
	tl.Durability, tl.Depth = rmw.DurabilityTransientLocal, 2
	p, err := n.CreatePublisher("/t", strType, tl)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"1", "2", "3"} {
		_ = p.Publish(context.Background(), []byte(m))
	}
	var got []string
	_, err = n.CreateSubscription("/t", strType, tl, func(m rmw.Message) { got = append(got, string(m.Payload)) })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != "2" || got[1] != "3" {
		t.Errorf("history %v, want [2 3]", got)
	}
}

func TestServiceAndGraph(t *testing.T) {
	net := NewNetwork()
	s := net.Open()
	n := mustNode(t, s, "n")
	c, err := n.CreateClient("/svc", srvType, qos)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Send(context.Background(), nil, func([]byte, error) {}); !errors.Is(err, afor.ErrNoServer) {
		t.Fatalf("Send without server: %v", err)
	}
	var reqs []rmw.Request
	if _, err := n.CreateService("/svc", srvType, qos, func(r rmw.Request) { reqs = append(reqs, r) }); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := c.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	var reply []byte
	if _, err := c.Send(ctx, []byte("req"), func(p []byte, err error) { reply = p }); err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 1 || string(reqs[0].Payload) != "req" || reqs[0].Info.PublisherGID != c.GID() || reqs[0].Info.Sequence != 1 {
		t.Fatalf("requests %+v", reqs)
	}
	if err := reqs[0].Reply([]byte("res"), nil); err != nil || string(reply) != "res" {
		t.Fatalf("reply %q, %v", reply, err)
	}
	if err := reqs[0].Reply([]byte("again"), nil); err == nil {
		t.Error("a second reply was accepted")
	}
	// An abandoned request's reply is dropped.
	reply = nil
	cancelReq, _ := c.Send(ctx, []byte("req2"), func(p []byte, err error) { reply = p })
	cancelReq()
	_ = reqs[1].Reply([]byte("late"), nil)
	if reply != nil {
		t.Errorf("abandoned request got %q", reply)
	}

	g, ok := s.Graph().Value()
	if !ok || len(g.Nodes) != 1 || len(g.Endpoints) != 2 {
		t.Fatalf("graph %+v", g)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	other := net.Open()
	defer other.Close()
	if g, _ := other.Graph().Value(); len(g.Nodes) != 0 || len(g.Endpoints) != 0 {
		t.Errorf("a closed session's entities remain: %+v", g)
	}
	if _, err := s.CreateNode(rmw.NodeName{Name: "x"}); !errors.Is(err, ErrClosed) {
		t.Errorf("CreateNode on a closed session: %v", err)
	}
}
