package afortest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/afor-go/afor"
)

// PubSub describes a transport for [RunPubSub].
type PubSub struct {
	// New returns, on a fresh topic, a publish function and a sub that
	// receives what publish sends after New returns, in order. Release
	// resources with t.Cleanup. Closing the sub must be allowed.
	New func(t *testing.T) (publish func(ctx context.Context, msg string) error, sub *afor.Sub[string])
	// Timeout bounds a wait that must succeed (default 5 s).
	Timeout time.Duration
	// Quiet is how long a wait that must time out lasts (default 100 ms).
	Quiet time.Duration
	// Synctest runs every test in a testing/synctest bubble (fake time).
	// Only for transports that block on channels alone, such as mem.
	Synctest bool
}

func (ps *PubSub) defaults() {
	if ps.Timeout == 0 {
		ps.Timeout = 5 * time.Second
	}
	if ps.Quiet == 0 {
		ps.Quiet = 100 * time.Millisecond
	}
}

func (ps PubSub) run(t *testing.T, name string, f func(t *testing.T)) {
	t.Run(name, func(t *testing.T) {
		if ps.Synctest {
			synctest.Test(t, f)
			return
		}
		f(t)
	})
}

// harness is one topic under test.
type harness struct {
	t       *testing.T
	ps      PubSub
	publish func(ctx context.Context, msg string) error
	sub     *afor.Sub[string]
	// arrivals sees every value the sub received. It is a listener, not an
	// OnInput callback, because callbacks run before delivery: when it
	// has a value, every other listener has it too.
	arrivals *afor.Listener[string]
}

func (ps PubSub) open(t *testing.T) *harness {
	pub, sub := ps.New(t)
	h := &harness{t: t, ps: ps, publish: pub, sub: sub}
	h.arrivals = sub.Listener(t.Context(), afor.Fresh(), afor.QueueSize(0))
	t.Cleanup(h.arrivals.Stop)
	return h
}

func (h *harness) pub(msg string) {
	h.t.Helper()
	ctx, cancel := within(h.t, h.ps.Timeout)
	defer cancel()
	if err := h.publish(ctx, msg); err != nil {
		h.t.Fatalf("publish %q: %v", msg, err)
	}
}

// await waits until the sub itself received msg (not a consumer).
func (h *harness) await(msg string) {
	h.t.Helper()
	ctx, cancel := h.ctx()
	defer cancel()
	for {
		v, err := h.arrivals.Next(ctx)
		if err != nil {
			h.t.Fatalf("%q never reached the sub: %v", msg, err)
		}
		if v == msg {
			return
		}
	}
}

// pubSeen publishes msg and waits until the sub received it.
func (h *harness) pubSeen(msg string) {
	h.t.Helper()
	h.pub(msg)
	h.await(msg)
}

func (h *harness) ctx() (context.Context, context.CancelFunc) { return within(h.t, h.ps.Timeout) }

func eq[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
}

// eventually polls cond (used only for registrations, which have no event
// to wait on).
func eventually(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not true within %v", what, d)
		}
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
}

