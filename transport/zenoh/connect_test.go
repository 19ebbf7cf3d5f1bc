package zenoh_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/afor-go/afor/transport/zenoh"
)

// unreachable are Connect endpoints that cannot be linked: a name that
// does not resolve, and a port nobody listens on.
var unreachable = []string{"tcp/nosuchhost.invalid:7447", "tcp/127.0.0.1:1"}

// syncBuffer is a bytes.Buffer safe for concurrent writes (a log sink).
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// A peer whose Connect endpoints are unreachable still opens, but says so:
// at warning level on the given logger.
func TestUnreachableConnectIsLogged(t *testing.T) {
	var logs syncBuffer
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	s, err := zenoh.Open(ctx, zenoh.Config{Connect: unreachable, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	out := logs.String()
	for _, ep := range unreachable {
		if !strings.Contains(out, "level=WARN") || !strings.Contains(out, ep) {
			t.Errorf("no warning naming %s in the log:\n%s", ep, out)
		}
	}
	if links := s.Links(); len(links) != 0 {
		t.Errorf("Links = %v, want none", links)
	}
}

// Without a logger, the warning goes to slog.Default.
func TestUnreachableConnectWarnsOnDefaultLogger(t *testing.T) {
	var logs syncBuffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	defer slog.SetDefault(old)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	s, err := zenoh.Open(ctx, zenoh.Config{Connect: unreachable[1:]})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	s.Close()
	if out := logs.String(); !strings.Contains(out, "level=WARN") || !strings.Contains(out, unreachable[1]) {
		t.Fatalf("no warning on slog.Default:\n%s", out)
	}
}

// ConnectExitOnFailure makes Open fail, naming every endpoint.
func TestConnectExitOnFailure(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	s, err := zenoh.Open(ctx, zenoh.Config{
		Connect:              unreachable,
		ConnectExitOnFailure: true,
		ConnectTimeout:       50 * time.Millisecond,
		RetryInterval:        10 * time.Millisecond,
		Logger:               slog.New(slog.DiscardHandler),
	})
	if err == nil {
		s.Close()
		t.Fatal("Open succeeded with unreachable endpoints and ConnectExitOnFailure")
	}
	if !errors.Is(err, zenoh.ErrConnectFailed) {
		t.Fatalf("err = %v, want ErrConnectFailed", err)
	}
	for _, ep := range unreachable {
		if !strings.Contains(err.Error(), ep) {
			t.Errorf("error %q does not name %s", err, ep)
		}
	}
	if strings.Count(err.Error(), "zenoh:") != 1 {
		t.Errorf("error %q: want one zenoh: prefix", err)
	}
}

// Links lists a link once it is up, with what it knows of the other end.
func TestLinksListsDialledLink(t *testing.T) {
	listener := openSession(t, zenoh.Config{Listen: []string{"tcp/127.0.0.1:0"}})
	s := openSession(t, zenoh.Config{
		Connect:              listener.ListenAddrs(),
		ConnectExitOnFailure: true,
		ConnectTimeout:       5 * time.Second,
	})
	links := s.Links()
	if len(links) != 1 || links[0].ZID != listener.ZID() || links[0].WhatAmI != "peer" || !links[0].Dialed || links[0].Remote != listener.ListenAddrs()[0] {
		t.Fatalf("Links = %+v, want one dialled link to %s at %s", links, listener.ZID(), listener.ListenAddrs()[0])
	}
}

func TestNegativeConnectTimeout(t *testing.T) {
	_, err := zenoh.Open(t.Context(), zenoh.Config{ConnectTimeout: -1})
	if !errors.Is(err, zenoh.ErrInvalidConfig) {
		t.Fatalf("err = %v, want ErrInvalidConfig", err)
	}
}
