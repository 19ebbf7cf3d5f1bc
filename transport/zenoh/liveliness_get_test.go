package zenoh

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// TestLivelinessGetRightAfterLink: a Go peer lists the tokens of a peer it
// has just linked to in its first LivelinessGet, and reaches its
// queryable with its first Get.
func TestLivelinessGetRightAfterLink(t *testing.T) {
	holder := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}})
	for _, k := range []string{"rl/a", "rl/b"} {
		if _, err := holder.DeclareToken(k); err != nil {
			t.Fatal(err)
		}
	}
	declareQ(t, holder, "rl/q", func(q *Query) { _ = q.ReplyAndFinish(context.Background(), q.KeyExpr, []byte("v")) })
	for i := range 10 {
		ctx := testCtx(t)
		s := openT(t, Config{Connect: holder.ListenAddrs()})
		keys, err := s.LivelinessGet(ctx, "rl/*")
		if err != nil || !slices.Equal(keys, []string{"rl/a", "rl/b"}) {
			t.Fatalf("run %d: LivelinessGet: %v, %v", i, keys, err)
		}
		s.Close()
		s = openT(t, Config{Connect: holder.ListenAddrs()})
		if got := collect(t, s, ctx, "rl/q"); len(got) != 1 || string(got[0].Sample.Payload) != "v" {
			t.Fatalf("run %d: Get: %+v", i, got)
		}
		s.Close()
	}
}

// netEvent is a network message a raw peer received, in short.
type netEvent struct {
	interest *wire.Interest // with WireExpr.Suffix copied
	request  uint32         // a REQUEST's id, when interest is nil
}

// readNet decodes the INTERESTs and REQUESTs that h receives and sends
// them to the returned channel, until the connection ends.
func readNet(h *cpuPeer) <-chan netEvent {
	ch := make(chan netEvent, 64)
	go func() {
		defer close(ch)
		d := wire.NewDecoder(wire.DefaultLimits())
		buf := make([]byte, 65535)
		for {
			b, err := readBatch(h.br, buf)
			if err != nil {
				return
			}
			d.Reset(b)
			for {
				m, err := d.Next()
				if err != nil {
					break
				}
				if _, ok := m.(*wire.Frame); !ok {
					continue
				}
				for {
					nm, err := d.NextNetwork()
					if err != nil {
						break
					}
					switch m := nm.(type) {
					case *wire.Interest:
						c := *m
						c.WireExpr.Suffix = slices.Clone(m.WireExpr.Suffix)
						ch <- netEvent{interest: &c}
					case *wire.Request:
						ch <- netEvent{request: m.ID}
					}
				}
			}
		}
	}()
	return ch
}

// nextInterest returns the next INTEREST h received.
func nextInterest(t *testing.T, ch <-chan netEvent) *wire.Interest {
	t.Helper()
	for ev := range ch {
		if ev.interest != nil {
			return ev.interest
		}
	}
	t.Fatal("the link ended before an INTEREST")
	return nil
}

// rawPeerLinked links a raw peer, which sends no declarations, to a
// listening session.
func rawPeerLinked(t *testing.T) (*Session, *cpuPeer, <-chan netEvent) {
	s := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}})
	h := dialCPUPeer(t, s)
	_ = h.conn.SetReadDeadline(time.Time{})
	events := readNet(h)
	if err := s.WaitConnected(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	return s, h, events
}

type getResult struct {
	keys []string
	err  error
}

func goLivelinessGet(ctx context.Context, s *Session, key string) <-chan getResult {
	ch := make(chan getResult, 1)
	go func() {
		keys, err := s.LivelinessGet(ctx, key)
		ch <- getResult{keys, err}
	}()
	return ch
}

