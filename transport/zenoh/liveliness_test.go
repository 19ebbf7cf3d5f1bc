package zenoh

import (
	"errors"
	"testing"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// liveEvents gathers liveliness events on a channel.
func liveEvents(t testing.TB, s *Session, key string, opts ...LivelinessOption) <-chan Sample {
	t.Helper()
	ch := make(chan Sample, 256)
	ls, err := s.DeclareLivelinessSubscriber(key, func(smp Sample) { ch <- smp }, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ls.Undeclare() })
	return ch
}

func expectLive(t testing.TB, ch <-chan Sample, key string, kind SampleKind) {
	t.Helper()
	select {
	case smp := <-ch:
		if smp.KeyExpr != key || smp.Kind != kind {
			t.Fatalf("got %s %s, want %s %s", smp.Kind, smp.KeyExpr, kind, key)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s event for %s within 10 s", kind, key)
	}
}

func TestLiveliness(t *testing.T) {
	for name, open := range topologies(t) {
		t.Run(name, func(t *testing.T) {
			holder, watcher := open(t)
			ctx := testCtx(t)
			early, err := holder.DeclareToken("live/early")
			if err != nil {
				t.Fatal(err)
			}
			// History reports the token already alive.
			ev := liveEvents(t, watcher, "live/**", WithHistory())
			expectLive(t, ev, "live/early", KindPut)
			late, err := holder.DeclareToken("live/late")
			if err != nil {
				t.Fatal(err)
			}
			expectLive(t, ev, "live/late", KindPut)
			keys, err := watcher.LivelinessGet(ctx, "live/*")
			if err != nil || len(keys) != 2 {
				t.Fatalf("LivelinessGet: %v, %v", keys, err)
			}
			if err := early.Undeclare(); err != nil {
				t.Fatal(err)
			}
			expectLive(t, ev, "live/early", KindDelete)
			if err := early.Undeclare(); !errors.Is(err, ErrUndeclared) {
				t.Fatalf("second Undeclare: %v", err)
			}
			_ = late
			if holder != watcher {
				// The token disappears when its session closes.
				holder.Close()
				expectLive(t, ev, "live/late", KindDelete)
			}
		})
	}
}

func TestLivelinessLinkDies(t *testing.T) {
	holder, watcher := pair(t, ModePeer)
	if _, err := holder.DeclareToken("ld/x"); err != nil {
		t.Fatal(err)
	}
	ev := liveEvents(t, watcher, "ld/x", WithHistory())
	expectLive(t, ev, "ld/x", KindPut)
	watcher.mu.Lock()
	for l := range watcher.links {
		l.close(wire.CloseGeneric, errors.New("test: cut"))
	}
	watcher.mu.Unlock()
	expectLive(t, ev, "ld/x", KindDelete)
	// The dialler links again and the token comes back.
	expectLive(t, ev, "ld/x", KindPut)
}

func TestSubscribeLiveliness(t *testing.T) {
	s := openT(t, Config{})
	ctx := testCtx(t)
	tok, err := s.DeclareToken("sl/a")
	if err != nil {
		t.Fatal(err)
	}
	sub, err := SubscribeLiveliness(s, "sl/*")
	if err != nil {
		t.Fatal(err)
	}
	if v, err := sub.WaitForValue(ctx); err != nil || v.KeyExpr != "sl/a" || v.Kind != KindPut {
		t.Fatalf("history: %+v, %v", v, err)
	}
	next := sub.ArmNext(ctx)
	_ = tok.Undeclare()
	if v, err := next.Wait(ctx); err != nil || v.Kind != KindDelete {
		t.Fatalf("drop: %+v, %v", v, err)
	}
	s.Close()
	<-sub.Done()
	if !errors.Is(sub.Err(), ErrSessionClosed) {
		t.Fatalf("sub ended with %v", sub.Err())
	}
	if _, err := s.DeclareToken("x"); !errors.Is(err, ErrSessionClosed) {
		t.Fatalf("DeclareToken on closed session: %v", err)
	}
}