// RunPubSub runs the publish/subscribe conformance suite against a
// transport, one subtest per behaviour:
//
//   - WaitForValue: a published value is returned, again and again;
//   - WaitForNew: nothing new times out; armed before a publish, returns it;
//   - WaitForNext: armed, then a burst: exactly the first of the burst;
//   - ListenSkipsToLatest: Listen in lock-step yields every value, first
//     the held one, and with two publishes per step only the latest;
//   - ListenReliableTooFast: ListenReliable yields every value in order;
//   - Freshness: without Fresh a loop starts with the held value, with it
//     it waits;
//   - OverflowDropsOldest: a full queue drops the oldest and counts it;
//   - CloseWakesWaitsAndEndsLoops: Close wakes waits with ErrClosed and
//     ends loops; Input after Close is refused;
//   - Unregister: a broken loop, a cancelled ctx and an abandoned waiter
//     leave nothing registered;
//   - SlowConsumerDoesNotBlock: a slow consumer blocks neither the
//     producer nor the other consumers.
func RunPubSub(t *testing.T, ps PubSub) {
	ps.defaults()

	ps.run(t, "WaitForValue", func(t *testing.T) {
		h := ps.open(t)
		h.pub("hello")
		ctx, cancel := h.ctx()
		defer cancel()
		for range 3 {
			v, err := h.sub.WaitForValue(ctx)
			eq(t, "err", err, nil)
			eq(t, "value", v, "hello")
		}
	})

	ps.run(t, "WaitForNew", func(t *testing.T) {
		h := ps.open(t)
		h.pubSeen("old")
		qctx, qcancel := within(t, ps.Quiet)
		_, err := h.sub.WaitForNew(qctx)
		qcancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("WaitForNew without publish: err = %v, want deadline", err)
		}
		ctx, cancel := h.ctx()
		defer cancel()
		w := h.sub.ArmNew(ctx)
		h.pub("new")
		v, err := w.Wait(ctx)
		eq(t, "err", err, nil)
		eq(t, "value", v, "new")
	})

	ps.run(t, "WaitForNext", func(t *testing.T) {
		h := ps.open(t)
		h.pubSeen("old")
		qctx, qcancel := within(t, ps.Quiet)
		_, err := h.sub.WaitForNext(qctx)
		qcancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("WaitForNext without publish: err = %v, want deadline", err)
		}
		ctx, cancel := h.ctx()
		defer cancel()
		w := h.sub.ArmNext(ctx)
		h.pub("hello2")
		for i := range 10 {
			h.pub("more" + strconv.Itoa(i))
		}
		v, err := w.Wait(ctx)
		eq(t, "err", err, nil)
		eq(t, "value", v, "hello2")
	})

	for _, reliable := range []bool{false, true} {
		name := "Listen"
		if reliable {
			name = "ListenReliable"
		}
		ps.run(t, name+"LockStep", func(t *testing.T) {
			h := ps.open(t)
			h.pubSeen("0")
			ctx, cancel := h.ctx()
			defer cancel()
			seq := h.sub.Listen(ctx)
			if reliable {
				seq = h.sub.ListenReliable(ctx)
			}
			n := 0
			for v := range seq {
				eq(t, "value", v, strconv.Itoa(n)) // first the pre-existing value
				n++
				if n == 20 {
					break
				}
				h.pub(strconv.Itoa(n))
			}
			eq(t, "received", n, 20)
		})
	}

	ps.run(t, "ListenSkipsToLatest", func(t *testing.T) {
		h := ps.open(t)
		h.pubSeen("0")
		ctx, cancel := h.ctx()
		defer cancel()
		n, next := 0, 1
		for v := range h.sub.Listen(ctx) {
			eq(t, "value", v, strconv.Itoa(2*n))
			n++
			if n == 20 {
				break
			}
			h.pub(strconv.Itoa(next))
			h.pubSeen(strconv.Itoa(next + 1))
			next += 2
		}
		eq(t, "received", n, 20)
	})

	ps.run(t, "ListenReliableTooFast", func(t *testing.T) {
		h := ps.open(t)
		ctx, cancel := h.ctx()
		defer cancel()
		seq := h.sub.ListenReliable(ctx, afor.Fresh(), afor.QueueSize(60))
		h.pub("0")
		h.pub("1")
		n, next := 0, 2
		for v := range seq {
			eq(t, "value", v, strconv.Itoa(n))
			n++
			if n == 30 {
				break
			}
			if next < 30 {
				h.pub(strconv.Itoa(next))
				h.pub(strconv.Itoa(next + 1))
				next += 2
			}
		}
		eq(t, "received", n, 30)
	})

	ps.run(t, "Freshness", func(t *testing.T) {
		h := ps.open(t)
		h.pubSeen("current")
		for _, reliable := range []bool{false, true} {
			listen := h.sub.Listen
			if reliable {
				listen = h.sub.ListenReliable
			}
			ctx, cancel := h.ctx()
			for v := range listen(ctx) {
				eq(t, "not fresh", v, "current")
				break
			}
			cancel()
			qctx, qcancel := within(t, ps.Quiet)
			for v := range listen(qctx, afor.Fresh()) {
				t.Fatalf("fresh listener yielded %q", v)
			}
			qcancel()
		}
	})

	ps.run(t, "OverflowDropsOldest", func(t *testing.T) {
		h := ps.open(t)
		ctx, cancel := h.ctx()
		defer cancel()
		l := h.sub.Listener(ctx, afor.Fresh())
		for i := range 15 {
			h.pub(strconv.Itoa(100 + i))
		}
		h.await("114")
		eq(t, "dropped", l.Dropped(), uint64(5))
		for i := 105; i < 115; i++ {
			v, err := l.Next(ctx)
			eq(t, "err", err, nil)
			eq(t, "value", v, strconv.Itoa(i))
		}
		l.Stop()
	})

	ps.run(t, "CloseWakesWaitsAndEndsLoops", func(t *testing.T) {
		h := ps.open(t)
		ctx, cancel := h.ctx()
		defer cancel()
		w := h.sub.ArmNext(ctx)
		seq := h.sub.ListenReliable(ctx, afor.Fresh())
		loop := make(chan int)
		go func() {
			n := 0
			for range seq {
				n++
			}
			loop <- n
		}()
		h.sub.Close()
		_, err := w.Wait(ctx)
		if !errors.Is(err, afor.ErrClosed) {
			t.Fatalf("wait after Close: err = %v", err)
		}
		select {
		case n := <-loop:
			eq(t, "loop values", n, 0)
		case <-ctx.Done():
			t.Fatal("loop did not end on Close")
		}
		eq(t, "Input after Close", h.sub.Input("late"), false)
		_ = h.publish(ctx, "after close") // must not panic or block
	})

	ps.run(t, "Unregister", func(t *testing.T) {
		h := ps.open(t)
		h.pubSeen("x")
		ctx, cancel := h.ctx()
		defer cancel()
		base := h.sub.Stats().Listeners // the harness's own listener
		for range h.sub.ListenReliable(ctx) {
			break
		}
		lctx, lcancel := context.WithCancel(ctx)
		h.sub.ListenReliable(lctx) // never ranged
		h.sub.ArmNext(lctx)        // never waited
		lcancel()
		eventually(t, "listeners and waiters unregistered", ps.Timeout, func() bool {
			s := h.sub.Stats()
			return s.Listeners == base && s.Waiters == 0
		})
	})

	ps.run(t, "SlowConsumerDoesNotBlock", func(t *testing.T) {
		h := ps.open(t)
		ctx, cancel := h.ctx()
		defer cancel()
		stuck := h.sub.Listener(ctx, afor.Fresh(), afor.QueueSize(1))
		all := h.sub.Listener(ctx, afor.Fresh(), afor.QueueSize(0))
		for i := range 100 {
			h.pub(strconv.Itoa(i))
		}
		for i := range 100 {
			v, err := all.Next(ctx)
			eq(t, "err", err, nil)
			eq(t, "value", v, strconv.Itoa(i))
		}
		eq(t, "stuck listener dropped", stuck.Dropped(), uint64(99))
	})
}

