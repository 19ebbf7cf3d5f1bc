package zenoh

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/afortest"
	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// collect gathers a Get's replies.
func collect(t testing.TB, s *Session, ctx context.Context, sel string, opts ...GetOption) []Reply {
	t.Helper()
	replies, err := s.Get(ctx, sel, opts...)
	if err != nil {
		t.Fatalf("Get(%q): %v", sel, err)
	}
	var out []Reply
	for r := range replies {
		out = append(out, r)
	}
	return out
}

// waitQ waits until s knows a queryable on key.
func waitQ(t testing.TB, s *Session, key string) {
	t.Helper()
	if err := s.waitQueryable(testCtx(t), key); err != nil {
		t.Fatalf("no queryable on %q: %v", key, err)
	}
}

func declareQ(t testing.TB, s *Session, key string, h func(*Query), opts ...QueryableOption) *Queryable {
	t.Helper()
	qa, err := s.DeclareQueryable(key, h, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = qa.Undeclare() })
	return qa
}

// sessions returns, for each topology, the session to declare on and the
// session to query from.
func topologies(t *testing.T) map[string]func(t *testing.T) (server, client *Session) {
	return map[string]func(t *testing.T) (*Session, *Session){
		"local": func(t *testing.T) (*Session, *Session) { s := openT(t, Config{}); return s, s },
		"peer":  func(t *testing.T) (*Session, *Session) { return pair(t, ModePeer) },
		"client": func(t *testing.T) (*Session, *Session) {
			a, b := pair(t, ModeClient)
			return a, b
		},
		"client-serves": func(t *testing.T) (*Session, *Session) {
			a, b := pair(t, ModeClient)
			return b, a
		},
	}
}

func TestGetReplies(t *testing.T) {
	for name, open := range topologies(t) {
		t.Run(name, func(t *testing.T) {
			srv, cli := open(t)
			ctx := testCtx(t)
			declareQ(t, srv, "q/**", func(q *Query) {
				if string(q.Attachment) != "qatt" || q.Encoding != EncodingJSON || q.Selector() != "q/**?a=1" {
					t.Errorf("query %+v", q)
				}
				go func() { // answered later, elsewhere
					defer q.Finish()
					for i := range 3 {
						key := fmt.Sprintf("q/%d", i)
						if err := q.Reply(ctx, key, []byte(q.Parameters+string(q.Payload)), WithAttachment([]byte("att")), WithEncoding(EncodingTextPlain)); err != nil {
							t.Error(err)
						}
					}
					_ = q.ReplyDelete(ctx, "q/gone")
					_ = q.ReplyErr(ctx, []byte("oops"))
					if err := q.Reply(ctx, "other", nil); !errors.Is(err, ErrInvalidKeyExpr) {
						t.Errorf("reply outside the query: %v", err)
					}
				}()
			})
			waitQ(t, cli, "q/x")
			got := collect(t, cli, ctx, "q/**?a=1", WithQueryPayload([]byte("+p")), WithConsolidation(ConsolidationNone),
				WithQueryAttachment([]byte("qatt")), WithQueryEncoding(EncodingJSON))
			var keys []string
			var errs int
			for _, r := range got {
				if r.Err != nil {
					var re *ReplyError
					if !errors.As(r.Err, &re) || string(re.Payload) != "oops" || !errors.Is(r.Err, ErrReplyError) {
						t.Errorf("error reply %v", r.Err)
					}
					errs++
					continue
				}
				keys = append(keys, r.Sample.KeyExpr+":"+r.Sample.Kind.String())
				if r.Sample.Kind == KindPut && (string(r.Sample.Payload) != "a=1+p" || string(r.Sample.Attachment) != "att" || r.Sample.Encoding != EncodingTextPlain) {
					t.Errorf("reply %+v", r.Sample)
				}
			}
			slices.Sort(keys)
			want := []string{"q/0:PUT", "q/1:PUT", "q/2:PUT", "q/gone:DELETE"}
			if !slices.Equal(keys, want) || errs != 1 {
				t.Fatalf("replies %v (%d errors), want %v and 1 error", keys, errs, want)
			}
		})
	}
}

