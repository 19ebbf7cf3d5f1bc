package zenoh

import (
	"errors"
	"testing"
	"time"
)

func TestPicoGetFromGoQueryable(t *testing.T) {
	s, ep := goListener(t)
	ctx := testCtx(t)
	payloads := make(chan string, 4)
	declareQ(t, s, "demo/q/**", func(q *Query) {
		payloads <- string(q.Payload)
		go func() {
			defer q.Finish()
			// Two keys: pico's default consolidation keeps one reply per key.
			_ = q.Reply(ctx, "demo/q/a", []byte("from-go-1"))
			_ = q.Reply(ctx, "demo/q/b", []byte("from-go-2"))
			_ = q.ReplyErr(ctx, []byte("go-error"))
		}()
	})
	get := startPico(t, "z_get", "-m", "peer", "-e", ep, "-k", "demo/q/**", "-v", "hello")
	get.waitLine(t, ">> Received PUT ('demo/q/a': 'from-go-1')")
	get.waitLine(t, ">> Received PUT ('demo/q/b': 'from-go-2')")
	get.waitLine(t, ">> Received an error: go-error")
	get.waitLine(t, ">> Received query final notification")
	if p := <-payloads; p != "hello" {
		t.Fatalf("query payload %q", p)
	}
}

func TestGoGetFromPicoQueryable(t *testing.T) {
	s, ep := goListener(t)
	ctx := testCtx(t)
	startPico(t, "z_queryable", "-m", "peer", "-e", ep, "-k", "demo/pq", "-v", "pico-answer")
	waitQ(t, s, "demo/pq")
	got := collect(t, s, ctx, "demo/pq?x=1", WithQueryPayload([]byte("ask")), WithTimeout(5*time.Second))
	if len(got) != 1 || got[0].Err != nil || got[0].Sample.KeyExpr != "demo/pq" || string(got[0].Sample.Payload) != "pico-answer" {
		t.Fatalf("replies %+v", got)
	}
}

func TestPicoTokenSeenByGo(t *testing.T) {
	s, ep := goListener(t)
	ev := liveEvents(t, s, "demo/lt/**", WithHistory())
	pico := startPico(t, "z_liveliness", "-m", "peer", "-e", ep, "-k", "demo/lt/pico")
	expectLive(t, ev, "demo/lt/pico", KindPut)
	pico.kill()
	expectLive(t, ev, "demo/lt/pico", KindDelete)
}

func TestGoTokenSeenByPico(t *testing.T) {
	s, ep := goListener(t)
	tok, err := s.DeclareToken("demo/gt/go")
	if err != nil {
		t.Fatal(err)
	}
	sub := startPico(t, "z_sub_liveliness", "-m", "peer", "-e", ep, "-k", "demo/gt/**", "-h")
	sub.waitLine(t, "New alive token ('demo/gt/go')")
	if err := tok.Undeclare(); err != nil {
		t.Fatal(err)
	}
	sub.waitLine(t, "Dropped token ('demo/gt/go')")
	if err := tok.Undeclare(); !errors.Is(err, ErrUndeclared) {
		t.Fatal(err)
	}
}
