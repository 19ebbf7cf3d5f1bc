package ros

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/afortest"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/ros/msgs/std_srvs"
	"github.com/afor-go/afor/transport/dds"
)

// ddsTestDomain hands out a domain per DDS pair.
var ddsTestDomain atomic.Int32

// ddsPair opens two contexts on the DDS middleware in a fresh domain, which
// discover each other by unicast on 127.0.0.1 only (no multicast leaves the
// host), both closed with the test.
func ddsPair(t testing.TB) (*Context, *Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cfg := dds.Config{
		DomainID: 200 + int(ddsTestDomain.Add(1))%30, ExactDomain: true,
		Range: dds.RangeLocalhost, NoMulticast: true, Getenv: func(string) string { return "" },
	}
	quiet := WithLogger(slog.New(slog.DiscardHandler))
	open := func() *Context {
		c, err := Open(ctx, WithMiddleware(DDS(cfg)), quiet)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	return open(), open()
}

// networkMiddlewares is the table the conformance suites run on: every
// middleware that carries messages between processes, Go to Go on
// loopback.
var networkMiddlewares = []struct {
	name string
	pair func(testing.TB) (*Context, *Context)
}{
	{"zenoh", zenohPairB},
	{"dds", ddsPair},
}

// TestNetworkConformancePubSub runs afortest.RunPubSub over a ROS topic on
// each network middleware.
func TestNetworkConformancePubSub(t *testing.T) {
	if testing.Short() {
		t.Skip("network test")
	}
	for _, mw := range networkMiddlewares {
		t.Run(mw.name, func(t *testing.T) {
			afortest.RunPubSub(t, afortest.PubSub{New: func(t *testing.T) (func(context.Context, string) error, *afor.Sub[string]) {
				a, b := mw.pair(t)
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
						t.Fatalf("no message over %s", mw.name)
					}
				}
				strs := afor.Map(afor.Filter(sub, func(m std_msgs.String) bool { return m.Data != "__probe" }),
					func(m std_msgs.String) (string, error) { return m.Data, nil })
				strs.OnClose(sub.Close)
				return func(ctx context.Context, s string) error { return pub.Publish(ctx, &std_msgs.String{Data: s}) }, strs
			}})
		})
	}
}

// TestNetworkConformanceReqRep runs afortest.RunReqRep over a ROS service
// on each network middleware, bridged to strings as in
// TestConformanceReqRep.
func TestNetworkConformanceReqRep(t *testing.T) {
	if testing.Short() {
		t.Skip("network test")
	}
	for _, mw := range networkMiddlewares {
		t.Run(mw.name, func(t *testing.T) {
			afortest.RunReqRep(t, afortest.ReqRep{
				New: func(t *testing.T) (*afor.Server[string, string], *afor.Client[string, string]) {
					a, b := mw.pair(t)
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
					a, _ := mw.pair(t)
					return stringClient(t, newTestNode(t, a, "client"), "nobody")
				},
			})
		})
	}
}

// TestMiddlewareFromEnvDDS checks that RMW_IMPLEMENTATION unset and the
// DDS names select the DDS middleware, as in ROS 2.
func TestMiddlewareFromEnvDDS(t *testing.T) {
	for impl, want := range map[string]string{
		"": "rmw_fastrtps_cpp", "rmw_fastrtps_cpp": "rmw_fastrtps_cpp", "rmw_fastrtps_dynamic_cpp": "rmw_fastrtps_cpp",
		"rmw_cyclonedds_cpp": "rmw_cyclonedds_cpp", "rmw_zenoh_cpp": "rmw_zenoh_cpp",
	} {
		m, err := middlewareFromEnv(impl)
		if err != nil || m.String() != want || m.open == nil {
			t.Errorf("RMW_IMPLEMENTATION=%q: %v, %v; want %s", impl, m, err, want)
		}
	}
	if got := DDS(dds.Config{}).String(); got != "rmw_fastrtps_cpp" {
		t.Errorf("DDS middleware named %q", got)
	}
}

// TestNetworkGoToGo runs a topic, a service and the graph between two Go
// nodes over each network middleware on loopback.
func TestNetworkGoToGo(t *testing.T) {
	for _, mw := range networkMiddlewares {
		t.Run(mw.name, func(t *testing.T) { testGoToGo(t, mw.pair) })
	}
}

func testGoToGo(t *testing.T, pair func(testing.TB) (*Context, *Context)) {
	a, b := pair(t)
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
			t.Fatal("no message")
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
