package ros

import (
	"context"
	"testing"
	"time"

	"github.com/afor-go/afor/ros/msgs/example_interfaces"
	"github.com/afor-go/afor/ros/msgs/std_srvs"
)

// BenchmarkActionGoal compares a whole goal (send_goal, accept, succeed at
// once, get_result, with the status publications) with one service call,
// the primitive underneath, on the in-memory middleware. A goal is two
// calls and three status arrays; each array lists every goal still within
// the result timeout (as in rcl), so the cost per goal grows with the
// goals kept: compare runs with the same -benchtime.
func BenchmarkActionGoal(b *testing.B) {
	pair := func(b *testing.B) (*Node, *Node) {
		net := NewMemoryNetwork()
		var nodes []*Node
		for _, name := range []string{"server", "client"} {
			c, err := Open(context.Background(), WithMiddleware(Memory(net)))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = c.Close() })
			n, err := c.NewNode(name)
			if err != nil {
				b.Fatal(err)
			}
			nodes = append(nodes, n)
		}
		return nodes[0], nodes[1]
	}
	ctx := context.Background()
	b.Run("service_call", func(b *testing.B) {
		sn, cn := pair(b)
		srv, err := NewServer(sn, "set", std_srvs.SetBool{})
		if err != nil {
			b.Fatal(err)
		}
		defer srv.Close()
		go func() {
			for r := range srv.ListenReliable(ctx) {
				_ = r.Respond(std_srvs.SetBoolResponse{Success: true})
			}
		}()
		cl, err := NewClient(cn, "set", std_srvs.SetBool{})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := cl.Call(ctx, std_srvs.SetBoolRequest{Data: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("action_goal", func(b *testing.B) {
		sn, cn := pair(b)
		// Results expire after 1 s: with the default 10 s, the status array
		// would list every goal of the run (as in rcl), and grow.
		srv, err := NewActionServer(sn, "fib", example_interfaces.Fibonacci{}, WithResultTimeout(time.Second))
		if err != nil {
			b.Fatal(err)
		}
		defer srv.Close()
		go func() {
			for g := range srv.ListenReliable(ctx) {
				if g.Accept() == nil {
					_ = g.Succeed(example_interfaces.FibonacciResult{Sequence: []int32{0, 1}})
				}
			}
		}()
		cl, err := NewActionClient(cn, "fib", example_interfaces.Fibonacci{})
		if err != nil {
			b.Fatal(err)
		}
		defer cl.Close()
		b.ReportAllocs()
		for b.Loop() {
			h, err := cl.SendGoal(ctx, example_interfaces.FibonacciGoal{Order: 1})
			if err != nil {
				b.Fatal(err)
			}
			if _, _, err := h.Result(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}