// TestLivelinessGetAsksNewPeer: a peer whose initial declarations have not
// all come is asked for its tokens on the key; its answer makes the
// result, but no declaration: no liveliness event, nothing in the table,
// and an answer that comes after the get is dropped.
func TestLivelinessGetAsksNewPeer(t *testing.T) {
	s, h, events := rawPeerLinked(t)
	ctx := testCtx(t)
	live := liveEvents(t, s, "**")
	res := goLivelinessGet(ctx, s, "raw/**")
	in := nextInterest(t, events)
	if in.Mode != wire.InterestCurrent || in.Options&wire.InterestTokens == 0 ||
		in.Options&wire.InterestRestricted == 0 || string(in.WireExpr.Suffix) != "raw/**" {
		t.Fatalf("interest %+v", in)
	}
	if in.ID == 0 || in.ID == subsInterestID {
		t.Fatalf("interest id %d is taken", in.ID)
	}
	id := in.ID
	if err := h.sendNet(
		appendDeclareToken(nil, &id, 0, "raw/a"),
		appendDeclareToken(nil, &id, 0, "raw/b"),
		appendDeclareToken(nil, &id, 0, "other/c"), // not on the key
		appendDeclareToken(nil, &id, 0, "raw/a"),
		appendDeclareFinal(nil, id),
	); err != nil {
		t.Fatal(err)
	}
	r := <-res
	if r.err != nil || !slices.Equal(r.keys, []string{"raw/a", "raw/b"}) {
		t.Fatalf("LivelinessGet: %v, %v", r.keys, r.err)
	}
	s.mu.Lock()
	n := len(s.tokens)
	s.mu.Unlock()
	select {
	case ev := <-live:
		t.Fatalf("the answer raised a liveliness event: %+v", ev)
	default:
	}
	if n != 0 {
		t.Fatalf("the answer left %d tokens in the table", n)
	}

	// A late answer is dropped; the end of the initial declarations makes
	// the peer known, so the next get asks nothing.
	if err := h.sendNet(
		appendDeclareToken(nil, &id, 0, "raw/late"),
		appendDeclareFinal(nil, 0),
		appendDeclareToken(nil, nil, 7, "raw/real"),
	); err != nil {
		t.Fatal(err)
	}
	expectLive(t, live, "raw/real", KindPut)
	if keys, err := s.LivelinessGet(ctx, "raw/**"); err != nil || !slices.Equal(keys, []string{"raw/real"}) {
		t.Fatalf("LivelinessGet after D_FINAL 0: %v, %v", keys, err)
	}
	select {
	case ev := <-events:
		t.Fatalf("a known peer was asked again: %+v", ev)
	default:
	}
}

// TestLivelinessGetPeerGoesAway: a get that waits for a peer's answer
// ends with ctx, and answers when the peer's link goes.
func TestLivelinessGetPeerGoesAway(t *testing.T) {
	s, h, events := rawPeerLinked(t)
	if _, err := s.DeclareToken("gone/local"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(testCtx(t))
	res := goLivelinessGet(ctx, s, "gone/**")
	nextInterest(t, events)
	cancel()
	if r := <-res; !errors.Is(r.err, context.Canceled) || r.keys != nil {
		t.Fatalf("LivelinessGet after cancel: %v, %v", r.keys, r.err)
	}
	res = goLivelinessGet(testCtx(t), s, "gone/**")
	nextInterest(t, events)
	h.conn.Close()
	if r := <-res; r.err != nil || !slices.Equal(r.keys, []string{"gone/local"}) {
		t.Fatalf("LivelinessGet after the link went: %v, %v", r.keys, r.err)
	}
}

// TestGetReachesNewPeer: a query goes to a peer whose initial declarations
// have not all come, whatever it declared; once they have, only to the
// peers that declared a matching queryable.
func TestGetReachesNewPeer(t *testing.T) {
	s, h, events := rawPeerLinked(t)
	ctx := testCtx(t)
	replies, err := s.Get(ctx, "nq/x")
	if err != nil {
		t.Fatal(err)
	}
	rid, ok := uint32(0), false
	for ev := range events {
		if ev.interest == nil {
			rid, ok = ev.request, true
			break
		}
	}
	if !ok {
		t.Fatal("the link ended before a REQUEST")
	}
	fin, err := responseFinal(rid).AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.sendNet(fin, appendDeclareFinal(nil, 0)); err != nil {
		t.Fatal(err)
	}
	for r := range replies {
		t.Fatalf("reply %+v", r)
	}
	// D_FINAL 0 may be read after the query ended: wait for it.
	waitKnown(t, s)
	if got := collect(t, s, ctx, "nq/x"); len(got) != 0 {
		t.Fatalf("replies %+v", got)
	}
	select {
	case ev := <-events:
		t.Fatalf("a known peer without queryables got %+v", ev)
	default:
	}
}

// waitKnown waits until every link of s has its declarations known.
func waitKnown(t *testing.T, s *Session) {
	t.Helper()
	ctx := testCtx(t)
	for {
		ch := s.waitChange()
		s.mu.Lock()
		pending := false
		for l := range s.links {
			pending = pending || s.declsPendingLocked(l)
		}
		s.mu.Unlock()
		if !pending {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatal("declarations still pending")
		}
	}
}
