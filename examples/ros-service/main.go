// Command ros-service is ROS 2's add_two_ints demo in pure Go: a server of
// the example_interfaces/srv/AddTwoInts service "add_two_ints" that answers
// each request later, from a goroutine of its own (ros.NewServer gives an
// afor.Server, whose Responders may answer from anywhere), and a client
// that waits for the server and calls it.
//
// Both roles run on the middleware RMW_IMPLEMENTATION names: DDS when it
// is unset, next to "ros2 run demo_nodes_cpp add_two_ints_client" (or
// _server); rmw_zenoh's session for rmw_zenoh_cpp or when -mode, -listen
// or -connect is given:
//
//	ros2 run rmw_zenoh_cpp rmw_zenohd
//	RMW_IMPLEMENTATION=rmw_zenoh_cpp go run ./examples/ros-service -role server
//	RMW_IMPLEMENTATION=rmw_zenoh_cpp ros2 run demo_nodes_cpp add_two_ints_client
//
// Two Go processes need no router: the server listens, the client connects.
//
//	go run ./examples/ros-service -role server -listen tcp/127.0.0.1:7448
//	go run ./examples/ros-service -role client -connect tcp/127.0.0.1:7448 -a 2 -b 3
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/examples/internal/rosflags"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/example_interfaces"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "ros-service:", err)
		os.Exit(1)
	}
}

type options struct {
	role, service string
	calls         int
	a, b          int64
	delay, wait   time.Duration
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("ros-service", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: ros-service -role server|client [flags] [--ros-args ...]\n\nServes or calls example_interfaces/srv/AddTwoInts, as ROS 2's add_two_ints demo. Flags:")
		fs.PrintDefaults()
	}
	var o options
	fs.StringVar(&o.role, "role", "server", "server or client")
	fs.StringVar(&o.service, "service", "add_two_ints", "service name (ROS remapping rules apply)")
	fs.IntVar(&o.calls, "calls", 1, "client: calls to make; server: requests to answer before exiting, 0 for no end")
	fs.Int64Var(&o.a, "a", 2, "client: the first number (call k sends a+k)")
	fs.Int64Var(&o.b, "b", 3, "client: the second number")
	fs.DurationVar(&o.delay, "delay", 10*time.Millisecond, "server: how long each answer takes")
	fs.DurationVar(&o.wait, "wait", 10*time.Second, "client: how long to wait for a server")
	rmw := rosflags.Register(fs)
	flags, rosArgs := rosflags.SplitROSArgs(args)
	if err := fs.Parse(flags); err != nil {
		return err
	}
	if o.role != "server" && o.role != "client" {
		return fmt.Errorf("unknown -role %q (want server or client)", o.role)
	}
	mw, err := rmw.Middleware()
	if err != nil {
		return err
	}
	node, err := ros.NewNode(ctx, "add_two_ints_"+o.role, ros.WithMiddleware(mw), ros.WithArgs(rosArgs))
	if err != nil {
		return err
	}
	defer node.Close()
	if addrs := node.Context().ListenAddrs(); len(addrs) > 0 {
		fmt.Fprintln(out, "listening on", strings.Join(addrs, ","))
	}
	if o.role == "server" {
		return serve(ctx, node, o, out)
	}
	return call(ctx, node, o, out)
}

// serve answers o.calls requests (or until ctx ends), each after o.delay
// from a goroutine of its own, and returns once every answer is sent.
func serve(ctx context.Context, node *ros.Node, o options, out io.Writer) error {
	srv, err := ros.NewServer(node, o.service, example_interfaces.AddTwoInts{})
	if err != nil {
		return err
	}
	defer srv.Close()
	name, _ := node.ResolveServiceName(o.service)
	fmt.Fprintln(out, "serving", name)
	var answers sync.WaitGroup
	defer answers.Wait() // before the node closes
	n := 0
	for r := range srv.ListenReliable(ctx) {
		fmt.Fprintf(out, "Incoming request: a: %d b: %d\n", r.Request.A, r.Request.B)
		answers.Go(func() { answerLater(r, o.delay) })
		if n++; n == o.calls {
			return nil
		}
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return nil
	}
	return ctx.Err()
}

// answerLater answers after some work; the reply goes back from this
// goroutine, not the one that received the request.
func answerLater(r *afor.Responder[example_interfaces.AddTwoIntsRequest, example_interfaces.AddTwoIntsResponse], delay time.Duration) {
	time.Sleep(delay) // the work
	_ = r.Respond(example_interfaces.AddTwoIntsResponse{Sum: r.Request.A + r.Request.B})
}

// call waits for a server, then makes o.calls calls, one at a time.
func call(ctx context.Context, node *ros.Node, o options, out io.Writer) error {
	cli, err := ros.NewClient(node, o.service, example_interfaces.AddTwoInts{})
	if err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, o.wait)
	err = cli.WaitForServer(wctx)
	cancel()
	if err != nil {
		return fmt.Errorf("no server of %s: %w", o.service, err)
	}
	for k := range int64(o.calls) {
		req := example_interfaces.AddTwoIntsRequest{A: o.a + k, B: o.b}
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		res, err := cli.Call(cctx, req)
		cancel()
		if err != nil {
			return fmt.Errorf("call %d + %d: %w", req.A, req.B, err)
		}
		fmt.Fprintf(out, "Result of add_two_ints: %d + %d = %d\n", req.A, req.B, res.Sum)
	}
	return nil
}
