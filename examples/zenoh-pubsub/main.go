// Command zenoh-pubsub is a Zenoh publisher/subscriber pair in pure Go, to
// run as two processes. With no router, one side listens and the other
// connects (peer mode):
//
//	go run ./examples/zenoh-pubsub -role sub -listen tcp/127.0.0.1:7447
//	go run ./examples/zenoh-pubsub -role pub -connect tcp/127.0.0.1:7447
//
// Through a router (zenohd, or the Rust router of the eclipse-zenoh Python
// package: .venv/bin/python examples/zenoh-pubsub/router.py tcp/127.0.0.1:7447),
// both sides are clients of it:
//
//	go run ./examples/zenoh-pubsub -role sub -mode client -connect tcp/127.0.0.1:7447
//	go run ./examples/zenoh-pubsub -role pub -mode client -connect tcp/127.0.0.1:7447
//
// The publisher sends a JSON Pose at -hz; the subscriber prints -count of
// them and exits.
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

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/transport/zenoh"
)

// Pose is the message, carried as JSON.
type Pose struct {
	Seq int     `json:"seq"`
	X   float64 `json:"x"`
	Y   float64 `json:"y"`
}

type options struct {
	role, mode, key string
	listen, connect string
	scout, iface    string
	hz              float64
	count           int
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "zenoh-pubsub:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	var o options
	fs := flag.NewFlagSet("zenoh-pubsub", flag.ContinueOnError)
	fs.StringVar(&o.role, "role", "sub", "pub or sub")
	fs.StringVar(&o.mode, "mode", "peer", "peer, or client (of a router)")
	fs.StringVar(&o.key, "key", "demo/robot/pose", "key expression (the subscriber may use wildcards)")
	fs.StringVar(&o.listen, "listen", "", "comma-separated endpoints to listen on, e.g. tcp/127.0.0.1:7447")
	fs.StringVar(&o.connect, "connect", "", "comma-separated endpoints to connect to")
	fs.StringVar(&o.scout, "scout", "", "find peers by UDP multicast scouting on this group:port (e.g. "+zenoh.DefaultScoutAddress+"), no endpoints needed")
	fs.StringVar(&o.iface, "scout-interface", "", "interface to scout on, e.g. lo (default: the system's choice)")
	fs.Float64Var(&o.hz, "hz", 10, "publishing rate")
	fs.IntVar(&o.count, "count", 10, "values to publish or receive, 0 for no end")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg := zenoh.Config{Listen: split(o.listen), Connect: split(o.connect)}
	if o.scout != "" {
		cfg.Scouting = zenoh.ScoutingConfig{Multicast: true, Address: o.scout, Interface: o.iface}
	}
	switch o.mode {
	case "peer":
	case "client":
		cfg.Mode = zenoh.ModeClient
	default:
		return fmt.Errorf("unknown -mode %q", o.mode)
	}
	session, err := zenoh.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer session.Close()
	switch o.role {
	case "pub":
		return publish(ctx, session, o, out)
	case "sub":
		return subscribe(ctx, session, o, out)
	}
	return fmt.Errorf("unknown -role %q", o.role)
}

func publish(ctx context.Context, s *zenoh.Session, o options, out io.Writer) error {
	pub, err := s.DeclarePublisher(o.key, zenoh.WithEncoding(zenoh.EncodingJSON))
	if err != nil {
		return err
	}
	if err := pub.WaitMatching(ctx); err != nil { // a subscriber is known
		return err
	}
	rate, err := afor.NewRate(o.hz)
	if err != nil {
		return err
	}
	defer rate.Close()
	codec := afor.JSONCodec[Pose]{}
	var buf []byte
	seq := 0
	for range rate.ListenReliable(ctx) {
		seq++
		buf, err = codec.Append(buf[:0], Pose{Seq: seq, X: float64(seq) / 10})
		if err != nil {
			return err
		}
		if err := pub.Put(ctx, buf); err != nil {
			return err
		}
		fmt.Fprintf(out, "published %d\n", seq)
		if seq == o.count {
			return nil // Close sends what is queued before closing the link
		}
	}
	return ctx.Err()
}

func subscribe(ctx context.Context, s *zenoh.Session, o options, out io.Writer) error {
	poses, err := zenoh.SubscribeCodec(s, o.key, afor.JSONCodec[Pose]{})
	if err != nil {
		return err
	}
	defer poses.Close()
	fmt.Fprintln(out, "subscribed to "+o.key+onEndpoints(s))
	n := 0
	for p := range poses.ListenReliable(ctx) {
		n++
		fmt.Fprintf(out, "received %d x=%.1f\n", p.Seq, p.X)
		if n == o.count {
			return nil
		}
	}
	if err := poses.Err(); err != nil {
		return err
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return nil
	}
	return ctx.Err()
}

// onEndpoints returns " on " and the endpoints s listens on (with the
// ports chosen for port 0), or "" when it does not listen.
func onEndpoints(s *zenoh.Session) string {
	if eps := s.ListenAddrs(); len(eps) > 0 {
		return " on " + strings.Join(eps, ",")
	}
	return ""
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
