package zenoh

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// testLogger writes session logs to the test log when -v is given.
func testLogger(t testing.TB) *slog.Logger {
	if !testing.Verbose() {
		return nil
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func openT(t testing.TB, cfg Config) *Session {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = testLogger(t)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := Open(ctx, cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// pair opens a listening peer and a second session connected to it.
func pair(t testing.TB, mode Mode) (listener, dialer *Session) {
	a := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}})
	b := openT(t, Config{Mode: mode, Connect: a.ListenAddrs()})
	return a, b
}

// collector gathers samples on a channel.
func collector(t testing.TB, s *Session, key string) <-chan Sample {
	ch := make(chan Sample, 1024)
	sub, err := s.DeclareSubscriber(key, func(smp Sample) { ch <- smp })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sub.Undeclare() })
	return ch
}

func recv(t testing.TB, ch <-chan Sample) Sample {
	t.Helper()
	select {
	case s := <-ch:
		return s
	case <-time.After(10 * time.Second):
		t.Fatal("no sample within 10 s")
	}
	return Sample{}
}

func publisher(t testing.TB, s *Session, key string, opts ...PutOption) *Publisher {
	t.Helper()
	p, err := s.DeclarePublisher(key, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.WaitMatching(testCtx(t)); err != nil {
		t.Fatalf("WaitMatching: %v", err)
	}
	return p
}

func TestPeerToPeerPubSub(t *testing.T) {
	for _, mode := range []Mode{ModePeer, ModeClient} {
		t.Run(mode.String(), func(t *testing.T) {
			a, b := pair(t, mode)
			ctx := testCtx(t)
			// b subscribes, a publishes.
			got := collector(t, b, "demo/**")
			p := publisher(t, a, "demo/x")
			if err := p.Put(ctx, []byte("hello"), WithEncoding(EncodingTextPlain), WithAttachment([]byte("att"))); err != nil {
				t.Fatal(err)
			}
			s := recv(t, got)
			if s.KeyExpr != "demo/x" || string(s.Payload) != "hello" || s.Kind != KindPut ||
				s.Encoding != EncodingTextPlain || string(s.Attachment) != "att" {
				t.Fatalf("got %+v", s)
			}
			if err := p.Delete(ctx); err != nil {
				t.Fatal(err)
			}
			if s := recv(t, got); s.Kind != KindDelete || s.KeyExpr != "demo/x" {
				t.Fatalf("got %+v", s)
			}
			// a subscribes, b publishes.
			got2 := collector(t, a, "back/*/y")
			p2 := publisher(t, b, "back/k/y")
			if err := p2.Put(ctx, []byte("back")); err != nil {
				t.Fatal(err)
			}
			if s := recv(t, got2); string(s.Payload) != "back" {
				t.Fatalf("got %+v", s)
			}
		})
	}
}

func TestLargePayloadFragments(t *testing.T) {
	a := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}, BatchSize: 2048})
	b := openT(t, Config{Connect: a.ListenAddrs()})
	got := collector(t, b, "big")
	p := publisher(t, a, "big")
	ctx := testCtx(t)
	for _, n := range []int{0, 100, 2000, 2048, 5000, 1 << 20} {
		payload := bytes.Repeat([]byte{byte(n)}, n)
		for i := range payload {
			payload[i] = byte(i * 7)
		}
		if err := p.Put(ctx, payload); err != nil {
			t.Fatal(err)
		}
		s := recv(t, got)
		if !bytes.Equal(s.Payload, payload) {
			t.Fatalf("size %d: got %d bytes, different", n, len(s.Payload))
		}
	}
}

func TestLocalDelivery(t *testing.T) {
	s := openT(t, Config{})
	got := collector(t, s, "a/**")
	p := publisher(t, s, "a/b/c")
	buf := []byte("v1")
	if err := p.Put(testCtx(t), buf); err != nil {
		t.Fatal(err)
	}
	buf[0] = 'X' // the sample must not alias the publisher's buffer
	if smp := recv(t, got); string(smp.Payload) != "v1" || smp.KeyExpr != "a/b/c" {
		t.Fatalf("got %+v", smp)
	}
	if err := s.Put(testCtx(t), "other", []byte("no")); err != nil {
		t.Fatal(err)
	}
	select {
	case smp := <-got:
		t.Fatalf("non-matching key delivered: %+v", smp)
	default:
	}
}

func TestUndeclareStopsRemoteTraffic(t *testing.T) {
	a, b := pair(t, ModePeer)
	sub, err := b.DeclareSubscriber("k", func(Sample) {})
	if err != nil {
		t.Fatal(err)
	}
	p := publisher(t, a, "k")
	if err := sub.Undeclare(); err != nil {
		t.Fatal(err)
	}
	if err := sub.Undeclare(); !errors.Is(err, ErrUndeclared) {
		t.Fatalf("second Undeclare: %v", err)
	}
	// a learns of the undeclaration: no matching subscribers remain.
	ctx := testCtx(t)
	for {
		ch := a.waitChange() // before looking: a change meanwhile closes it
		if !p.HasMatchingSubscribers() {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatal("publisher still matching after Undeclare")
		}
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := testCtx(t)
	for _, ep := range []string{"ws/1.2.3.4:5", "tcp/", "tcp/localhost", "tcp/:99999", "127.0.0.1:7447", "tcp/1.2.3.4:7447#iface=lo"} {
		if _, err := Open(ctx, Config{Listen: []string{ep}}); !errors.Is(err, ErrInvalidEndpoint) {
			t.Errorf("Listen %q: got %v, want ErrInvalidEndpoint", ep, err)
		}
	}
	if _, err := Open(ctx, Config{Mode: ModeClient}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("client without Connect: %v", err)
	}
	if _, err := Open(ctx, Config{Lease: time.Second, KeepAlive: 2 * time.Second}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("KeepAlive >= Lease: %v", err)
	}
	// Nothing listens on a port we just released.
	s := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}})
	addr := s.ListenAddrs()
	s.Close()
	_, err := Open(ctx, Config{Mode: ModeClient, Connect: addr})
	if !errors.Is(err, ErrNoRouter) {
		t.Errorf("client to closed port: %v", err)
	}
}

func TestSessionCloseIdempotent(t *testing.T) {
	a, b := pair(t, ModePeer)
	_ = collector(t, a, "x")
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Put(testCtx(t), "x", nil); !errors.Is(err, ErrSessionClosed) {
		t.Fatalf("Put after Close: %v", err)
	}
	if _, err := b.DeclareSubscriber("x", func(Sample) {}); !errors.Is(err, ErrSessionClosed) {
		t.Fatalf("DeclareSubscriber after Close: %v", err)
	}
}

// Samples queued before Close are still sent.
func TestCloseFlushesQueuedSamples(t *testing.T) {
	a := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}})
	got := collector(t, a, "flush")
	b, err := Open(testCtx(t), Config{Connect: a.ListenAddrs()})
	if err != nil {
		t.Fatal(err)
	}
	p := publisher(t, b, "flush")
	for i := range 100 {
		if err := p.Put(testCtx(t), []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	b.Close()
	for i := range 100 {
		if s := recv(t, got); s.Payload[0] != byte(i) {
			t.Fatalf("sample %d has payload %d", i, s.Payload[0])
		}
	}
}
