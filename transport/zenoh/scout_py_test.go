package zenoh

import (
	"bytes"
	"context"
	"encoding/hex"
	"slices"
	"strings"
	"testing"
	"time"
)

// scoutEvent is one JSON line printed by testdata/zenoh_scout.py.
type scoutEvent struct {
	Ev       string   `json:"ev"`
	ZID      string   `json:"zid"`
	WhatAmI  string   `json:"whatami"`
	Locators []string `json:"locators"`
	Key      string   `json:"key"`
	Payload  string   `json:"payload"`
}

// runScoutPy starts testdata/zenoh_scout.py with args and returns its
// events. The process is stopped (stdin closed, then killed) at cleanup.
func runScoutPy(t *testing.T, args ...string) <-chan scoutEvent {
	t.Helper()
	events := make(chan scoutEvent, 1024)
	d := startDriver(t, "zenoh_scout.py", args, func(ev scoutEvent) {
		select {
		case events <- ev:
		default: // nobody reads any more
		}
	})
	go func() { <-d.exited; close(events) }()
	t.Cleanup(func() {
		_, _ = d.stop("")
		if t.Failed() {
			t.Logf("zenoh_scout.py %s", d.output())
		}
	})
	return events
}

// nextEvent returns the next event of kind ev, failing after 15 s.
func nextEvent(t *testing.T, events <-chan scoutEvent, ev string, match func(scoutEvent) bool) scoutEvent {
	t.Helper()
	timeout := time.After(15 * time.Second)
	for {
		select {
		case e, ok := <-events:
			if !ok {
				t.Fatalf("zenoh_scout.py ended before a %q event", ev)
			}
			if e.Ev == ev && (match == nil || match(e)) {
				return e
			}
		case <-timeout:
			t.Fatalf("no %q event from zenoh_scout.py within 15 s", ev)
		}
	}
}

// sameZID compares Zenoh IDs printed with or without leading zeros.
func sameZID(a, b string) bool {
	return strings.TrimLeft(a, "0") == strings.TrimLeft(b, "0")
}

// TestScoutPyFindsGoPeer: zenoh.scout in Python sees the Go peer's HELLO.
func TestScoutPyFindsGoPeer(t *testing.T) {
	cfg, here := loopbackScouting(t)
	if !here {
		return
	}
	a := openT(t, Config{Scouting: cfg})
	events := runScoutPy(t, "scout", "--address", cfg.Address, "--interface", "lo", "--what", "peer|router", "--seconds", "15")
	h := nextEvent(t, events, "hello", func(e scoutEvent) bool { return sameZID(e.ZID, a.ZID()) })
	if h.WhatAmI != "peer" || !slices.Equal(h.Locators, a.ListenAddrs()) {
		t.Fatalf("Python saw %+v, want whatami peer and locators %v", h, a.ListenAddrs())
	}
}

