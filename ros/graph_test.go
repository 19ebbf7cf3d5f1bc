package ros_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/ros/msgs/std_srvs"
)

func TestGraph(t *testing.T) {
	net := ros.NewMemoryNetwork()
	talker := memNode(t, net, "talker", ros.WithNamespace("/robot1"))
	listener := memNode(t, net, "listener")
	pub, err := ros.NewPublisher[std_msgs.String](talker, "chatter", ros.QoSSensorData)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ros.Subscribe[std_msgs.String](listener, "/robot1/chatter", ros.QoSDefault); err != nil {
		t.Fatal(err)
	}
	if _, err := ros.NewServer(talker, "set", std_srvs.SetBool{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ros.NewClient(listener, "/robot1/set", std_srvs.SetBool{}); err != nil {
		t.Fatal(err)
	}
	g := listener.Graph().Snapshot()
	var nodes []string
	for _, n := range g.Nodes {
		nodes = append(nodes, n.FullyQualifiedName())
	}
	if !slices.Equal(nodes, []string{"/robot1/talker", "/listener"}) {
		t.Errorf("nodes %v", nodes)
	}
	// Every node also has /rosout, /parameter_events, its parameter
	// services and its type description service: see TestBuiltinEntities.
	if got := g.Topics(); len(got) != 3 || !slices.Equal(got["/robot1/chatter"], []string{"std_msgs/msg/String"}) {
		t.Errorf("topics %v", got)
	}
	if got := g.Services(); len(got) != 1+2*7 || !slices.Equal(got["/robot1/set"], []string{"std_srvs/srv/SetBool"}) {
		t.Errorf("services %v", got)
	}
	pubs := g.Publishers("/robot1/chatter")
	if len(pubs) != 1 || pubs[0].Node.Name != "talker" || pubs[0].Node.Namespace != "/robot1" ||
		pubs[0].GID != pub.GID() || pubs[0].QoS != ros.QoSSensorData || pubs[0].TypeHash != (&std_msgs.String{}).TypeHash() {
		t.Errorf("publishers %+v", pubs)
	}
	if subs := g.Subscriptions("/robot1/chatter"); len(subs) != 1 || subs[0].Node.Name != "listener" || subs[0].Kind != ros.KindSubscription {
		t.Errorf("subscriptions %+v", subs)
	}
	if s := g.Servers("/robot1/set"); len(s) != 1 || s[0].Node.Name != "talker" {
		t.Errorf("servers %+v", s)
	}
	if c := g.Clients("/robot1/set"); len(c) != 1 || c[0].Node.Name != "listener" {
		t.Errorf("clients %+v", c)
	}
	// Closing a node removes it and its endpoints.
	_ = talker.Close()
	g = listener.Graph().Snapshot()
	if len(g.Nodes) != 1 || len(g.Publishers("/robot1/chatter")) != 0 || len(g.Servers("/robot1/set")) != 0 {
		t.Errorf("after closing the talker: %+v", g)
	}
}

func TestGraphWaits(t *testing.T) {
	net := ros.NewMemoryNetwork()
	watcher := memNode(t, net, "watcher", ros.WithNamespace("/ns"))
	g := watcher.Graph()
	updates := g.Updates()
	defer updates.Close()
	ctx := testCtx(t)
	errs := make(chan error, 4)
	go func() { errs <- g.WaitForPublisher(ctx, "chatter") }() // relative: /ns/chatter
	go func() { errs <- g.WaitForSubscriber(ctx, "/ns/chatter") }()
	go func() { errs <- g.WaitForService(ctx, "srv") }()
	go func() { errs <- g.WaitForNode(ctx, "/ns/other") }()

	next := updates.ArmNext(ctx)
	other := memNode(t, net, "other", ros.WithNamespace("/ns"))
	if s, err := next.Wait(ctx); err != nil || !s.HasNode("/ns/other") {
		t.Fatalf("update after a node joined: %v", err)
	}
	if _, err := ros.NewPublisher[std_msgs.String](other, "chatter", ros.QoSDefault); err != nil {
		t.Fatal(err)
	}
	if _, err := ros.Subscribe[std_msgs.String](other, "chatter", ros.QoSDefault); err != nil {
		t.Fatal(err)
	}
	if _, err := ros.NewServer(other, "srv", std_srvs.Empty{}); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	if err := g.WaitForService(short, "nothing"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("WaitForService of a missing service: %v", err)
	}
	if err := g.WaitForPublisher(ctx, "bad//name"); !errors.Is(err, ros.ErrInvalidName) {
		t.Errorf("WaitForPublisher(invalid): %v", err)
	}
	// The context closing ends a wait.
	done := make(chan error, 1)
	go func() { done <- g.WaitForService(ctx, "never") }()
	_ = watcher.Close()
	if err := <-done; !errors.Is(err, ros.ErrClosed) {
		t.Errorf("wait ended by Close: %v", err)
	}
}
