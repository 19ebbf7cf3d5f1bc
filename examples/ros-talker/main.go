// Command ros-talker is ROS 2's demo talker in pure Go: a node "talker"
// that publishes std_msgs/msg/String "hello world: N" on "chatter" at
// -rate Hz.
//
// It runs on the middleware RMW_IMPLEMENTATION names, as any ROS 2 node:
// DDS (ROS 2's default) when it is unset, next to any ROS 2 listener on
// the same network:
//
//	go run ./examples/ros-talker
//	ros2 run demo_nodes_cpp listener          # or: ros2 topic echo /chatter
//
// On rmw_zenoh (RMW_IMPLEMENTATION=rmw_zenoh_cpp, or any of -mode, -listen,
// -connect) it opens the session rmw_zenoh_cpp opens: a Zenoh peer
// connecting to a router on tcp/localhost:7447, linking directly to the
// peers the router's gossip announces:
//
//	ros2 run rmw_zenoh_cpp rmw_zenohd
//	RMW_IMPLEMENTATION=rmw_zenoh_cpp ros2 run demo_nodes_cpp listener
//	RMW_IMPLEMENTATION=rmw_zenoh_cpp go run ./examples/ros-talker
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
	"strings"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/examples/internal/rosflags"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
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
	rmw := rosflags.Register(fs)
	flags, rosArgs := rosflags.SplitROSArgs(args)
	if err := fs.Parse(flags); err != nil {
		return err
	}
	mw, err := rmw.Middleware()
	if err != nil {
		return err
	}
	ticks, err := afor.NewRate(*rate)
	if err != nil {
		return err
	}
	defer ticks.Close()
	node, err := ros.NewNode(ctx, "talker", ros.WithMiddleware(mw), ros.WithArgs(rosArgs))
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
		if err := pub.WaitForSubscriptions(ctx, 1); err != nil {
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
