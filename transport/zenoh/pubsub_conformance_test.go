package zenoh_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/afortest"
	"github.com/afor-go/afor/transport/zenoh"
)

// openSession opens a session closed at the end of the test.
func openSession(t *testing.T, cfg zenoh.Config) *zenoh.Session {
	t.Helper()
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	s, err := zenoh.Open(ctx, cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// conformancePair returns the afortest factory for a publisher on pubS and a
// subscriber on subS (possibly the same session).
func conformancePair(sessions func(t *testing.T) (pubS, subS *zenoh.Session)) func(t *testing.T) (func(context.Context, string) error, *afor.Sub[string]) {
	return func(t *testing.T) (func(context.Context, string) error, *afor.Sub[string]) {
		pubS, subS := sessions(t)
		sub, err := zenoh.SubscribeCodec(subS, "conformance/**", afor.StringCodec{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(sub.Close)
		pub, err := pubS.DeclarePublisher("conformance/topic")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		if err := pub.WaitMatching(ctx); err != nil {
			t.Fatalf("WaitMatching: %v", err)
		}
		return func(ctx context.Context, msg string) error { return pub.Put(ctx, []byte(msg)) }, sub
	}
}

func TestPubSubConformanceOneSession(t *testing.T) {
	afortest.RunPubSub(t, afortest.PubSub{New: conformancePair(func(t *testing.T) (*zenoh.Session, *zenoh.Session) {
		s := openSession(t, zenoh.Config{})
		return s, s
	})})
}

func TestPubSubConformancePeerToPeer(t *testing.T) {
	afortest.RunPubSub(t, afortest.PubSub{New: conformancePair(func(t *testing.T) (*zenoh.Session, *zenoh.Session) {
		listener := openSession(t, zenoh.Config{Listen: []string{"tcp/127.0.0.1:0"}})
		dialer := openSession(t, zenoh.Config{Connect: listener.ListenAddrs()})
		return dialer, listener
	})})
}

func TestPubSubConformanceClientToPeer(t *testing.T) {
	afortest.RunPubSub(t, afortest.PubSub{New: conformancePair(func(t *testing.T) (*zenoh.Session, *zenoh.Session) {
		peer := openSession(t, zenoh.Config{Listen: []string{"tcp/127.0.0.1:0"}})
		client := openSession(t, zenoh.Config{Mode: zenoh.ModeClient, Connect: peer.ListenAddrs()})
		return client, peer
	})})
}

func TestPubSubConformancePeerToClient(t *testing.T) {
	afortest.RunPubSub(t, afortest.PubSub{New: conformancePair(func(t *testing.T) (*zenoh.Session, *zenoh.Session) {
		peer := openSession(t, zenoh.Config{Listen: []string{"tcp/127.0.0.1:0"}})
		client := openSession(t, zenoh.Config{Mode: zenoh.ModeClient, Connect: peer.ListenAddrs()})
		return peer, client
	})})
}
