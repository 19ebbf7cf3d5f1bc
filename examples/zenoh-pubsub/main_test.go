package main

import (
	"context"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/exampletest"
	"github.com/afor-go/afor/internal/peers"
)

// The test binary doubles as the example, so the pair really runs as two
// processes.
func TestMain(m *testing.M) { exampletest.Main(m, run) }

func pair(t *testing.T, subArgs, pubArgs string) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	sub, subOut := exampletest.Start(t, ctx, "-role sub -count 5 "+subArgs)
	exampletest.Expect(t, subOut, "subscribed")
	pub, pubOut := exampletest.Start(t, ctx, "-role pub -count 5 -hz 50 "+pubArgs)
	for i := 1; i <= 5; i++ {
		exampletest.Expect(t, subOut, fmt.Sprintf("received %d ", i))
	}
	if err := sub.Wait(); err != nil {
		t.Fatalf("subscriber: %v", err)
	}
	exampletest.Drain(pubOut)
	if err := pub.Wait(); err != nil {
		t.Fatalf("publisher: %v", err)
	}
}

func TestTwoProcessesPeerToPeer(t *testing.T) {
	ep := exampletest.FreeEndpoint(t)
	pair(t, "-listen "+ep, "-connect "+ep)
}

func TestTwoProcessesThroughRouter(t *testing.T) {
	py := peers.Python(t, "zenoh")
	ep := exampletest.FreeEndpoint(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	router := exec.CommandContext(ctx, py, "router.py", ep)
	stdin, err := router.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out := exampletest.Lines(t, router)
	defer func() {
		stdin.Close()
		router.Wait()
	}()
	exampletest.Expect(t, out, "ready")
	pair(t, "-mode client -connect "+ep, "-mode client -connect "+ep)
}
