// Command zenoh-service is a request/reply service over Zenoh whose server
// answers later, from another goroutine: the server is an afor.Server of
// queries, the client an afor.Client whose Call is a Zenoh get.
//
//	go run ./examples/zenoh-service -role server -listen tcp/127.0.0.1:7448
//	go run ./examples/zenoh-service -role client -connect tcp/127.0.0.1:7448
//
// Started with an endpoint nobody listens on, the client says so at once
// (the session is opened with ConnectExitOnFailure).
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
	"github.com/afor-go/afor/transport/zenoh"
)

// AddTwoInts is the request; the response is their sum.
type AddTwoInts struct {
	A int64 `json:"a"`
	B int64 `json:"b"`
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "zenoh-service:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("zenoh-service", flag.ContinueOnError)
	role := fs.String("role", "server", "server or client")
	key := fs.String("key", "demo/add_two_ints", "service key expression")
	listen := fs.String("listen", "", "comma-separated endpoints to listen on")
	connect := fs.String("connect", "", "comma-separated endpoints to connect to")
	calls := fs.Int("calls", 3, "requests the client sends (the server serves that many, 0 for no end)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	// A Connect endpoint that cannot be reached is an error here, not a
	// warning: the client would otherwise wait for a server in vain.
	s, err := zenoh.Open(ctx, zenoh.Config{Listen: split(*listen), Connect: split(*connect), ConnectExitOnFailure: true})
	if err != nil {
		return err
	}
	defer s.Close()
	reqCodec, resCodec := afor.JSONCodec[AddTwoInts]{}, afor.JSONCodec[int64]{}
	switch *role {
	case "server":
		server, err := zenoh.NewServer(s, *key, reqCodec, resCodec)
		if err != nil {
			return err
		}
		defer server.Close()
		fmt.Fprintln(out, "serving", *key, "on", strings.Join(s.ListenAddrs(), ","))
		n := 0
		for req := range server.ListenReliable(ctx) {
			go answerLater(req)
			if n++; n == *calls {
				time.Sleep(200 * time.Millisecond) // the last answer is on its way
				return nil
			}
		}
		return ctx.Err()
	case "client":
		client, err := zenoh.NewClient(s, *key, reqCodec, resCodec)
		if err != nil {
			return err
		}
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err := client.WaitForServer(wctx); err != nil {
			return fmt.Errorf("no server: %w", err)
		}
		for i := range int64(*calls) {
			req := AddTwoInts{A: i, B: 10}
			if i == 1 {
				req.A = -1 // the server refuses negative numbers
			}
			cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			sum, err := client.Call(cctx, req)
			cancel()
			if err != nil {
				fmt.Fprintf(out, "call %d + %d: error: %v\n", req.A, req.B, err)
				continue
			}
			fmt.Fprintf(out, "call %d + %d = %d\n", req.A, req.B, sum)
		}
		return nil
	}
	return fmt.Errorf("unknown -role %q", *role)
}

// answerLater answers after some work, or fails the request.
func answerLater(req *afor.Responder[AddTwoInts, int64]) {
	if req.Request.A < 0 {
		_ = req.Fail(errors.New("negative numbers are not allowed"))
		return
	}
	time.Sleep(20 * time.Millisecond)
	_ = req.Respond(req.Request.A + req.Request.B)
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