func TestReplyAndFinish(t *testing.T) {
	for name, open := range topologies(t) {
		t.Run(name, func(t *testing.T) {
			srv, cli := open(t)
			ctx := testCtx(t)
			late := make(chan error, 1)
			declareQ(t, srv, "rf/**", func(q *Query) {
				if err := q.ReplyAndFinish(ctx, q.KeyExpr, []byte("last"), WithAttachment([]byte("att"))); err != nil {
					t.Error(err)
				}
				late <- q.Reply(ctx, q.KeyExpr, []byte("too late"))
			})
			waitQ(t, cli, "rf/x")
			// The Get ends because the query was finished, long before its
			// timeout (or it fails when the test's ctx ends).
			got := collect(t, cli, ctx, "rf/x", WithTimeout(time.Hour))
			if len(got) != 1 || got[0].Err != nil || string(got[0].Sample.Payload) != "last" || string(got[0].Sample.Attachment) != "att" {
				t.Fatalf("replies %+v", got)
			}
			if err := <-late; !errors.Is(err, ErrQueryFinished) {
				t.Fatalf("reply after ReplyAndFinish: %v", err)
			}
		})
	}
}

func TestGetConsolidationLatest(t *testing.T) {
	s := openT(t, Config{})
	ctx := testCtx(t)
	declareQ(t, s, "c", func(q *Query) {
		defer q.Finish()
		for i := range 3 {
			_ = q.Reply(ctx, "c", []byte{byte('0' + i)}, WithTimestamp(NewTimestamp(time.Unix(int64(100+i), 0), []byte{1})))
		}
	})
	got := collect(t, s, ctx, "c")
	if len(got) != 1 || string(got[0].Sample.Payload) != "2" {
		t.Fatalf("latest: %+v", got)
	}
	got = collect(t, s, ctx, "c", WithConsolidation(ConsolidationMonotonic))
	if len(got) != 3 {
		t.Fatalf("monotonic: %+v", got)
	}
}

// A queryable that never answers must not hang the querier: the query's
// timeout finishes it, and so does undeclaring the queryable or closing
// the session that holds it.
func TestQueryNeverAnswered(t *testing.T) {
	for name, end := range map[string]func(srv *Session, qa *Queryable){
		"timeout":     func(*Session, *Queryable) {},
		"undeclare":   func(_ *Session, qa *Queryable) { _ = qa.Undeclare() },
		"closeserver": func(srv *Session, _ *Queryable) { srv.Close() },
	} {
		t.Run(name, func(t *testing.T) {
			srv, cli := pair(t, ModePeer)
			ctx := testCtx(t)
			got := make(chan *Query, 1)
			qa := declareQ(t, srv, "silent", func(q *Query) { got <- q })
			waitQ(t, cli, "silent")
			timeout := 20 * time.Second
			if name == "timeout" {
				timeout = 200 * time.Millisecond
			}
			replies, err := cli.Get(ctx, "silent", WithTimeout(timeout))
			if err != nil {
				t.Fatal(err)
			}
			q := <-got
			end(srv, qa)
			start := time.Now()
			for r := range replies {
				t.Fatalf("unexpected reply %+v", r)
			}
			if time.Since(start) > 10*time.Second {
				t.Fatal("querier waited for its own timeout")
			}
			if name != "closeserver" {
				// The queryable side finished the query too.
				deadline := time.After(10 * time.Second)
				for !q.isFinished() {
					select {
					case <-deadline:
						t.Fatal("query not finished")
					case <-time.After(time.Millisecond):
					}
				}
				if err := q.Reply(ctx, "silent", nil); !errors.Is(err, ErrQueryFinished) {
					t.Fatalf("reply after finish: %v", err)
				}
			}
		})
	}
}

func (q *Query) isFinished() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.finished
}

func TestGetEndsWhenLinkDies(t *testing.T) {
	srv, cli := pair(t, ModePeer)
	ctx := testCtx(t)
	declareQ(t, srv, "dies", func(q *Query) {})
	waitQ(t, cli, "dies")
	replies, err := cli.Get(ctx, "dies")
	if err != nil {
		t.Fatal(err)
	}
	cli.mu.Lock()
	for l := range cli.links {
		l.close(wire.CloseGeneric, errors.New("test: cut"))
	}
	cli.mu.Unlock()
	for range replies {
		t.Fatal("reply from a dead link")
	}
}

