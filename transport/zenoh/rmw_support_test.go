package zenoh

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A queryable answers a query that accepts any key on a key outside the
// query's, over a link, and GetFunc hands the replies to its callbacks.
func TestReplyAnyKeyAndGetFunc(t *testing.T) {
	a := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}})
	b := openT(t, Config{Connect: a.ListenAddrs()})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	refused := make(chan error, 1)
	qa, err := a.DeclareQueryable("data/@adv/pub/x/_", func(q *Query) {
		defer q.Finish()
		if !q.AcceptsAnyKey() {
			refused <- q.ReplyAnyKey(ctx, "data", []byte("no"))
			return
		}
		_ = q.ReplyAnyKey(ctx, "data", []byte("v1"), WithAttachment([]byte("att")))
	})
	if err != nil {
		t.Fatal(err)
	}
	defer qa.Undeclare()
	if err := b.waitQueryable(ctx, "data/@adv/**"); err != nil {
		t.Fatal(err)
	}
	got := make(chan Reply, 4)
	done := make(chan bool, 1)
	if _, err := b.GetFunc(ctx, "data/@adv/**?_max=1;_anyke", func(r Reply) { got <- r }, func(timedOut bool) { done <- timedOut },
		WithTarget(TargetAll), WithConsolidation(ConsolidationNone)); err != nil {
		t.Fatal(err)
	}
	if timedOut := <-done; timedOut {
		t.Fatal("query timed out")
	}
	if len(got) != 1 {
		t.Fatalf("%d replies, want 1", len(got))
	}
	r := <-got
	if r.Err != nil || r.Sample.KeyExpr != "data" || string(r.Sample.Payload) != "v1" || string(r.Sample.Attachment) != "att" {
		t.Fatalf("reply %+v", r)
	}
	// Without _anyke the reply is refused.
	if _, err := b.GetFunc(ctx, "data/@adv/**", func(Reply) {}, func(bool) { done <- true }, WithTarget(TargetAll)); err != nil {
		t.Fatal(err)
	}
	if err := <-refused; !errors.Is(err, ErrInvalidKeyExpr) {
		t.Fatalf("ReplyAnyKey without _anyke: %v", err)
	}
	<-done
	// cancel ends a query at once, calling onDone.
	stop, err := b.GetFunc(ctx, "nothing/here", func(Reply) {}, func(bool) { done <- true })
	if err != nil {
		t.Fatal(err)
	}
	stop()
	stop()
	<-done
}
