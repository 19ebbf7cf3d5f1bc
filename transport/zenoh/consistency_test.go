package zenoh_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/keyexpr"
	"github.com/afor-go/afor/transport/zenoh"
)

// Non-canonical key expressions are rejected, as in transport/mem and in the
// reference implementations, with one "zenoh:" prefix.
func TestNonCanonicalKeyExprRejected(t *testing.T) {
	s := openSession(t, zenoh.Config{})
	for name, call := range map[string]func() error{
		"DeclarePublisher": func() error { _, err := s.DeclarePublisher("a/**/**"); return err },
		"SubscribeCodec":   func() error { _, err := zenoh.SubscribeCodec(s, "a/**/**", afor.StringCodec{}); return err },
		"NewPublisher":     func() error { _, err := zenoh.NewPublisher(s, "a/**/**", afor.StringCodec{}); return err },
		"DeclareToken":     func() error { _, err := s.DeclareToken("a/**/**"); return err },
	} {
		err := call()
		if !errors.Is(err, zenoh.ErrInvalidKeyExpr) || !errors.Is(err, keyexpr.ErrInvalid) {
			t.Errorf("%s(a/**/**): %v, want ErrInvalidKeyExpr and keyexpr.ErrInvalid", name, err)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, `zenoh: invalid key expression "a/**/**"`) || strings.Count(msg, "invalid key expression") != 1 {
			t.Errorf("%s: message %q: want one prefix", name, msg)
		}
	}
}

// A put with a ctx that already ended sends nothing and reports ctx's error.
func TestPutWithCancelledCtx(t *testing.T) {
	s := openSession(t, zenoh.Config{})
	sub, err := zenoh.SubscribeCodec(s, "k", afor.StringCodec{})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	pub, err := zenoh.NewPublisher(s, "k", afor.StringCodec{})
	if err != nil {
		t.Fatal(err)
	}
	dead, cancel := context.WithCancel(t.Context())
	cancel()
	if err := pub.Put(dead, "lost"); !errors.Is(err, context.Canceled) {
		t.Fatalf("typed Put with a cancelled ctx: %v", err)
	}
	if err := pub.Publisher().Put(dead, []byte("lost")); !errors.Is(err, context.Canceled) {
		t.Fatalf("Put with a cancelled ctx: %v", err)
	}
	if err := s.Put(dead, "k", []byte("lost")); !errors.Is(err, context.Canceled) {
		t.Fatalf("Session.Put with a cancelled ctx: %v", err)
	}
	if v, ok := sub.Value(); ok {
		t.Fatalf("a put with a cancelled ctx delivered %q", v)
	}
}

func TestTypedPublisher(t *testing.T) {
	type pose struct{ X, Y float64 }
	listener := openSession(t, zenoh.Config{Listen: []string{"tcp/127.0.0.1:0"}})
	dialer := openSession(t, zenoh.Config{Connect: listener.ListenAddrs()})
	poses, err := zenoh.SubscribeCodec(listener, "robot/*/pose", afor.JSONCodec[pose]{})
	if err != nil {
		t.Fatal(err)
	}
	defer poses.Close()
	pub, err := zenoh.NewPublisher(dialer, "robot/r1/pose", afor.JSONCodec[pose]{}, zenoh.WithEncoding(zenoh.EncodingJSON))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := pub.WaitMatching(ctx); err != nil {
		t.Fatal(err)
	}
	w := poses.ArmNext(ctx)
	if err := pub.Put(ctx, pose{X: 1, Y: 2}); err != nil {
		t.Fatal(err)
	}
	got, err := w.Wait(ctx)
	if err != nil || got != (pose{X: 1, Y: 2}) {
		t.Fatalf("received %v, %v", got, err)
	}
	if pub.KeyExpr() != "robot/r1/pose" {
		t.Fatalf("KeyExpr = %q", pub.KeyExpr())
	}
	if err := pub.Undeclare(); err != nil {
		t.Fatal(err)
	}
	if err := pub.Put(ctx, pose{}); !errors.Is(err, zenoh.ErrUndeclared) {
		t.Fatalf("Put after Undeclare: %v", err)
	}
}

// Every blocking call with a ctx that already ended returns ctx's error,
// even when it could have succeeded at once.
func TestCancelledCtxEverywhere(t *testing.T) {
	listener := openSession(t, zenoh.Config{Listen: []string{"tcp/127.0.0.1:0"}})
	s := openSession(t, zenoh.Config{Connect: listener.ListenAddrs()})
	sub, err := zenoh.SubscribeCodec(s, "k", afor.StringCodec{})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	srv, err := zenoh.NewServer(s, "svc", afor.StringCodec{}, afor.StringCodec{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if _, err := s.DeclareToken("tok"); err != nil {
		t.Fatal(err)
	}
	pub, err := s.DeclarePublisher("k")
	if err != nil {
		t.Fatal(err)
	}
	cli, err := zenoh.NewClient(s, "svc", afor.StringCodec{}, afor.StringCodec{})
	if err != nil {
		t.Fatal(err)
	}
	dead, cancel := context.WithCancel(t.Context())
	cancel()
	for name, call := range map[string]func() error{
		"WaitMatching":  func() error { return pub.WaitMatching(dead) }, // a local subscriber matches
		"WaitConnected": func() error { return s.WaitConnected(dead) },  // linked already
		"Get":           func() error { _, err := s.Get(dead, "svc"); return err },
		"LivelinessGet": func() error { _, err := s.LivelinessGet(dead, "tok"); return err },
		"WaitForServer": func() error { return cli.WaitForServer(dead) },
		"Call":          func() error { _, err := cli.Call(dead, "x"); return err },
	} {
		if err := call(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled ctx: %v, want context.Canceled", name, err)
		}
	}
}