// TestScoutGoFindsPyPeer: Go's Scout sees a Python peer.
func TestScoutGoFindsPyPeer(t *testing.T) {
	cfg, here := loopbackScouting(t)
	if !here {
		return
	}
	events := runScoutPy(t, "peer", "--address", cfg.Address, "--interface", "lo", "--listen", "tcp/127.0.0.1:0")
	// Capture the Python peer's SCOUT: its bytes must be the layout of
	// the golden tests in internal/wire (no ZID, what = router|peer, as
	// autoconnect is set to).
	sp, err := cfg.resolve()
	if err != nil {
		t.Fatal(err)
	}
	g, err := sp.listenGroup(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	ready := nextEvent(t, events, "ready", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	_ = g.SetReadDeadline(time.Now().Add(15 * time.Second))
	buf := make([]byte, 1500)
	n, _, err := g.ReadFromUDP(buf)
	if err != nil {
		t.Fatalf("no SCOUT from the Python peer: %v", err)
	}
	if want := []byte{0x01, 0x09, 0x03}; !bytes.Equal(buf[:n], want) {
		t.Fatalf("Python SCOUT % x, want % x", buf[:n], want)
	}
	for h, err := range Scout(ctx, cfg, RolePeer) {
		if err != nil {
			t.Fatal(err)
		}
		if !sameZID(h.ZID, ready.ZID) {
			continue
		}
		if h.Role != RolePeer || len(h.Locators) != 1 || !strings.HasPrefix(h.Locators[0], "tcp/127.0.0.1:") {
			t.Fatalf("HELLO of the Python peer: %+v", h)
		}
		return
	}
	t.Fatalf("the Python peer %s was not found within 15 s", ready.ZID)
}

// TestScoutPyPeerExchange: a Go peer and a Python peer, neither with a
// connect endpoint, link by scouting and exchange samples both ways.
func TestScoutPyPeerExchange(t *testing.T) {
	cfg, here := loopbackScouting(t)
	if !here {
		return
	}
	a := openT(t, Config{Scouting: cfg})
	got := collector(t, a, "scout/go/**")
	events := runScoutPy(t, "peer", "--address", cfg.Address, "--interface", "lo", "--listen", "tcp/127.0.0.1:0",
		"--sub", "scout/py/**", "--put", "scout/go/x")
	ready := nextEvent(t, events, "ready", nil)
	ctx := testCtx(t)
	if err := a.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	// Python to Go.
	if s := recv(t, got); s.KeyExpr != "scout/go/x" || !strings.HasPrefix(string(s.Payload), "py-") {
		t.Fatalf("got %+v", s)
	}
	// Go to Python, once the Python subscriber is known.
	p := publisher(t, a, "scout/py/x")
	if err := p.Put(ctx, []byte("from go")); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, events, "sample", func(e scoutEvent) bool { return e.Key == "scout/py/x" && e.Payload == "from go" })
	a.mu.Lock()
	var zids []string
	for l := range a.links {
		z := slices.Clone(l.remoteZID)
		slices.Reverse(z)
		zids = append(zids, hex.EncodeToString(z))
	}
	a.mu.Unlock()
	if len(zids) != 1 || !sameZID(zids[0], ready.ZID) {
		t.Fatalf("Go peer links %v, want one to %s", zids, ready.ZID)
	}
}

// TestScoutPyClientFindsGoPeer: a Python client without connect endpoints
// scouts, links to the Go peer and exchanges samples with it.
func TestScoutPyClientFindsGoPeer(t *testing.T) {
	cfg, here := loopbackScouting(t)
	if !here {
		return
	}
	a := openT(t, Config{Scouting: cfg})
	got := collector(t, a, "scout/go/**")
	events := runScoutPy(t, "peer", "--mode", "client", "--address", cfg.Address, "--interface", "lo",
		"--sub", "scout/py/**", "--put", "scout/go/x")
	nextEvent(t, events, "ready", nil)
	if s := recv(t, got); !strings.HasPrefix(string(s.Payload), "py-") {
		t.Fatalf("got %+v", s)
	}
	p := publisher(t, a, "scout/py/x")
	if err := p.Put(testCtx(t), []byte("to client")); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, events, "sample", func(e scoutEvent) bool { return e.Payload == "to client" })
}

// TestScoutGoClientFindsPyPeer: a Go client without Connect endpoints
// scouts, links to the Python peer and exchanges samples with it.
func TestScoutGoClientFindsPyPeer(t *testing.T) {
	cfg, here := loopbackScouting(t)
	if !here {
		return
	}
	events := runScoutPy(t, "peer", "--address", cfg.Address, "--interface", "lo", "--listen", "tcp/127.0.0.1:0",
		"--sub", "scout/py/**", "--put", "scout/go/x")
	nextEvent(t, events, "ready", nil)
	c := openT(t, Config{Mode: ModeClient, Scouting: cfg})
	got := collector(t, c, "scout/go/**")
	if s := recv(t, got); !strings.HasPrefix(string(s.Payload), "py-") {
		t.Fatalf("got %+v", s)
	}
	p := publisher(t, c, "scout/py/x")
	if err := p.Put(testCtx(t), []byte("from go client")); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, events, "sample", func(e scoutEvent) bool { return e.Payload == "from go client" })
}
