package scenario

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// Echo is the Python afor's benchmark pattern: two topics, "hello" and
// "world", one message in flight. Side A publishes a counter on hello, side
// B answers it plus one on world, and A waits for that answer before the
// next. One round trip is two hops.
type Echo struct {
	roundTrip func(ctx context.Context, seq uint64) (uint64, error)
	close     func() error
	seq       uint64
}

// NewEcho sets up the echo pattern over tr in mode ModeAfor or ModeNative
// with messages of size bytes.
//
// In ModeAfor, B answers from a ListenReliable loop in its own goroutine
// and A reads the answers with Listener.Next, as Python's
// "async for msg in sub.listen_reliable()" does. In ModeNative, B answers
// from inside the transport's callback and A's callback hands the answer to
// the waiting goroutine through a channel. When the link's B side lives in
// another process (Link.EchoB), that process answers in the same mode.
func NewEcho(ctx context.Context, tr Transport, mode Mode, size int) (e *Echo, err error) {
	if mode != ModeAfor && mode != ModeNative {
		return nil, fmt.Errorf("%w: echo mode %q", ErrBadConfig, mode)
	}
	link, err := tr.open(ctx, mode, size)
	if err != nil {
		return nil, err
	}
	var stops []func() error // run in reverse order by Close
	closeAll := func() error {
		var errs []error
		for i := len(stops) - 1; i >= 0; i-- {
			errs = append(errs, stops[i]())
		}
		return errors.Join(append(errs, link.Close())...)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, closeAll())
		}
	}()
	// A subscribes first, so that B's publisher finds A's subscriber; B
	// subscribes before A's publisher looks for it.
	next, stopA, err := echoA(link.A, mode)
	if err != nil {
		return nil, err
	}
	stops = append(stops, stopA)
	startB := link.EchoB
	if startB == nil {
		startB = func(ctx context.Context, mode Mode) (func() error, error) { return EchoResponder(ctx, link.B, mode) }
	}
	stopB, err := startB(ctx, mode)
	if err != nil {
		return nil, err
	}
	stops = append(stops, stopB)
	pubHello, err := link.A.Publisher(ctx, "hello")
	if err != nil {
		return nil, err
	}
	return &Echo{
		roundTrip: func(ctx context.Context, seq uint64) (uint64, error) {
			if err := pubHello(ctx, Msg{Seq: seq}); err != nil {
				return 0, err
			}
			return next(ctx)
		},
		close: closeAll,
	}, nil
}

// echoA subscribes side A to the answers on world, in mode, and returns a
// function waiting for the next answer.
func echoA(a Peer, mode Mode) (next func(context.Context) (uint64, error), stop func() error, err error) {
	if mode == ModeAfor {
		world, err := a.Subscribe("world")
		if err != nil {
			return nil, nil, err
		}
		life, cancel := context.WithCancel(context.Background())
		answers := world.Listener(life)
		return func(ctx context.Context) (uint64, error) {
				m, err := answers.Next(ctx)
				return m.Seq, err
			}, func() error {
				cancel()
				world.Close()
				return nil
			}, nil
	}
	got := make(chan Msg, 1)
	var extra atomic.Int64
	stopCb, err := a.Callback("world", func(m Msg) {
		select {
		case got <- m:
		default:
			extra.Add(1) // a second answer in flight: reported below
		}
	})
	if err != nil {
		return nil, nil, err
	}
	return func(ctx context.Context) (uint64, error) {
			select {
			case m := <-got:
				if n := extra.Load(); n > 0 {
					return m.Seq, fmt.Errorf("%w: %d answers more than requests", ErrUnexpected, n)
				}
				return m.Seq, nil
			case <-ctx.Done():
				return 0, ctx.Err()
			}
		}, func() error {
			stopCb()
			return nil
		}, nil
}

