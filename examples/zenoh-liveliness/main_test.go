package main

import (
	"context"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/exampletest"
)

func TestMain(m *testing.M) { exampletest.Main(m, run) }

// The watcher listens and two robots connect to it, each in its own
// process; the watcher sees them come and go.
func TestWatcherSeesRobotsComeAndGo(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	// The watcher listens on port 0 and prints the endpoint it got.
	w, wOut := exampletest.Start(t, ctx, "-role watch -events 4 -listen tcp/127.0.0.1:0")
	ep := exampletest.ExpectRest(t, wOut, "watching robots/*/alive on ")
	r1, r1Out := exampletest.Start(t, ctx, "-role robot -name r1 -for 3s -connect "+ep)
	exampletest.Expect(t, wOut, "robots/r1/alive alive")
	r2, r2Out := exampletest.Start(t, ctx, "-role robot -name r2 -for 100ms -connect "+ep)
	exampletest.Expect(t, wOut, "robots/r2/alive alive")
	exampletest.Expect(t, wOut, "robots/r2/alive gone")
	exampletest.Expect(t, wOut, "robots/r1/alive gone")
	for _, c := range []struct {
		name string
		wait func() error
		out  <-chan string
	}{{"r2", r2.Wait, r2Out}, {"r1", r1.Wait, r1Out}, {"watcher", w.Wait, wOut}} {
		exampletest.Drain(c.out)
		if err := c.wait(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
	}
}
