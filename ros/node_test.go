package ros_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
)

func TestNodeNames(t *testing.T) {
	net := ros.NewMemoryNetwork()
	for _, c := range []struct {
		name   string
		opts   []ros.Option
		wantNS string
		want   string
	}{
		{"talker", nil, "/", "/talker"},
		{"talker", []ros.Option{ros.WithNamespace("robot1")}, "/robot1", "/robot1/talker"},
		{"talker", []ros.Option{ros.WithNamespace("/a/b")}, "/a/b", "/a/b/talker"},
		{"talker", []ros.Option{ros.WithArgs([]string{"--ros-args", "-r", "__node:=speaker", "-r", "__ns:=/x"})}, "/x", "/x/speaker"},
		{"talker", []ros.Option{ros.WithArgs([]string{"--ros-args", "-r", "other:__node:=no", "-r", "talker:__ns:=/t"})}, "/t", "/t/talker"},
	} {
		n := memNode(t, net, c.name, c.opts...)
		if n.Namespace() != c.wantNS || n.FullyQualifiedName() != c.want {
			t.Errorf("%s %d options: namespace %q, name %q; want %q, %q", c.name, len(c.opts), n.Namespace(), n.FullyQualifiedName(), c.wantNS, c.want)
		}
		if !n.Graph().Snapshot().HasNode(c.want) {
			t.Errorf("%s not in the graph", c.want)
		}
	}
}

func TestInvalidNodeNames(t *testing.T) {
	net := ros.NewMemoryNetwork()
	mw := ros.WithMiddleware(ros.Memory(net))
	ctx := context.Background()
	for _, c := range []struct {
		name string
		opts []ros.Option
	}{
		{"", nil}, {"1talker", nil}, {"my-node", nil}, {"a/b", nil},
		{"n", []ros.Option{ros.WithNamespace("/a//b")}},
		{"n", []ros.Option{ros.WithNamespace("/a/")}},
		{"n", []ros.Option{ros.WithNamespace("/1a")}},
		{"n", []ros.Option{ros.WithArgs([]string{"--ros-args", "-r", "__node:=1x"})}},
		{"n", []ros.Option{ros.WithArgs([]string{"--ros-args", "-r", "__ns:=relative"})}},
	} {
		n, err := ros.NewNode(ctx, c.name, append(c.opts, mw)...)
		if !errors.Is(err, ros.ErrInvalidName) {
			t.Errorf("NewNode(%q, %d options) = %v, want ErrInvalidName", c.name, len(c.opts), err)
		}
		if n != nil {
			_ = n.Close()
		}
	}
	if _, err := ros.NewNode(ctx, "n", mw, ros.WithArgs([]string{"--ros-args", "--unknown"})); !errors.Is(err, ros.ErrInvalidArgs) {
		t.Errorf("unknown ROS argument: %v", err)
	}
}

func TestRemapTopics(t *testing.T) {
	net := ros.NewMemoryNetwork()
	n := memNode(t, net, "talker", ros.WithNamespace("/robot"), ros.WithArgs([]string{
		"prog", "--ros-args", "-r", "rosservice://chatter:=/svc", "-r", "chatter:=speech", "-r", "chatter:=not_first", "-r", "other:~/x:=/no", "--", "rest",
	}))
	for _, c := range []struct {
		name    string
		service bool
		want    string
	}{
		{"chatter", false, "/robot/speech"},
		{"/robot/chatter", false, "/robot/speech"},
		{"chatter", true, "/svc"},
		{"~/x", false, "/robot/talker/x"},
		{"{node}/state", false, "/robot/talker/state"},
		{"/abs", false, "/abs"},
	} {
		var got string
		var err error
		if c.service {
			got, err = n.ResolveServiceName(c.name)
		} else {
			got, err = n.ResolveTopicName(c.name)
		}
		if err != nil || got != c.want {
			t.Errorf("resolve %q (service %v) = %q, %v; want %q", c.name, c.service, got, err, c.want)
		}
	}
	pub, err := ros.NewPublisher[std_msgs.String](n, "chatter", ros.QoSDefault)
	if err != nil || pub.Topic() != "/robot/speech" {
		t.Fatalf("remapped publisher: %v, %v", pub, err)
	}
	if len(n.Graph().Snapshot().Publishers("/robot/speech")) != 1 {
		t.Error("the remapped name is not the one in the graph")
	}
}

