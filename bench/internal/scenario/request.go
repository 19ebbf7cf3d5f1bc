package scenario

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// reqKey is the key (service name) of every request/reply link.
const reqKey = "svc"

// Calls is request/reply, one call outstanding: A calls, B answers every
// request with its sequence number plus one, in a reply of the same size.
//
// In ModeAfor, A calls through an afor.Client (Client.Call) and B answers
// from a ListenReliable loop over its afor.Server. In ModeNative, A uses the
// transport's own query and waits for the end of its reply stream
// (Peer.Querier; for Zenoh, Session.Get) and B answers from inside the
// transport's callback (Peer.Queryable; for Zenoh, a DeclareQueryable
// handler). When the link's B side lives in another process
// (Link.ServerB), that process answers in the same mode.
type Calls struct {
	call  func(ctx context.Context, m Msg) (Msg, error)
	close func() error
	seq   uint64
	body  []byte // the requests' padding (for transports that pass Body)
}

// NewCalls sets up request/reply over tr in mode ModeAfor or ModeNative
// with requests and replies of size bytes. A mode the transport lacks
// (mem has no request/reply below afor's) fails with ErrUnsupported.
func NewCalls(ctx context.Context, tr Transport, mode Mode, size int) (c *Calls, err error) {
	if mode != ModeAfor && mode != ModeNative {
		return nil, fmt.Errorf("%w: request mode %q", ErrBadConfig, mode)
	}
	link, err := tr.open(ctx, mode, size)
	if err != nil {
		return nil, err
	}
	var stopB func() error
	defer func() {
		if err != nil {
			if stopB != nil {
				err = errors.Join(err, stopB())
			}
			err = errors.Join(err, link.Close())
		}
	}()
	remote := link.ServerB != nil
	switch {
	case mode == ModeAfor && (link.A.Client == nil || (!remote && link.B.Server == nil)),
		mode == ModeNative && (link.A.Querier == nil || (!remote && link.B.Queryable == nil)):
		return nil, fmt.Errorf("%w: %s has no %s request/reply", ErrUnsupported, tr.Name, mode)
	}
	if remote {
		stopB, err = link.ServerB(ctx, mode)
	} else {
		stopB, err = RequestResponder(link.B, mode, size)
	}
	if err != nil {
		return nil, err
	}
	var call func(context.Context, Msg) (Msg, error)
	if mode == ModeAfor {
		cli, err := link.A.Client(reqKey)
		if err != nil {
			return nil, err
		}
		wctx, cancel := context.WithTimeout(ctx, matchTimeout)
		err = cli.WaitForServer(wctx)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("%s: no server reachable: %w", tr.Name, err)
		}
		call = cli.Call
	} else if call, err = link.A.Querier(ctx, reqKey); err != nil {
		return nil, err
	}
	return &Calls{
		call: call,
		body: padding(size),
		close: func() error {
			return errors.Join(stopB(), link.Close())
		},
	}, nil
}

// RequestResponder runs side B of request/reply on peer b: every request
// on its key is answered with its sequence number plus one, in a reply of
// size bytes, from a ListenReliable loop over an afor.Server (ModeAfor) or
// from inside the transport's callback (ModeNative). stop ends it and
// reports the first reply that could not be sent.
func RequestResponder(b Peer, mode Mode, size int) (stop func() error, err error) {
	body := padding(size)
	answer := func(m Msg) Msg { return Msg{Seq: m.Seq + 1, Body: body} }
	switch mode {
	case ModeAfor:
		if b.Server == nil {
			return nil, fmt.Errorf("%w: no afor server", ErrUnsupported)
		}
		srv, err := b.Server(reqKey)
		if err != nil {
			return nil, err
		}
		life, cancel := context.WithCancel(context.Background())
		requests := srv.ListenReliable(life)
		var failed atomic.Pointer[error]
		done := make(chan struct{})
		go func() {
			defer close(done)
			for req := range requests {
				if err := req.Respond(answer(req.Request)); err != nil && life.Err() == nil {
					failed.CompareAndSwap(nil, &err)
				}
			}
		}()
		return func() error {
			cancel()
			srv.Close()
			<-done
			if p := failed.Load(); p != nil {
				return fmt.Errorf("request: B's reply: %w", *p)
			}
			return nil
		}, nil
	case ModeNative:
		if b.Queryable == nil {
			return nil, fmt.Errorf("%w: no native request/reply", ErrUnsupported)
		}
		return b.Queryable(reqKey, answer)
	}
	return nil, fmt.Errorf("%w: request mode %q", ErrBadConfig, mode)
}

// padding returns the zero padding of a message of size bytes, shared by
// the messages of one link as their Body (the byte transports' codec pads
// by itself and ignores it; the ROS transports' encode it).
func padding(size int) []byte { return make([]byte, max(size, HeaderSize)-HeaderSize) }

// Call sends one request and checks its reply.
func (c *Calls) Call(ctx context.Context) error {
	res, err := c.call(ctx, Msg{Seq: c.seq, Body: c.body})
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

// RunRequest times request/reply round trips over tr in mode (ModeAfor or
// ModeNative) for d after warmup calls and reports the time per call. A
// mode the transport lacks gives a skipped row.
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
	r.Note = "per call: one request and its reply of the same size (two hops)"
	if err != nil {
		r.Error = err.Error()
		r.Failed++
	}
	return r
}

// RunRequestFloor is the floor of a call over f: the client writes a
// request, the server reads it and writes a reply of the same size, one
// outstanding (the echo's ping-pong), reported per round trip.
func RunRequestFloor(ctx context.Context, f Floor, size int, d time.Duration, warmup int, progress Progress) Result {
	r := Result{Scenario: "request", Transport: string(f), Mode: ModeFloor, Size: max(size, HeaderSize)}
	e, err := NewEchoFloor(ctx, f, size)
	if err != nil {
		r.Error, r.Failed = err.Error(), 1
		return r
	}
	rctx, cancel := context.WithTimeout(ctx, 2*d+runSlack)
	defer cancel()
	n, elapsed, cpu, err := timeLoop(rctx, d, warmup, r.Name(), progress, e.RoundTrip)
	if cerr := e.Close(); err == nil {
		err = cerr
	}
	r.finish(n, elapsed, cpu)
	r.Note = "per round trip: a request written, read, and a reply of the same size written back"
	if err != nil {
		r.Error = err.Error()
		r.Failed = 1
	}
	return r
}
