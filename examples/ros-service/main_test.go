package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/exampletest"
)

// The test binary doubles as the example, so server and client really run
// as two processes.
func TestMain(m *testing.M) { exampletest.Main(m, run) }

// listeningOn reads the server's "listening on ENDPOINT" line.
func listeningOn(t *testing.T, lines <-chan string) string {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("server output ended before it said where it listens")
			}
			if ep, ok := strings.CutPrefix(l, "listening on "); ok {
				return strings.Split(ep, ",")[0]
			}
		case <-timeout:
			t.Fatal("server did not say where it listens within 20 s")
		}
	}
}

func TestServerAndClientProcesses(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	srv, srvOut := exampletest.Start(t, ctx, "-role server -calls 3 -delay 20ms -listen tcp/127.0.0.1:0")
	ep := listeningOn(t, srvOut)
	exampletest.Expect(t, srvOut, "serving /add_two_ints")
	cli, cliOut := exampletest.Start(t, ctx, "-role client -calls 3 -a 1 -b 10 -connect "+ep)
	for k := range 3 {
		exampletest.Expect(t, srvOut, fmt.Sprintf("Incoming request: a: %d b: 10", 1+k))
		exampletest.Expect(t, cliOut, fmt.Sprintf("Result of add_two_ints: %d + 10 = %d", 1+k, 11+k))
	}
	exampletest.Drain(cliOut)
	if err := cli.Wait(); err != nil {
		t.Fatalf("client: %v", err)
	}
	exampletest.Drain(srvOut)
	if err := srv.Wait(); err != nil {
		t.Fatalf("server: %v", err)
	}
}

// ROS arguments remap the service on both sides.
func TestRemappedService(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	srv, srvOut := exampletest.Start(t, ctx, "-role server -listen tcp/127.0.0.1:0 --ros-args -r __ns:=/robot1")
	ep := listeningOn(t, srvOut)
	exampletest.Expect(t, srvOut, "serving /robot1/add_two_ints")
	cli, cliOut := exampletest.Start(t, ctx, "-role client -connect "+ep+" --ros-args -r add_two_ints:=/robot1/add_two_ints")
	exampletest.Expect(t, cliOut, "Result of add_two_ints: 2 + 3 = 5")
	exampletest.Drain(cliOut)
	if err := cli.Wait(); err != nil {
		t.Fatalf("client: %v", err)
	}
	exampletest.Drain(srvOut)
	if err := srv.Wait(); err != nil {
		t.Fatalf("server: %v", err)
	}
}

// A client whose endpoint refuses the connection says so at once, instead
// of waiting for a server in vain.
func TestClientReportsRefusedEndpoint(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	err := run(ctx, strings.Fields("-role client -connect tcp/127.0.0.1:1"), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("run = %v, want an error saying the connection was refused", err)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range []string{"-role router", "-mode router", "-calls x", "-- --ros-args -r bad"} {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		err := run(ctx, strings.Fields(args), io.Discard)
		cancel()
		if err == nil {
			t.Errorf("run %q: no error", args)
		}
	}
}