func TestGetNoQueryableAndTargets(t *testing.T) {
	s := openT(t, Config{})
	ctx := testCtx(t)
	if got := collect(t, s, ctx, "nobody"); len(got) != 0 {
		t.Fatalf("replies from nobody: %v", got)
	}
	var mu sync.Mutex
	var hit []string
	h := func(name string) func(*Query) {
		return func(q *Query) {
			mu.Lock()
			hit = append(hit, name)
			mu.Unlock()
			_ = q.Reply(ctx, q.KeyExpr, []byte(name))
			q.Finish()
		}
	}
	declareQ(t, s, "t/**", h("complete"), Complete())
	declareQ(t, s, "t/a", h("partial"))
	for _, tc := range []struct {
		target QueryTarget
		want   []string
	}{
		{TargetAll, []string{"complete", "partial"}},
		{TargetAllComplete, []string{"complete"}},
		{TargetBestMatching, []string{"complete"}},
	} {
		hit = nil
		collect(t, s, ctx, "t/a", WithTarget(tc.target), WithConsolidation(ConsolidationNone))
		slices.Sort(hit)
		if !slices.Equal(hit, tc.want) {
			t.Errorf("target %d reached %v, want %v", tc.target, hit, tc.want)
		}
	}
	if _, err := s.Get(ctx, "bad/#"); !errors.Is(err, ErrInvalidKeyExpr) {
		t.Fatalf("bad selector: %v", err)
	}
	s.Close()
	if _, err := s.Get(ctx, "x"); !errors.Is(err, ErrSessionClosed) {
		t.Fatalf("Get on closed session: %v", err)
	}
	if _, err := s.DeclareQueryable("x", func(*Query) {}); !errors.Is(err, ErrSessionClosed) {
		t.Fatalf("DeclareQueryable on closed session: %v", err)
	}
}

func TestGetBreakEarly(t *testing.T) {
	s := openT(t, Config{})
	ctx := testCtx(t)
	declareQ(t, s, "b", func(q *Query) {
		for range 5 {
			_ = q.Reply(ctx, "b", nil)
		}
	})
	replies, err := s.Get(ctx, "b", WithConsolidation(ConsolidationNone))
	if err != nil {
		t.Fatal(err)
	}
	for range replies {
		break
	}
	s.mu.Lock()
	n := len(s.gets)
	s.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d queries still pending after break", n)
	}
}

func TestReqRepConformance(t *testing.T) {
	for name, open := range map[string]func(t *testing.T) (*Session, *Session){
		"one-session":  func(t *testing.T) (*Session, *Session) { s := openT(t, Config{}); return s, s },
		"two-sessions": func(t *testing.T) (*Session, *Session) { return pair(t, ModePeer) },
		"client":       func(t *testing.T) (*Session, *Session) { return pair(t, ModeClient) },
	} {
		t.Run(name, func(t *testing.T) {
			afortest.RunReqRep(t, afortest.ReqRep{
				New: func(t *testing.T) (*afor.Server[string, string], *afor.Client[string, string]) {
					a, b := open(t)
					srv, err := NewServer(a, "svc/echo", afor.StringCodec{}, afor.StringCodec{})
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(srv.Close)
					cli, err := NewClient(b, "svc/echo", afor.StringCodec{}, afor.StringCodec{})
					if err != nil {
						t.Fatal(err)
					}
					return srv, cli
				},
				NoServer: func(t *testing.T) *afor.Client[string, string] {
					_, b := open(t)
					cli, err := NewClient(b, "svc/none", afor.StringCodec{}, afor.StringCodec{})
					if err != nil {
						t.Fatal(err)
					}
					return cli
				},
			})
		})
	}
}

