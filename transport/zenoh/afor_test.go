package zenoh

import (
	"errors"
	"testing"

	"github.com/afor-go/afor"
)

func TestSubscribeAdapter(t *testing.T) {
	a, b := pair(t, ModePeer)
	ctx := testCtx(t)
	sub, err := Subscribe(b, "adapt/**")
	if err != nil {
		t.Fatal(err)
	}
	p := publisher(t, a, "adapt/x")
	next := sub.ArmNext(ctx)
	if err := p.Put(ctx, []byte("1")); err != nil {
		t.Fatal(err)
	}
	v, err := next.Wait(ctx)
	if err != nil || string(v.Payload) != "1" {
		t.Fatalf("got %+v, %v", v, err)
	}
	// Closing the afor.Sub undeclares the subscriber remotely.
	sub.Close()
	for p.HasMatchingSubscribers() {
		select {
		case <-a.waitChange():
		case <-ctx.Done():
			t.Fatal("still matching after the Sub closed")
		}
	}
}

func TestSubscribeCodecAndSessionClose(t *testing.T) {
	s := openT(t, Config{})
	ctx := testCtx(t)
	sub, err := SubscribeCodec(s, "n", afor.StringCodec{})
	if err != nil {
		t.Fatal(err)
	}
	next := sub.ArmNext(ctx)
	if err := s.Put(ctx, "n", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "n"); err != nil { // skipped by codec subs
		t.Fatal(err)
	}
	if v, err := next.Wait(ctx); err != nil || v != "x" {
		t.Fatalf("got %q, %v", v, err)
	}
	s.Close()
	<-sub.Done()
	if !errors.Is(sub.Err(), ErrSessionClosed) {
		t.Fatalf("sub ended with %v, want ErrSessionClosed", sub.Err())
	}
	if _, err := Subscribe(s, "n"); !errors.Is(err, ErrSessionClosed) {
		t.Fatalf("Subscribe on closed session: %v", err)
	}
	if _, err := Subscribe(openT(t, Config{}), "a/#"); !errors.Is(err, ErrInvalidKeyExpr) {
		t.Fatalf("bad key: %v", err)
	}
}
