// Command zenoh-liveliness watches which robots are alive: every robot
// declares a liveliness token "robots/<name>/alive", and the watcher sees
// tokens appear (including those alive before it started) and disappear
// (when a robot undeclares it, closes its session, or dies).
//
//	go run ./examples/zenoh-liveliness -role watch -listen tcp/127.0.0.1:7449
//	go run ./examples/zenoh-liveliness -role robot -name r1 -connect tcp/127.0.0.1:7449
//	go run ./examples/zenoh-liveliness -role robot -name r2 -for 1s -connect tcp/127.0.0.1:7449
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

	"github.com/afor-go/afor/transport/zenoh"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "zenoh-liveliness:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("zenoh-liveliness", flag.ContinueOnError)
	role := fs.String("role", "watch", "watch or robot")
	name := fs.String("name", "r1", "the robot's name")
	life := fs.Duration("for", 2*time.Second, "how long a robot stays alive")
	events := fs.Int("events", 0, "the watcher exits after this many events (0: never)")
	listen := fs.String("listen", "", "comma-separated endpoints to listen on")
	connect := fs.String("connect", "", "comma-separated endpoints to connect to")
	if err := fs.Parse(args); err != nil {
		return err
	}
	s, err := zenoh.Open(ctx, zenoh.Config{Listen: split(*listen), Connect: split(*connect)})
	if err != nil {
		return err
	}
	defer s.Close()
	switch *role {
	case "robot":
		// Tokens are pushed to every node that links up later, so there is
		// no need to wait for a connection first.
		tok, err := s.DeclareToken("robots/" + *name + "/alive")
		if err != nil {
			return err
		}
		fmt.Fprintln(out, *name, "alive")
		select {
		case <-time.After(*life):
		case <-ctx.Done():
		}
		return tok.Undeclare()
	case "watch":
		alive, err := zenoh.SubscribeLiveliness(s, "robots/*/alive") // with history
		if err != nil {
			return err
		}
		defer alive.Close()
		fmt.Fprintln(out, "watching robots/*/alive"+onEndpoints(s))
		n := 0
		for ev := range alive.ListenReliable(ctx) {
			state := "alive"
			if ev.Kind == zenoh.KindDelete {
				state = "gone"
			}
			fmt.Fprintln(out, ev.KeyExpr, state)
			if n++; n == *events {
				return nil
			}
		}
		return ctx.Err()
	}
	return fmt.Errorf("unknown -role %q", *role)
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// onEndpoints returns " on " and the endpoints s listens on (with the
// ports chosen for port 0), or "" when it does not listen.
func onEndpoints(s *zenoh.Session) string {
	if eps := s.ListenAddrs(); len(eps) > 0 {
		return " on " + strings.Join(eps, ",")
	}
	return ""
}