func TestClientErrors(t *testing.T) {
	s := openT(t, Config{})
	ctx := testCtx(t)
	cli, err := NewClient(s, "svc/e", afor.StringCodec{}, afor.StringCodec{}, WithTimeout(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cli.Call(ctx, "x"); !errors.Is(err, afor.ErrNoServer) {
		t.Fatalf("no server: %v", err)
	}
	declareQ(t, s, "svc/e", func(q *Query) {}) // never answers
	if _, err := cli.Call(ctx, "x"); !errors.Is(err, ErrQueryTimeout) {
		t.Fatalf("silent server: %v", err)
	}
	srv, err := NewServer(s, "svc/f", afor.StringCodec{}, afor.StringCodec{})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for r := range srv.ListenReliable(ctx) {
			_ = r.Fail(errors.New("nope: " + r.Request))
		}
	}()
	cf, _ := NewClient(s, "svc/f", afor.StringCodec{}, afor.StringCodec{})
	_, err = cf.Call(ctx, "y")
	if !errors.Is(err, ErrReplyError) || !strings.Contains(err.Error(), "nope: y") {
		t.Fatalf("error reply: %v", err)
	}
	s.Close()
	<-srv.Done()
	if !errors.Is(srv.Err(), ErrSessionClosed) {
		t.Fatalf("server ended with %v", srv.Err())
	}
}

// A peer forwards the queries of its clients: a client's query reaches a
// queryable of another client and of another peer, and a peer's query
// reaches a client's queryable.
func TestQueryForwardedForClients(t *testing.T) {
	hub := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}})
	ctx := testCtx(t)
	serving := openT(t, Config{Mode: ModeClient, Connect: hub.ListenAddrs()})
	peer := openT(t, Config{Connect: hub.ListenAddrs()})
	asking := openT(t, Config{Mode: ModeClient, Connect: hub.ListenAddrs()})
	answer := func(name string) func(*Query) {
		return func(q *Query) {
			go func() {
				defer q.Finish()
				_ = q.Reply(ctx, "fw/"+name, []byte(name+":"+q.Parameters))
				_ = q.ReplyErr(ctx, []byte(name+"-err"))
			}()
		}
	}
	declareQ(t, serving, "fw/**", answer("client"))
	declareQ(t, peer, "fw/**", answer("peer"))
	declareQ(t, hub, "fw/**", answer("hub"))
	waitQ(t, asking, "fw/x")
	// The client learns of the queryables one by one: wait for all.
	for range 100 {
		got := collect(t, asking, ctx, "fw/**?k=v", WithTarget(TargetAll), WithConsolidation(ConsolidationNone))
		var oks, errs []string
		for _, r := range got {
			if r.Err != nil {
				errs = append(errs, string(r.Err.(*ReplyError).Payload))
			} else {
				oks = append(oks, string(r.Sample.Payload))
			}
		}
		slices.Sort(oks)
		slices.Sort(errs)
		if slices.Equal(oks, []string{"client:k=v", "hub:k=v", "peer:k=v"}) {
			if !slices.Equal(errs, []string{"client-err", "hub-err", "peer-err"}) {
				t.Fatalf("errors %v", errs)
			}
			// A peer's query reaches the client's queryable too.
			got = collect(t, peer, ctx, "fw/**", WithTarget(TargetAll), WithConsolidation(ConsolidationNone))
			oks = oks[:0]
			for _, r := range got {
				if r.Err == nil {
					oks = append(oks, string(r.Sample.Payload))
				}
			}
			slices.Sort(oks)
			if !slices.Equal(oks, []string{"client:", "hub:", "peer:"}) {
				t.Fatalf("peer's query got %v", oks)
			}
			return
		}
		time.Sleep(20 * time.Millisecond) // declarations still travelling; no single signal covers them
	}
	t.Fatal("the client's query never reached every queryable")
}

// A dialling session whose link dies redials, learns the queryable again
// and queries it; WaitConnected waits for the new link.
func TestQueryAfterRedial(t *testing.T) {
	a := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}})
	b := openT(t, Config{Connect: a.ListenAddrs(), RetryInterval: 20 * time.Millisecond})
	ctx := testCtx(t)
	declareQ(t, a, "rd", func(q *Query) { _ = q.Reply(ctx, "rd", []byte("ok")); q.Finish() })
	waitQ(t, b, "rd")
	b.mu.Lock()
	var old *link
	for l := range b.links {
		old = l
	}
	b.mu.Unlock()
	old.close(wire.CloseGeneric, errors.New("test: cut"))
	<-old.finished
	if err := b.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	waitQ(t, b, "rd")
	if got := collect(t, b, ctx, "rd"); len(got) != 1 || string(got[0].Sample.Payload) != "ok" {
		t.Fatalf("after redial: %+v", got)
	}
	b.Close()
	if err := b.WaitConnected(ctx); !errors.Is(err, ErrSessionClosed) {
		t.Fatalf("WaitConnected on closed session: %v", err)
	}
}
