package main

import (
	"context"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/exampletest"
)

func TestMain(m *testing.M) { exampletest.Main(m, run) }

func TestServerAndClientProcesses(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	ep := exampletest.FreeEndpoint(t)
	srv, srvOut := exampletest.Start(t, ctx, "-role server -calls 3 -listen "+ep)
	exampletest.Expect(t, srvOut, "serving")
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
