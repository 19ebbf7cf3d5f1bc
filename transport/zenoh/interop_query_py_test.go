package zenoh

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// exchangeQueries runs a Python get against a Go queryable and a Go get
// against a Python queryable, each answered with two replies and an error
// reply.
func exchangeQueries(t *testing.T, s *Session, py *pyPeer, prefix string) {
	t.Run("py-get-go-queryable", func(t *testing.T) {
		ctx := testCtx(t)
		declareQ(t, s, prefix+"/go/**", func(q *Query) {
			go func() { // answered later, from another goroutine
				defer q.Finish()
				for i := range 2 {
					_ = q.Reply(ctx, q.KeyExpr, fmt.Appendf(nil, "go%d:%s:%s", i, q.Parameters, q.Payload), WithAttachment([]byte("goatt")))
				}
				_ = q.ReplyErr(ctx, []byte("go-err"))
			}()
		})
		// Retry until the Python side has learnt of the queryable.
		var ev pyEvent
		for range 40 {
			ev = py.doEv(map[string]any{"op": "get", "selector": prefix + "/go/x?p=1", "payload": "hi", "timeout": 5})
			if len(ev.Replies) > 0 {
				break
			}
			time.Sleep(250 * time.Millisecond) // polling the remote's routing state: no signal to wait on
		}
		var oks []string
		var errs []string
		for _, r := range ev.Replies {
			if r.Err {
				errs = append(errs, r.Payload)
				continue
			}
			if r.Key != prefix+"/go/x" || r.Attachment == nil || *r.Attachment != "goatt" {
				t.Errorf("reply %+v", r)
			}
			oks = append(oks, r.Payload)
		}
		slices.Sort(oks)
		if !slices.Equal(oks, []string{"go0:p=1:hi", "go1:p=1:hi"}) || !slices.Equal(errs, []string{"go-err"}) {
			t.Fatalf("python got %+v", ev.Replies)
		}
	})
	t.Run("go-get-py-queryable", func(t *testing.T) {
		ctx := testCtx(t)
		py.do(map[string]any{"op": "queryable", "key": prefix + "/py/**", "replies": 2, "error": "py-err"})
		waitQ(t, s, prefix+"/py/x")
		got := collect(t, s, ctx, prefix+"/py/x?q=2", WithQueryPayload([]byte("hey")), WithConsolidation(ConsolidationNone), WithTimeout(5*time.Second))
		var oks, errs []string
		for _, r := range got {
			if r.Err != nil {
				errs = append(errs, string(r.Err.(*ReplyError).Payload))
				continue
			}
			if r.Sample.KeyExpr != prefix+"/py/x" || string(r.Sample.Attachment) != "pyatt" {
				t.Errorf("reply %+v", r.Sample)
			}
			oks = append(oks, string(r.Sample.Payload))
		}
		slices.Sort(oks)
		if !slices.Equal(oks, []string{"py0:q=2:hey", "py1:q=2:hey"}) || !slices.Equal(errs, []string{"py-err"}) {
			t.Fatalf("go got %+v", got)
		}
	})
}

func TestInteropQueryPythonPeerConnectsToGo(t *testing.T) {
	s := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}})
	py := startPy(t, "--mode", "peer", "--connect", s.ListenAddrs()[0])
	exchangeQueries(t, s, py, "q1")
}

func TestInteropQueryGoConnectsToPythonPeer(t *testing.T) {
	py := startPy(t, "--mode", "peer", "--listen", anyPort)
	ep := py.listen
	s := openT(t, Config{Connect: []string{ep}})
	exchangeQueries(t, s, py, "q2")
}

func TestInteropQueryGoClientThroughPythonRouter(t *testing.T) {
	py := startPy(t, "--mode", "router", "--listen", anyPort, "--client")
	ep := py.listen
	s := openT(t, Config{Mode: ModeClient, Connect: []string{ep}})
	exchangeQueries(t, s, py, "q3")
}

