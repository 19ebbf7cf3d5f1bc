package scenario

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Calls is request/reply through afor's Server and Client: A calls, B
// answers every request from a ListenReliable loop over its Server.
type Calls struct {
	call  func(ctx context.Context, m Msg) (Msg, error)
	close func() error
	seq   uint64
}

// NewCalls sets up request/reply over tr. Only ModeAfor exists: a
// transport's servers are afor.Servers (for mem there is nothing below
// them to compare with).
func NewCalls(ctx context.Context, tr Transport, mode Mode, size int) (*Calls, error) {
	if mode != ModeAfor {
		return nil, fmt.Errorf("%w: request/reply in mode %q", ErrUnsupported, mode)
	}
	link, err := tr.Open(ctx, size)
	if err != nil {
		return nil, err
	}
	if link.B.Server == nil || link.A.Client == nil {
		return nil, errors.Join(fmt.Errorf("%w: %s has no request/reply", ErrUnsupported, tr.Name), link.Close())
	}
	srv, err := link.B.Server("svc")
	if err != nil {
		return nil, errors.Join(err, link.Close())
	}
	cli, err := link.A.Client("svc")
	if err != nil {
		return nil, errors.Join(err, link.Close())
	}
	wctx, cancel := context.WithTimeout(ctx, matchTimeout)
	err = cli.WaitForServer(wctx)
	cancel()
	if err != nil {
		return nil, errors.Join(err, link.Close())
	}
	life, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for req := range srv.ListenReliable(life) {
			_ = req.Respond(Msg{Seq: req.Request.Seq + 1, Body: req.Request.Body})
		}
	}()
	return &Calls{
		call: cli.Call,
		close: func() error {
			stop()
			err := link.Close()
			<-done
			return err
		},
	}, nil
}

// Call sends one request and checks its reply.
func (c *Calls) Call(ctx context.Context) error {
	res, err := c.call(ctx, Msg{Seq: c.seq})
	if err != nil {
		return err
	}
	if res.Seq != c.seq+1 {
		return fmt.Errorf("%w: request %d, reply %d", ErrUnexpected, c.seq, res.Seq)
	}
	c.seq += 2
	return nil
}

// Close stops the server and releases the transport.
func (c *Calls) Close() error { return c.close() }

// RunRequest times request/reply round trips over tr for d after warmup
// calls and reports the time per call.
func RunRequest(ctx context.Context, tr Transport, mode Mode, size int, d time.Duration, warmup int, progress Progress) Result {
	r := Result{Scenario: "request", Transport: tr.Name, Mode: mode, Size: max(size, HeaderSize)}
	c, err := NewCalls(ctx, tr, mode, size)
	if errors.Is(err, ErrUnsupported) {
		r.Skipped = err.Error()
		return r
	}
	if err != nil {
		r.Error, r.Failed = err.Error(), 1
		return r
	}
	rctx, cancel := context.WithTimeout(ctx, 2*d+runSlack)
	defer cancel()
	n, elapsed, cpu, err := timeLoop(rctx, d, warmup, r.Name(), progress, c.Call)
	if cerr := c.Close(); err == nil {
		err = cerr
	}
	r.finish(n, elapsed, cpu)
	r.Note = "per call: one request and its reply (two hops)"
	if err != nil {
		r.Error = err.Error()
		r.Failed++
	}
	return r
}

// RunRequestFloor is the floor of a call: one ping-pong round trip over f,
// reported per round trip (not per hop as in echo).
func RunRequestFloor(ctx context.Context, f Floor, size int, d time.Duration, warmup int, progress Progress) Result {
	r := RunEchoFloor(ctx, f, EchoConfig{Size: size, Duration: d, Warmup: warmup, Progress: progress})
	r.Scenario = "request"
	r.finish(r.Ops/2, r.Elapsed, time.Duration(r.CPU/100*float64(r.Elapsed)))
	r.Note = "per round trip of a bare ping-pong"
	return r
}