// EchoResponder runs side B of the echo on peer b: every counter received
// on hello is answered plus one on world, from a ListenReliable loop
// (ModeAfor) or from inside the transport's callback (ModeNative). The
// answers' subscriber must already exist. stop ends it. A failed answer
// ends B: A then sees no answer (or, in memory, the error).
func EchoResponder(ctx context.Context, b Peer, mode Mode) (stop func() error, err error) {
	life, cancel := context.WithCancel(context.Background())
	switch mode {
	case ModeAfor:
		hello, err := b.Subscribe("hello")
		if err != nil {
			cancel()
			return nil, err
		}
		pubWorld, err := b.Publisher(ctx, "world")
		if err != nil {
			cancel()
			hello.Close()
			return nil, err
		}
		requests := hello.ListenReliable(life)
		done := make(chan struct{})
		go func() {
			defer close(done)
			for m := range requests {
				if err := pubWorld(life, Msg{Seq: m.Seq + 1}); err != nil {
					hello.CloseWithError(fmt.Errorf("echo: B's answer: %w", err))
					return
				}
			}
		}()
		return func() error {
			cancel()
			hello.Close()
			<-done
			return nil
		}, nil
	case ModeNative:
		pubWorld, err := b.Publisher(ctx, "world")
		if err != nil {
			cancel()
			return nil, err
		}
		var failed atomic.Pointer[error]
		stopCb, err := b.Callback("hello", func(m Msg) {
			if err := pubWorld(life, Msg{Seq: m.Seq + 1}); err != nil && life.Err() == nil {
				failed.CompareAndSwap(nil, &err)
			}
		})
		if err != nil {
			cancel()
			return nil, err
		}
		return func() error {
			cancel()
			stopCb()
			if p := failed.Load(); p != nil {
				return fmt.Errorf("echo: B's answer: %w", *p)
			}
			return nil
		}, nil
	}
	cancel()
	return nil, fmt.Errorf("%w: echo mode %q", ErrBadConfig, mode)
}

// NewEchoFloor sets up the echo pattern as a bare ping-pong over floor f:
// A sends and receives in the caller's goroutine, B answers from its own.
// Over FloorTCPProc, B is a child process.
func NewEchoFloor(ctx context.Context, f Floor, size int) (*Echo, error) {
	if f == FloorTCPProc {
		return newEchoProcFloor(ctx, size)
	}
	a, b, closeAll, err := openFloor(ctx, f, size, 1)
	if err != nil {
		return nil, err
	}
	a = withTimeout(a)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = echoLoop(b) // ends when closeAll closes b
	}()
	return pipeEcho(a, func() error {
		closeAll()
		<-done
		return nil
	}), nil
}

// pipeEcho is an Echo whose round trip sends the counter on a and reads
// the answer from it.
func pipeEcho(a pipe, close func() error) *Echo {
	return &Echo{
		roundTrip: func(_ context.Context, seq uint64) (uint64, error) {
			if err := a.Send(Msg{Seq: seq}); err != nil {
				return 0, err
			}
			m, err := a.Recv()
			return m.Seq, err
		},
		close: close,
	}
}

// RoundTrip sends the next counter from A and waits for B's answer (two
// hops). It fails with ErrUnexpected if the answer is not the counter plus
// one, and with ctx's error if ctx ends first (a floor ignores ctx).
func (e *Echo) RoundTrip(ctx context.Context) error {
	got, err := e.roundTrip(ctx, e.seq)
	if err != nil {
		return err
	}
	if got != e.seq+1 {
		return fmt.Errorf("%w: sent %d, answer %d", ErrUnexpected, e.seq, got)
	}
	e.seq += 2
	return nil
}

// Close stops the echo and releases its transport.
func (e *Echo) Close() error { return e.close() }

// EchoConfig configures a timed echo row.
type EchoConfig struct {
	Size     int           // message size in bytes
	Duration time.Duration // measured time
	Warmup   int           // round trips before measuring
	Progress Progress      // optional
}

// RunEcho times the echo pattern over tr in mode (ModeAfor or ModeNative)
// for cfg.Duration and reports hops per second and the time per hop.
func RunEcho(ctx context.Context, tr Transport, mode Mode, cfg EchoConfig) Result {
	r := Result{Scenario: "echo", Transport: tr.Name, Mode: mode, Size: max(cfg.Size, HeaderSize)}
	e, err := NewEcho(ctx, tr, mode, cfg.Size)
	if err != nil {
		r.Error = err.Error()
		r.Failed = 1
		return r
	}
	runEcho(ctx, e, cfg, &r)
	return r
}

// RunEchoFloor times the ping-pong over floor f.
func RunEchoFloor(ctx context.Context, f Floor, cfg EchoConfig) Result {
	r := Result{Scenario: "echo", Transport: string(f), Mode: ModeFloor, Size: max(cfg.Size, HeaderSize)}
	e, err := NewEchoFloor(ctx, f, cfg.Size)
	if err != nil {
		r.Error = err.Error()
		r.Failed = 1
		return r
	}
	runEcho(ctx, e, cfg, &r)
	return r
}

func runEcho(ctx context.Context, e *Echo, cfg EchoConfig, r *Result) {
	rctx, cancel := context.WithTimeout(ctx, 2*cfg.Duration+runSlack)
	defer cancel()
	n, elapsed, cpu, err := timeLoop(rctx, cfg.Duration, cfg.Warmup, r.Name(), cfg.Progress, e.RoundTrip)
	if cerr := e.Close(); err == nil {
		err = cerr
	}
	r.finish(2*n, elapsed, cpu)
	r.Note = "per hop: elapsed / (2 x round trips)"
	if err != nil {
		r.Error = err.Error()
		r.Failed = 1
	}
}