func TestInteropQueryGoPeerThroughPythonRouter(t *testing.T) {
	py := startPy(t, "--mode", "router", "--listen", anyPort, "--client")
	ep := py.listen
	s := openT(t, Config{Connect: []string{ep}})
	exchangeQueries(t, s, py, "q4")
}

func TestInteropQueryPythonClientThroughGoPeer(t *testing.T) {
	s := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}})
	py := startPy(t, "--mode", "client", "--connect", s.ListenAddrs()[0])
	exchangeQueries(t, s, py, "q5")
}

// The Python router dies mid-stream and a new one starts on the same
// endpoint: the Go client redials, re-declares its subscriber, queryable
// and token, and traffic resumes with no user action.
func TestInteropRouterRestart(t *testing.T) {
	py := startPy(t, "--mode", "router", "--listen", anyPort, "--client")
	ep := py.listen
	s := openT(t, Config{Mode: ModeClient, Connect: []string{ep}, RetryInterval: 50 * time.Millisecond})
	ctx := testCtx(t)
	got := collector(t, s, "f/**")
	declareQ(t, s, "f/q", func(q *Query) {
		_ = q.Reply(ctx, "f/q", []byte("still-here"))
		q.Finish()
	})
	if _, err := s.DeclareToken("f/tok"); err != nil {
		t.Fatal(err)
	}
	py.do(map[string]any{"op": "pub", "key": "f/x", "wait": true})
	py.do(map[string]any{"op": "put", "key": "f/x", "payload": "before"})
	if smp := recv(t, got); string(smp.Payload) != "before" {
		t.Fatalf("got %+v", smp)
	}
	py.send(map[string]any{"op": "crash"})
	py.waitExit() // its port is free again

	py2 := startPy(t, "--mode", "router", "--listen", ep, "--client")
	if err := s.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	py2.do(map[string]any{"op": "pub", "key": "f/x", "wait": true}) // our subscriber was re-declared
	py2.do(map[string]any{"op": "put", "key": "f/x", "payload": "after"})
	for smp := recv(t, got); string(smp.Payload) != "after"; smp = recv(t, got) {
	}
	var ev pyEvent
	for range 40 {
		ev = py2.doEv(map[string]any{"op": "get", "selector": "f/q", "timeout": 2})
		if len(ev.Replies) > 0 {
			break
		}
		time.Sleep(250 * time.Millisecond) // polling the remote's routing state: no signal to wait on
	}
	if len(ev.Replies) != 1 || ev.Replies[0].Payload != "still-here" {
		t.Fatalf("query after restart: %+v", ev.Replies)
	}
	if keys := py2.doEv(map[string]any{"op": "lget", "key": "f/**"}).Keys; len(keys) != 1 || keys[0] != "f/tok" {
		t.Fatalf("token after restart: %v", keys)
	}
}

// A Go peer forwards a Python client's query to a Python peer's queryable.
func TestInteropQueryForwardedByGoPeer(t *testing.T) {
	s := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}})
	qpeer := startPy(t, "--mode", "peer", "--connect", s.ListenAddrs()[0])
	qpeer.do(map[string]any{"op": "queryable", "key": "q6/**", "replies": 2, "error": "py-err"})
	waitQ(t, s, "q6/x")
	client := startPy(t, "--mode", "client", "--connect", s.ListenAddrs()[0])
	var ev pyEvent
	for range 40 {
		ev = client.doEv(map[string]any{"op": "get", "selector": "q6/x?a=b", "payload": "z", "timeout": 5})
		if len(ev.Replies) > 0 {
			break
		}
		time.Sleep(250 * time.Millisecond) // polling the remote's routing state: no signal to wait on
	}
	var oks, errs []string
	for _, r := range ev.Replies {
		if r.Err {
			errs = append(errs, r.Payload)
		} else {
			oks = append(oks, r.Payload)
		}
	}
	slices.Sort(oks)
	if !slices.Equal(oks, []string{"py0:a=b:z", "py1:a=b:z"}) || !slices.Equal(errs, []string{"py-err"}) {
		t.Fatalf("python client got %+v", ev.Replies)
	}
}
