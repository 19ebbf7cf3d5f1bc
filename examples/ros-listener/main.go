// Command ros-listener is ROS 2's demo listener in pure Go: a node
// "listener" that subscribes to std_msgs/msg/String on "chatter" and prints
// every message with its message info (the publisher's GID, its sequence
// number, when it was sent), and, from the ROS graph, which node each
// publisher belongs to.
//
// It runs on the middleware RMW_IMPLEMENTATION names: DDS when it is unset
// (next to "ros2 run demo_nodes_cpp talker"), rmw_zenoh's session for
// rmw_zenoh_cpp or when -mode, -listen or -connect is given:
//
//	ros2 run rmw_zenoh_cpp rmw_zenohd
//	RMW_IMPLEMENTATION=rmw_zenoh_cpp ros2 run demo_nodes_cpp talker
//	RMW_IMPLEMENTATION=rmw_zenoh_cpp go run ./examples/ros-listener
//
// Two Go nodes need no router: one listens, the other connects.
//
//	go run ./examples/ros-listener -listen tcp/127.0.0.1:7448
//	go run ./examples/ros-talker -connect tcp/127.0.0.1:7448
//
// The subscription is an afor.Sub: the loop is a ListenReliable range, so
// no message is skipped while one is printed.
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

	"github.com/afor-go/afor/examples/internal/rosflags"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
)

// graphWait bounds the wait for a new publisher to show in the graph.
const graphWait = 2 * time.Second

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "ros-listener:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("ros-listener", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: ros-listener [flags] [--ros-args ...]\n\nPrints the strings published on chatter, as ROS 2's demo listener. Flags:")
		fs.PrintDefaults()
	}
	topic := fs.String("topic", "chatter", "topic name (ROS remapping rules apply)")
	count := fs.Int("count", 0, "messages to print before exiting, 0 for no end")
	rmw := rosflags.Register(fs)
	flags, rosArgs := rosflags.SplitROSArgs(args)
	if err := fs.Parse(flags); err != nil {
		return err
	}
	mw, err := rmw.Middleware()
	if err != nil {
		return err
	}
	node, err := ros.NewNode(ctx, "listener", ros.WithMiddleware(mw), ros.WithArgs(rosArgs))
	if err != nil {
		return err
	}
	defer node.Close()
	if addrs := node.Context().ListenAddrs(); len(addrs) > 0 {
		fmt.Fprintln(out, "listening on", strings.Join(addrs, ","))
	}
	sub, err := ros.SubscribeInfo[std_msgs.String](node, *topic, ros.QoSDefault)
	if err != nil {
		return err
	}
	defer sub.Close()
	full, err := node.ResolveTopicName(*topic)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "subscribed to", full)
	seen := map[ros.GID]bool{}
	n := 0
	for m := range sub.ListenReliable(ctx) {
		if gid := m.Info.PublisherGID; !seen[gid] {
			seen[gid] = true
			describePublisher(ctx, out, node.Graph(), full, gid)
		}
		fmt.Fprintf(out, "I heard: [%s] (seq %d from %s, sent %s, received %v later)\n",
			m.Msg.Data, m.Info.Sequence, short(m.Info.PublisherGID), m.Info.SourceTime.Format(time.TimeOnly+".000000"),
			m.Info.ReceivedTime.Sub(m.Info.SourceTime).Round(time.Microsecond))
		if n++; n == *count {
			return nil
		}
	}
	if err := sub.Err(); err != nil {
		return err
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return nil
	}
	return ctx.Err()
}

// describePublisher prints the node, type and QoS of the publisher gid of
// topic, as the graph shows it (its liveliness token may trail its first
// message a little).
func describePublisher(ctx context.Context, out io.Writer, g *ros.Graph, topic string, gid ros.GID) {
	wctx, cancel := context.WithTimeout(ctx, graphWait)
	defer cancel()
	var pub ros.Endpoint
	_, err := g.WaitFor(wctx, func(s *ros.GraphSnapshot) bool {
		i := slices.IndexFunc(s.Publishers(topic), func(e ros.Endpoint) bool { return e.GID == gid })
		if i >= 0 {
			pub = s.Publishers(topic)[i]
		}
		return i >= 0
	})
	if err != nil {
		fmt.Fprintf(out, "publisher %s: not in the graph (%v)\n", short(gid), err)
		return
	}
	fmt.Fprintf(out, "publisher %s: node %s, %s, %s\n", short(gid), pub.Node.FullyQualifiedName(), pub.Type, pub.QoS)
}

// short is the start of a GID, enough to tell publishers apart.
func short(gid ros.GID) string { return gid.String()[:8] }