func TestSharedContext(t *testing.T) {
	net := ros.NewMemoryNetwork()
	ctx := context.Background()
	c, err := ros.Open(ctx, ros.WithMiddleware(ros.Memory(net)), ros.WithDomainID(7),
		ros.WithArgs([]string{"--ros-args", "-r", "chatter:=global", "-e", "/secure"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.DomainID() != 7 || c.Middleware().String() != "afor_memory" {
		t.Errorf("domain %d, middleware %v", c.DomainID(), c.Middleware())
	}
	a, err := c.NewNode("a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.NewNode("b", ros.WithArgs([]string{"--ros-args", "-r", "chatter:=local"}))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := a.ResolveTopicName("chatter"); got != "/global" {
		t.Errorf("a: chatter -> %q, want the context's rule", got)
	}
	if got, _ := b.ResolveTopicName("chatter"); got != "/local" {
		t.Errorf("b: chatter -> %q, want the node's rule first", got)
	}
	if _, err := c.NewNode("x", ros.WithDomainID(3)); err == nil || !strings.Contains(err.Error(), "context option") {
		t.Errorf("context option on NewNode: %v", err)
	}
	g := a.Graph().Snapshot()
	if len(g.Nodes) != 2 || g.Nodes[0].Enclave != "/secure" {
		t.Errorf("graph nodes %+v", g.Nodes)
	}
	sub, err := ros.Subscribe[std_msgs.String](b, "t", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	// Closing one node leaves the other; closing the context closes all.
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if g := b.Graph().Snapshot(); len(g.Nodes) != 1 || g.Nodes[0].Name != "b" {
		t.Errorf("after closing a: %+v", g.Nodes)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	<-sub.Done()
	if _, err := c.NewNode("late"); !errors.Is(err, ros.ErrClosed) {
		t.Errorf("NewNode on a closed context: %v", err)
	}
	other := memNode(t, net, "other")
	if g := other.Graph().Snapshot(); len(g.Nodes) != 1 {
		t.Errorf("closed context's nodes still in the graph: %+v", g.Nodes)
	}
}

func TestDomainID(t *testing.T) {
	mw := ros.WithMiddleware(ros.Memory(ros.NewMemoryNetwork()))
	ctx := context.Background()
	t.Setenv("ROS_DOMAIN_ID", "42")
	c, err := ros.Open(ctx, mw)
	if err != nil || c.DomainID() != 42 {
		t.Fatalf("ROS_DOMAIN_ID=42: %v, %v", c, err)
	}
	_ = c.Close()
	c, err = ros.Open(ctx, mw, ros.WithDomainID(5))
	if err != nil || c.DomainID() != 5 {
		t.Fatalf("WithDomainID(5) over the environment: %v", err)
	}
	_ = c.Close()
	for _, env := range []string{"x", "-1", "233"} {
		t.Setenv("ROS_DOMAIN_ID", env)
		if _, err := ros.Open(ctx, mw); !errors.Is(err, ros.ErrInvalidDomainID) {
			t.Errorf("ROS_DOMAIN_ID=%s: %v", env, err)
		}
	}
	t.Setenv("ROS_DOMAIN_ID", "")
	c, err = ros.Open(ctx, mw)
	if err != nil || c.DomainID() != 0 {
		t.Fatalf("empty ROS_DOMAIN_ID: %v", err)
	}
	_ = c.Close()
	if _, err := ros.Open(ctx, mw, ros.WithDomainID(ros.MaxDomainID+1)); !errors.Is(err, ros.ErrInvalidDomainID) {
		t.Errorf("WithDomainID(233): %v", err)
	}
}

func TestMiddlewareFromEnvironment(t *testing.T) {
	// The DDS names (and unset) select DDS: see TestMiddlewareFromEnvDDS.
	for _, impl := range []string{"rmw_connextdds", "rmw_bogus"} {
		t.Setenv("RMW_IMPLEMENTATION", impl)
		_, err := ros.NewNode(context.Background(), "n")
		if !errors.Is(err, ros.ErrUnsupportedMiddleware) || !strings.Contains(err.Error(), impl) {
			t.Errorf("RMW_IMPLEMENTATION=%s: %v", impl, err)
		}
	}
	// An explicit middleware wins over the environment.
	n, err := ros.NewNode(context.Background(), "n", ros.WithMiddleware(ros.Memory(ros.NewMemoryNetwork())))
	if err != nil {
		t.Fatal(err)
	}
	_ = n.Close()
}
