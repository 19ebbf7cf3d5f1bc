package main

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/exampletest"
	"github.com/afor-go/afor/internal/peers"
)

// The test binary doubles as the example, so the pair really runs as two
// processes.
func TestMain(m *testing.M) { exampletest.Main(m, run) }

// pair runs a subscriber (with subArgs) and then a publisher (with
// pubArgs, or with "-connect EP" appended when the subscriber said it
// listens on EP) as two processes.
func pair(t *testing.T, subArgs, pubArgs string) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	sub, subOut := exampletest.Start(t, ctx, "-role sub -count 5 "+subArgs)
	if rest := exampletest.ExpectRest(t, subOut, "subscribed to "); strings.Contains(rest, " on ") {
		_, ep, _ := strings.Cut(rest, " on ")
		pubArgs += " -connect " + ep
	}
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

// The subscriber listens on port 0 and prints the endpoint it got; the
// publisher connects to it.
func TestTwoProcessesPeerToPeer(t *testing.T) {
	pair(t, "-listen tcp/127.0.0.1:0", "")
}

// Both sides are clients of a Rust router, which listens on port 0 and
// prints the endpoint it got.
func TestTwoProcessesThroughRouter(t *testing.T) {
	py := peers.Python(t, "zenoh")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	router := exec.CommandContext(ctx, py, "router.py", "--until-stdin-closes", "tcp/127.0.0.1:0")
	stdin, err := router.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out := exampletest.Lines(t, router)
	defer func() {
		stdin.Close()
		router.Wait()
	}()
	ep := exampletest.ExpectRest(t, out, "ready on ")
	pair(t, "-mode client -connect "+ep, "-mode client -connect "+ep)
}
