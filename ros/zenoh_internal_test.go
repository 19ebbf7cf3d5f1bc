package ros

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/afortest"
	"github.com/afor-go/afor/ros/internal/rmwzenoh"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/ros/msgs/std_srvs"
	"github.com/afor-go/afor/transport/zenoh"
)

// zenohPair opens two contexts on rmw_zenoh, the second connected to the
// first over TCP loopback, both closed with the test.
func zenohPair(t *testing.T) (*Context, *Context) { return zenohPairB(t) }

func zenohPairB(t testing.TB) (*Context, *Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	quiet := WithLogger(slog.New(slog.DiscardHandler))
	a, err := Open(ctx, WithMiddleware(Zenoh(zenoh.Config{Listen: []string{"tcp/127.0.0.1:0"}})), quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	addrs := a.sess.(*rmwzenoh.Session).ListenAddrs()
	if len(addrs) == 0 {
		t.Fatal("no listen address")
	}
	b, err := Open(ctx, WithMiddleware(Zenoh(zenoh.Config{Connect: addrs[:1]})), quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return a, b
}

func newTestNode(t *testing.T, c *Context, name string) *Node {
	t.Helper()
	n, err := c.NewNode(name)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestZenohGoToGo runs a topic, a service and the graph between two Go
// nodes over rmw_zenoh on loopback.
func TestZenohGoToGo(t *testing.T) {
	a, b := zenohPair(t)
	talker := newTestNode(t, a, "talker")
	listener := newTestNode(t, b, "listener")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	sub, err := SubscribeInfo[std_msgs.String](listener, "chatter", QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := NewPublisher[std_msgs.String](talker, "chatter", QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	if err := talker.Graph().WaitForSubscriber(ctx, "chatter"); err != nil {
		t.Fatal(err)
	}
	if err := listener.Graph().WaitForPublisher(ctx, "chatter"); err != nil {
		t.Fatal(err)
	}
	// The subscription may be matched a moment after the graph shows it:
	// publish until the first message arrives.
	first := sub.ArmNext(ctx)
	for {
		if err := pub.Publish(ctx, &std_msgs.String{Data: "hello"}); err != nil {
			t.Fatal(err)
		}
		wctx, wcancel := context.WithTimeout(ctx, 50*time.Millisecond)
		r, err := first.Wait(wctx)
		wcancel()
		if err == nil {
			if r.Msg.Data != "hello" || r.Info.PublisherGID != pub.GID() || r.Info.Sequence < 1 {
				t.Fatalf("received %+v (publisher %v)", r, pub.GID())
			}
			break
		}
		if ctx.Err() != nil {
			t.Fatal("no message over Zenoh")
		}
		first = sub.ArmNext(ctx)
	}

	srv, err := NewServer(talker, "set", std_srvs.SetBool{})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for r := range srv.ListenReliable(ctx) {
			go r.Respond(std_srvs.SetBoolResponse{Success: r.Request.Data, Message: "ok"})
		}
	}()
	cli, err := NewClient(listener, "set", std_srvs.SetBool{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cli.WaitForServer(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := cli.Call(ctx, std_srvs.SetBoolRequest{Data: true})
	if err != nil || !res.Success || res.Message != "ok" {
		t.Fatalf("Call = %+v, %v", res, err)
	}

	g, err := listener.Graph().WaitFor(ctx, func(g *GraphSnapshot) bool {
		return g.HasNode("/talker") && len(g.Servers("/set")) == 1
	})
	if err != nil {
		t.Fatal(err)
	}
	if types := g.Topics()["/chatter"]; len(types) != 1 || types[0] != "std_msgs/msg/String" {
		t.Errorf("topic types %v", types)
	}
	_ = talker.Close()
	if _, err := listener.Graph().WaitFor(ctx, func(g *GraphSnapshot) bool { return !g.HasNode("/talker") }); err != nil {
		t.Fatalf("talker still in the graph: %v", err)
	}
}

// TestZenohConformancePubSub runs afortest.RunPubSub over the ROS layer on
// rmw_zenoh, Go to Go on loopback.
func TestZenohConformancePubSub(t *testing.T) {
	if testing.Short() {
		t.Skip("network test")
	}
	afortest.RunPubSub(t, afortest.PubSub{New: func(t *testing.T) (func(context.Context, string) error, *afor.Sub[string]) {
		a, b := zenohPair(t)
		pub, err := NewPublisher[std_msgs.String](newTestNode(t, a, "a"), "conformance", QoSKeepAll())
		if err != nil {
			t.Fatal(err)
		}
		sub, err := Subscribe[std_msgs.String](newTestNode(t, b, "b"), "conformance", QoSKeepAll())
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		// Wait until a message goes through, then hide it from the suite.
		for {
			w := sub.ArmNext(ctx)
			_ = pub.Publish(ctx, &std_msgs.String{Data: "__probe"})
			wctx, wcancel := context.WithTimeout(ctx, 50*time.Millisecond)
			_, err := w.Wait(wctx)
			wcancel()
			if err == nil {
				break
			}
			if ctx.Err() != nil {
				t.Fatal("no message over Zenoh")
			}
		}
		strs := afor.Map(afor.Filter(sub, func(m std_msgs.String) bool { return m.Data != "__probe" }),
			func(m std_msgs.String) (string, error) { return m.Data, nil })
		strs.OnClose(sub.Close)
		return func(ctx context.Context, s string) error { return pub.Publish(ctx, &std_msgs.String{Data: s}) }, strs
	}})
}

// TestZenohConformanceReqRep runs afortest.RunReqRep over a ROS service on
// rmw_zenoh, Go to Go on loopback, bridged to strings as in
// TestConformanceReqRep.
func TestZenohConformanceReqRep(t *testing.T) {
	if testing.Short() {
		t.Skip("network test")
	}
	afortest.RunReqRep(t, afortest.ReqRep{
		New: func(t *testing.T) (*afor.Server[string, string], *afor.Client[string, string]) {
			a, b := zenohPair(t)
			rosSrv, err := NewServer(newTestNode(t, a, "server"), "echo", echoService{})
			if err != nil {
				t.Fatal(err)
			}
			srv := afor.NewServer[string, string]()
			srv.OnClose(rosSrv.Close)
			go func() {
				defer srv.Close()
				for r := range rosSrv.ListenReliable(context.Background()) {
					resp := afor.NewResponder(r.Request.Data, func(res string, err error) error {
						if err != nil {
							return r.Fail(err)
						}
						return r.Respond(std_msgs.String{Data: res})
					})
					if !srv.Input(resp) {
						_ = r.Fail(afor.ErrRequestDropped)
					}
				}
			}()
			return srv, stringClient(t, newTestNode(t, b, "client"), "echo")
		},
		NoServer: func(t *testing.T) *afor.Client[string, string] {
			a, _ := zenohPair(t)
			return stringClient(t, newTestNode(t, a, "client"), "nobody")
		},
	})
}
