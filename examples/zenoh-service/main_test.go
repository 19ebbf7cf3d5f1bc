package main

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/exampletest"
)

func TestMain(m *testing.M) { exampletest.Main(m, run) }

func TestServerAndClientProcesses(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	// The server listens on port 0 and prints the endpoint it got.
	srv, srvOut := exampletest.Start(t, ctx, "-role server -calls 3 -listen tcp/127.0.0.1:0")
	ep := servingEndpoint(t, srvOut)
	cli, cliOut := exampletest.Start(t, ctx, "-role client -calls 3 -connect "+ep)
	exampletest.Expect(t, cliOut, "call 0 + 10 = 10")
	exampletest.Expect(t, cliOut, "call -1 + 10: error:")
	exampletest.Expect(t, cliOut, "call 2 + 10 = 12")
	exampletest.Drain(cliOut)
	if err := cli.Wait(); err != nil {
		t.Fatalf("client: %v", err)
	}
	exampletest.Drain(srvOut)
	if err := srv.Wait(); err != nil {
		t.Fatalf("server: %v", err)
	}
}

// servingEndpoint reads the server's "serving KEY on ENDPOINT" line.
func servingEndpoint(t *testing.T, lines <-chan string) string {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("server output ended before it said where it serves")
			}
			if _, ep, ok := strings.Cut(l, " on "); ok && strings.HasPrefix(l, "serving ") {
				return ep
			}
		case <-timeout:
			t.Fatal("server did not say where it serves within 20 s")
		}
	}
}

// A client whose endpoint refuses the connection says so at once, instead
// of waiting for a server in vain.
func TestClientReportsRefusedEndpoint(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	err := run(ctx, strings.Fields("-role client -connect tcp/127.0.0.1:1"), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "refused") || !strings.Contains(err.Error(), "tcp/127.0.0.1:1") {
		t.Fatalf("run = %v, want an error saying tcp/127.0.0.1:1 refused the connection", err)
	}
}
