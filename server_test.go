package afor_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/afor-go/afor"
)

// loopback is a Requester that feeds a Server in the same process; it is
// what a transport does, minus the wire.
type loopback[Req, Res any] struct {
	srv       *afor.Server[Req, Res]
	cancelled chan struct{}
}

func (l *loopback[Req, Res]) Send(ctx context.Context, req Req, reply func(Res, error)) (func(), error) {
	if l.srv == nil {
		return nil, afor.ErrNoServer
	}
	r := afor.NewResponder(req, func(res Res, err error) error { reply(res, err); return nil })
	if !l.srv.Input(r) {
		return nil, afor.ErrNoServer
	}
	return func() {
		if l.cancelled != nil {
			select {
			case l.cancelled <- struct{}{}:
			default:
			}
		}
	}, nil
}

func (l *loopback[Req, Res]) WaitReady(ctx context.Context) error {
	if l.srv != nil {
		return nil
	}
	<-ctx.Done()
	return ctx.Err()
}

func TestRespondOnce(t *testing.T) {
	var got []string
	r := afor.NewResponder(1, func(res string, err error) error {
		if err != nil {
			got = append(got, "err:"+err.Error())
		} else {
			got = append(got, res)
		}
		return nil
	})
	mustEqual(t, r.Responded(), false)
	mustEqual(t, r.Respond("a"), nil)
	mustEqual(t, r.Respond("b"), afor.ErrAlreadyResponded)
	mustEqual(t, r.Fail(errors.New("x")), afor.ErrAlreadyResponded)
	mustEqual(t, len(got), 1)
	mustEqual(t, got[0], "a")
}

func TestDeferredRepliesOutOfOrder(t *testing.T) {
	ctx := t.Context()
	srv := afor.NewServer[int, int]()
	defer srv.Close()
	cli := afor.NewClient[int, int](&loopback[int, int]{srv: srv})
	reqs := srv.Listener(ctx)
	var wg sync.WaitGroup
	results := make([]int, 5)
	errs := make([]error, 5)
	for i := range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = cli.Call(ctx, i)
		}()
	}
	var pending []*afor.Responder[int, int]
	for range 5 {
		r, err := reqs.Next(ctx)
		mustEqual(t, err, nil)
		pending = append(pending, r)
	}
	for i := len(pending) - 1; i >= 0; i-- { // answer later, in reverse
		r := pending[i]
		if r.Request == 3 {
			mustEqual(t, r.Fail(errors.New("three is bad")), nil)
			continue
		}
		go r.Respond(r.Request * 10)
	}
	wg.Wait()
	for i := range 5 {
		if i == 3 {
			if errs[i] == nil || errs[i].Error() != "three is bad" {
				t.Fatalf("call 3 err = %v", errs[i])
			}
			continue
		}
		mustEqual(t, errs[i], nil)
		mustEqual(t, results[i], i*10)
	}
}

func TestCallCancelAndNoServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := afor.NewServer[int, int]()
		lb := &loopback[int, int]{srv: srv, cancelled: make(chan struct{}, 1)}
		cli := afor.NewClient[int, int](lb)
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		_, err := cli.Call(ctx, 1) // nobody answers
		mustEqual(t, errors.Is(err, context.DeadlineExceeded), true)
		<-lb.cancelled // the pending request was abandoned
		r, _ := srv.WaitForValue(t.Context())
		mustEqual(t, r.Respond(5), nil) // a late reply is ignored
		srv.Close()

		none := afor.NewClient[int, int](&loopback[int, int]{})
		_, err = none.Call(t.Context(), 1)
		mustEqual(t, errors.Is(err, afor.ErrNoServer), true)
		wctx, wcancel := context.WithTimeout(t.Context(), time.Second)
		defer wcancel()
		mustEqual(t, errors.Is(none.WaitForServer(wctx), context.DeadlineExceeded), true)

		closed := afor.NewClient[int, int](&loopback[int, int]{srv: srv})
		_, err = closed.Call(t.Context(), 1)
		mustEqual(t, errors.Is(err, afor.ErrNoServer), true)
	})
}

func TestServerNeverDropsSilently(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		srv := afor.NewServer[int, int]()
		cli := afor.NewClient[int, int](&loopback[int, int]{srv: srv})
		latest := srv.Listen(ctx) // a latest-value listener skips requests
		errs := make(chan error, 3)
		for i := range 3 {
			go func() { _, err := cli.Call(ctx, i); errs <- err }()
		}
		synctest.Wait() // all three calls reached the server
		for r := range latest {
			mustEqual(t, r.Respond(0), nil)
			break
		}
		dropped := 0
		for range 3 {
			if err := <-errs; errors.Is(err, afor.ErrRequestDropped) {
				dropped++
			} else if err != nil {
				t.Fatal(err)
			}
		}
		mustEqual(t, dropped, 2)

		// A request nobody took before Close is failed too.
		go func() { _, err := cli.Call(ctx, 9); errs <- err }()
		synctest.Wait()
		srv.Close()
		mustEqual(t, errors.Is(<-errs, afor.ErrRequestDropped), true)
	})
}

func TestServerKeepsRequestsUntilFirstListener(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		srv := afor.NewServer[int, int]()
		defer srv.Close()
		cli := afor.NewClient[int, int](&loopback[int, int]{srv: srv})
		results := make(chan int, 3)
		for i := range 3 {
			go func() {
				v, err := cli.Call(ctx, i)
				if err != nil {
					t.Error(err)
				}
				results <- v
			}()
		}
		synctest.Wait() // all three arrived with nobody listening
		first, err := srv.WaitForValue(ctx)
		mustEqual(t, err, nil)
		_ = first.Respond(first.Request)
		n := 0
		for r := range srv.ListenReliable(ctx) {
			_ = r.Respond(r.Request)
			if n++; n == 2 {
				break
			}
		}
		sum := 0
		for range 3 {
			sum += <-results
		}
		mustEqual(t, sum, 0+1+2)
	})
}

func TestServerAnsweredByCallbackKeepsNoBacklog(t *testing.T) {
	ctx := t.Context()
	srv := afor.NewServer[int, int]()
	defer srv.Close()
	srv.OnInput(func(r *afor.Responder[int, int]) { _ = r.Respond(r.Request) })
	cli := afor.NewClient[int, int](&loopback[int, int]{srv: srv})
	for i := range 100 {
		if v, err := cli.Call(ctx, i); err != nil || v != i {
			t.Fatalf("Call(%d) = %d, %v", i, v, err)
		}
	}
	l := srv.Listener(ctx)
	mustEqual(t, l.Len(), 0) // nothing kept: the callback consumed them
	l.Stop()
}

func TestServerBacklogIsBounded(t *testing.T) {
	srv := afor.NewServer[int, int]()
	failed := 0
	for i := range afor.MaxBacklog + 5 {
		srv.Input(afor.NewResponder(i, func(_ int, err error) error {
			if errors.Is(err, afor.ErrRequestDropped) {
				failed++
			}
			return nil
		}))
	}
	mustEqual(t, failed, 5)
	l := srv.Listener(t.Context())
	mustEqual(t, l.Len(), afor.MaxBacklog)
	r, _ := l.Next(t.Context())
	mustEqual(t, r.Request, 5) // the oldest were dropped
	srv.Close()
	l.Stop() // the rest are failed
	mustEqual(t, failed, afor.MaxBacklog+4)
}
