package scenario

import (
	"context"
	_ "embed"
	"errors"
	"os/exec"

	"github.com/afor-go/afor/transport/zenoh"
)

//go:embed testdata/router.py
var pyRouter string

// RouterModules returns the Python modules the Rust router needs.
func RouterModules() []string { return []string{"zenoh"} }

// routerInFlight caps the bytes a throughput row keeps in flight through
// the router: half its data queue (16 batches of at most 64 KiB, see
// testdata/router.py), which drops what overflows.
const routerInFlight = 8 << 16

// router is a Rust Zenoh router (eclipse-zenoh's, through Python) listening
// on 127.0.0.1.
type router struct {
	Endpoint string // "tcp/127.0.0.1:PORT"
	PID      int
	stop     func() error
}

// startRouter starts the Rust router with interpreter python and waits
// until it listens.
func startRouter(ctx context.Context, python string) (*router, error) {
	if python == "" {
		return nil, errors.Join(ErrUnsupported, errors.New("no Python interpreter for the Rust router"))
	}
	// The router listens on port 0 and says which port it got.
	cmd := exec.Command(python, "-c", pyRouter, "tcp/127.0.0.1:0")
	stop, ep, err := startReadyArg(ctx, cmd, "rust router")
	if err != nil {
		return nil, err
	}
	return &router{Endpoint: ep, PID: cmd.Process.Pid, stop: stop}, nil
}

// ZenohRouter is the pure-Go Zenoh transport through the Rust Zenoh router:
// two client sessions of this process, each linked over TCP on 127.0.0.1 to
// a router started for the row with interpreter python (which must import
// zenoh, see [CheckPythonModules]). It runs the echo, the latency, the
// throughput and request/reply (the queryable's client declares it to the
// router, which forwards the other client's queries to it).
func ZenohRouter(python string) Transport {
	return Transport{Name: "zenoh-router", Floor: FloorTCP, Scenarios: []string{"echo", "latency", "throughput", "request"}, NeedsPython: true,
		MaxInFlight: routerInFlight, bind: ZenohRouter,
		Open: func(ctx context.Context, size int) (*Link, error) {
			r, err := startRouter(ctx, python)
			if err != nil {
				return nil, err
			}
			cfg := zenoh.Config{Mode: zenoh.ModeClient, Connect: []string{r.Endpoint}}
			a, err := zenoh.Open(ctx, cfg)
			if err != nil {
				return nil, errors.Join(err, r.stop())
			}
			b, err := zenoh.Open(ctx, cfg)
			if err != nil {
				return nil, errors.Join(err, a.Close(), r.stop())
			}
			prefix := "afor_bench/" + b.ZID() + "/"
			return &Link{
				A: zenohPeer(a, prefix, size),
				B: zenohPeer(b, prefix, size),
				Close: func() error {
					return errors.Join(a.Close(), b.Close(), r.stop())
				},
			}, nil
		}}
}