// ReqRep describes a transport for [RunReqRep].
type ReqRep struct {
	// New returns a server and a client of it on a fresh service. The
	// client may need WaitForServer before its first call.
	New func(t *testing.T) (*afor.Server[string, string], *afor.Client[string, string])
	// NoServer returns a client of a service that has no server.
	NoServer func(t *testing.T) *afor.Client[string, string]
	// Timeout bounds a wait that must succeed (default 5 s).
	Timeout time.Duration
	// Synctest runs every test in a testing/synctest bubble.
	Synctest bool
}

// RunReqRep runs the request/reply conformance suite against a transport,
// one subtest per behaviour:
//
//   - DeferredReply: a server answers later, from another goroutine;
//   - ConcurrentOutOfOrder: concurrent calls answered out of order reach
//     the right callers;
//   - RespondTwiceAndFail: a second answer fails with ErrAlreadyResponded,
//     and Fail reaches the caller as an error;
//   - CallCancelled: cancelling a call's ctx returns at once;
//   - NoServer: a call with no server fails (ErrNoServer) or ends with its
//     ctx, never hangs.
func RunReqRep(t *testing.T, rr ReqRep) {
	if rr.Timeout == 0 {
		rr.Timeout = 5 * time.Second
	}
	run := func(name string, f func(t *testing.T)) {
		t.Run(name, func(t *testing.T) {
			if rr.Synctest {
				synctest.Test(t, f)
				return
			}
			f(t)
		})
	}
	open := func(t *testing.T) (*afor.Server[string, string], *afor.Client[string, string], context.Context) {
		srv, cli := rr.New(t)
		ctx, cancel := within(t, rr.Timeout)
		t.Cleanup(cancel)
		if err := cli.WaitForServer(ctx); err != nil {
			t.Fatalf("WaitForServer: %v", err)
		}
		return srv, cli, ctx
	}

	run("DeferredReply", func(t *testing.T) {
		srv, cli, ctx := open(t)
		w := srv.ArmNext(ctx)
		go func() {
			r, err := w.Wait(ctx)
			if err != nil {
				return
			}
			go func() { _ = r.Respond("re:" + r.Request) }() // later, elsewhere
		}()
		res, err := cli.Call(ctx, "ping")
		eq(t, "err", err, nil)
		eq(t, "reply", res, "re:ping")
	})

	run("ConcurrentOutOfOrder", func(t *testing.T) {
		srv, cli, ctx := open(t)
		const n = 8
		reqs := srv.Listener(ctx)
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				msg := fmt.Sprint("req", i)
				res, err := cli.Call(ctx, msg)
				if err == nil && res != "re:"+msg {
					err = fmt.Errorf("call %q got %q", msg, res)
				}
				errs <- err
			}()
		}
		var pending []*afor.Responder[string, string]
		for range n {
			r, err := reqs.Next(ctx)
			eq(t, "err", err, nil)
			pending = append(pending, r)
		}
		for i := len(pending) - 1; i >= 0; i-- {
			eq(t, "respond", pending[i].Respond("re:"+pending[i].Request), nil)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
	})

	run("RespondTwiceAndFail", func(t *testing.T) {
		srv, cli, ctx := open(t)
		w := srv.ArmNext(ctx)
		go func() {
			r, err := w.Wait(ctx)
			if err != nil {
				return
			}
			_ = r.Fail(errors.New("not today"))
			if err := r.Respond("late"); !errors.Is(err, afor.ErrAlreadyResponded) {
				panic(fmt.Sprintf("second answer: %v", err))
			}
		}()
		_, err := cli.Call(ctx, "x")
		if err == nil || !strings.Contains(err.Error(), "not today") {
			t.Fatalf("error reply: err = %v", err)
		}
	})

	run("CallCancelled", func(t *testing.T) {
		srv, cli, ctx := open(t)
		cctx, cancel := context.WithCancel(ctx)
		w := srv.ArmNext(ctx)
		returned := make(chan struct{})
		go func() {
			r, err := w.Wait(ctx)
			if err != nil {
				return
			}
			cancel() // the caller gives up before the answer
			// Answered once the call returned: a reply that came with the
			// cancellation could win (see "Cancellation" in package afor).
			<-returned
			_ = r.Respond("too late")
		}()
		_, err := cli.Call(cctx, "x")
		close(returned)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled call: err = %v", err)
		}
	})

	run("NoServer", func(t *testing.T) {
		cli := rr.NoServer(t)
		ctx, cancel := within(t, rr.Timeout)
		defer cancel()
		_, err := cli.Call(ctx, "x")
		if err == nil {
			t.Fatal("call without server succeeded")
		}
		if !errors.Is(err, afor.ErrNoServer) && !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("call without server: err = %v", err)
		}
	})
}
