// Command ros-talker is ROS 2's demo talker in pure Go: a node "talker"
// that publishes std_msgs/msg/String "hello world: N" on "chatter" at
// -rate Hz, over rmw_zenoh's conventions (package ros, middleware
// ros.Zenoh).
//
// By default it opens the session rmw_zenoh_cpp opens: a Zenoh peer
// connecting to a router on tcp/localhost:7447. With a ROS 2 router and
// listener on rmw_zenoh (ROS 2 Kilted with ros-kilted-rmw-zenoh-cpp: afor
// follows rmw_zenoh_cpp 0.6.6's conventions):
//
//	ros2 run rmw_zenoh_cpp rmw_zenohd
//	RMW_IMPLEMENTATION=rmw_zenoh_cpp ros2 run demo_nodes_cpp listener
//	go run ./examples/ros-talker
//
// The listener prints "I heard: [hello world: 1]" and so on. afor's Zenoh
// does not follow the router's gossip yet, so if the listener hears
// nothing, make the Go node a client of the router, which then forwards
// everything: go run ./examples/ros-talker -mode client.
//
// Two Go nodes need no router: one listens, the other connects.
//
//	go run ./examples/ros-listener -listen tcp/127.0.0.1:7448
//	go run ./examples/ros-talker -connect tcp/127.0.0.1:7448
//
// Arguments after --ros-args are ROS arguments, as for any ROS 2 node:
//
//	go run ./examples/ros-talker -- --ros-args -r chatter:=/robot1/chatter -r __ns:=/robot1
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/transport/zenoh"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "ros-talker:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("ros-talker", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: ros-talker [flags] [--ros-args ...]\n\nPublishes \"hello world: N\" on chatter, as ROS 2's demo talker. Flags:")
		fs.PrintDefaults()
	}
	topic := fs.String("topic", "chatter", "topic name (ROS remapping rules apply)")
	rate := fs.Float64("rate", 1, "messages per second")
	count := fs.Int("count", 0, "messages to publish, 0 for no end")
	wait := fs.Bool("wait", false, "wait for a subscription to the topic before the first message")
	z := zenohFlags(fs)
	flags, rosArgs := splitROSArgs(args)
	if err := fs.Parse(flags); err != nil {
		return err
	}
	cfg, err := z.config()
	if err != nil {
		return err
	}
	ticks, err := afor.NewRate(*rate)
	if err != nil {
		return err
	}
	defer ticks.Close()
	node, err := ros.NewNode(ctx, "talker", ros.WithMiddleware(ros.Zenoh(cfg)), ros.WithArgs(rosArgs))
	if err != nil {
		return err
	}
	defer node.Close()
	if addrs := node.Context().ListenAddrs(); len(addrs) > 0 {
		fmt.Fprintln(out, "listening on", strings.Join(addrs, ","))
	}
	pub, err := ros.NewPublisher[std_msgs.String](node, *topic, ros.QoSDefault)
	if err != nil {
		return err
	}
	if *wait {
		fmt.Fprintln(out, "waiting for a subscription to", pub.Topic())
		if err := node.Graph().WaitForSubscriber(ctx, pub.Topic()); err != nil {
			return err
		}
	}
	var msg std_msgs.String
	n := 0
	for range ticks.ListenReliable(ctx) {
		n++
		msg.Data = fmt.Sprintf("hello world: %d", n)
		fmt.Fprintf(out, "Publishing: '%s'\n", msg.Data)
		if err := pub.Publish(ctx, &msg); err != nil {
			return err
		}
		if n == *count {
			// Let the last message leave before Close ends the session.
			return linger(ctx)
		}
	}
	return interrupted(ctx)
}

// linger gives the last messages a moment to reach the subscribers before
// the node closes: a publisher has no acknowledgement to wait for.
func linger(ctx context.Context) error {
	select {
	case <-time.After(100 * time.Millisecond):
	case <-ctx.Done():
	}
	return nil
}

// interrupted is nil when ctx was cancelled (Ctrl-C), its error otherwise.
func interrupted(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.Canceled) {
		return nil
	}
	return ctx.Err()
}

// zenohOptions are the session flags shared by the ROS examples.
type zenohOptions struct {
	mode, listen, connect *string
}

func zenohFlags(fs *flag.FlagSet) zenohOptions {
	return zenohOptions{
		mode:    fs.String("mode", "peer", "Zenoh mode: peer, or client (of a router)"),
		listen:  fs.String("listen", "", "comma-separated Zenoh endpoints to listen on, e.g. tcp/127.0.0.1:7448 (port 0 picks one)"),
		connect: fs.String("connect", "", "comma-separated Zenoh endpoints to connect to (default, with no -listen either: rmw_zenoh's router, tcp/localhost:7447)"),
	}
}

// config returns the Zenoh session configuration: rmw_zenoh's default
// (the zero Config) unless endpoints are given.
func (o zenohOptions) config() (zenoh.Config, error) {
	cfg := zenoh.Config{Listen: split(*o.listen), Connect: split(*o.connect)}
	switch *o.mode {
	case "peer":
	case "client":
		cfg.Mode = zenoh.ModeClient
	default:
		return cfg, fmt.Errorf("unknown -mode %q (want peer or client)", *o.mode)
	}
	return cfg, nil
}

// splitROSArgs splits the command line at the first "--ros-args": what is
// before it are the program's flags, the rest is for ros.WithArgs.
func splitROSArgs(args []string) (flags, rosArgs []string) {
	if i := slices.Index(args, "--ros-args"); i >= 0 {
		return args[:i], args[i:]
	}
	return args, nil
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
