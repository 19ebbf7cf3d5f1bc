package zenoh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
	"go.uber.org/goleak"
)

// scoutAddr returns the scouting group on a UDP port free on this host, so
// that tests never meet other Zenoh nodes (which scout on 7446) or each
// other.
func scoutAddr(t testing.TB) string {
	t.Helper()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	port := c.LocalAddr().(*net.UDPAddr).Port
	_ = c.Close()
	return net.JoinHostPort("224.0.0.224", strconv.Itoa(port))
}

// Environment variables of the network namespace fallback.
const (
	// netnsForceEnv, set to 1, runs the multicast tests in a private
	// network namespace even where the host's loopback interface works.
	netnsForceEnv = "AFOR_SCOUT_NETNS"
	// netnsChildEnv is set to 1 in the test process run inside the
	// namespace.
	netnsChildEnv = "AFOR_SCOUT_NETNS_CHILD"
)

// loopbackScouting returns a scouting configuration on the loopback
// interface with a private group port and a short period, and true when
// the test is to run here.
//
// Linux delivers multicast on lo once the sending socket selects it with
// IP_MULTICAST_IF, even though lo lacks the MULTICAST flag, so the tests
// normally run on the host, changing no interface. Where that fails (or
// when AFOR_SCOUT_NETNS=1), the test runs again in this test binary inside
// a private user and network namespace (unshare -rn, no root needed) whose
// lo is brought up with multicast on; loopbackScouting then returns false
// and the caller returns at once: the test fails with the child's output
// if the child fails. Without multicast or namespaces, the test is skipped
// with the reason, or fails under CI.
func loopbackScouting(t *testing.T) (ScoutingConfig, bool) {
	t.Helper()
	cfg := ScoutingConfig{Multicast: true, Address: scoutAddr(t), Interface: "lo",
		Period: 50 * time.Millisecond, Timeout: 5 * time.Second}
	child := os.Getenv(netnsChildEnv) == "1"
	var probeErr error
	if os.Getenv(netnsForceEnv) != "1" || child {
		if probeErr = probeMulticast(cfg); probeErr == nil {
			return cfg, true
		}
		if child {
			t.Fatalf("multicast on lo fails even in a private network namespace: %v", probeErr)
		}
	}
	if err := runInNetns(t); err != nil {
		msg := fmt.Sprintf("multicast on the loopback interface does not work here (%v) and no network namespace is available: %v", probeErr, err)
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return cfg, false
}

// runInNetns runs t's test in this test binary inside a private user and
// network namespace, failing or skipping t as the child does. It returns
// an error only when no namespace can be made.
func runInNetns(t *testing.T) error {
	t.Helper()
	return runInNetnsWith(t, "ip link set lo up && ip link set lo multicast on")
}

// runInNetnsWith is runInNetns with the namespace's network set up by the
// shell command setup.
func runInNetnsWith(t *testing.T, setup string) error {
	t.Helper()
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		return err
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return err
	}
	if out, err := exec.Command(unshare, "-rn", "sh", "-c", setup).CombinedOutput(); err != nil {
		return fmt.Errorf("unshare -rn: %v: %s", err, out)
	}
	cmd := exec.Command(unshare, "-rn", "sh", "-c", setup+` && exec "$@"`, "sh",
		os.Args[0], "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), netnsChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	switch {
	case err != nil:
		t.Fatalf("in a private network namespace: %v\n%s", err, out)
	case bytes.Contains(out, []byte("--- SKIP: "+t.Name())):
		t.Skipf("skipped in a private network namespace:\n%s", out)
	case !bytes.Contains(out, []byte("--- PASS: "+t.Name())):
		t.Fatalf("in a private network namespace, the test did not run:\n%s", out)
	}
	t.Logf("passed in a private network namespace")
	return nil
}

// probeMulticast sends one datagram to cfg's group and waits for it.
func probeMulticast(cfg ScoutingConfig) error {
	p, err := cfg.resolve()
	if err != nil {
		return err
	}
	ctx := context.Background()
	g, err := p.listenGroup(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	u, err := p.listenUnicast(ctx)
	if err != nil {
		return err
	}
	defer u.Close()
	if _, err := u.WriteToUDP([]byte("probe"), p.group); err != nil {
		return err
	}
	_ = g.SetReadDeadline(time.Now().Add(2 * time.Second))
	buf := make([]byte, 16)
	n, _, err := g.ReadFromUDP(buf)
	if err != nil {
		return err
	}
	if string(buf[:n]) != "probe" {
		return errors.New("unexpected datagram " + string(buf[:n]))
	}
	return nil
}

func TestScoutingConfig(t *testing.T) {
	bad := []ScoutingConfig{
		{Multicast: true, Address: "224.0.0.224"},
		{Multicast: true, Address: "10.0.0.1:7446"},
		{Multicast: true, Address: "[2001:db8::1]:7446"},
		{Multicast: true, Address: "[ff02::1]:7446", Interface: "no-such-if0"},
		{Multicast: true, Address: "224.0.0.224:0"},
		{Multicast: true, Address: "224.0.0.224:x"},
		{Multicast: true, Address: "host.invalid:7446"},
		{Multicast: true, Interface: "no-such-if0"},
		{Multicast: true, Interface: "::1"},
		{Multicast: true, Period: -1},
		{Multicast: true, Timeout: -1},
	}
	for _, sc := range bad {
		_, err := Config{Scouting: sc}.resolve()
		if !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%+v: %v, want ErrInvalidConfig", sc, err)
		}
	}
	// Off: nothing is validated, and a client still needs Connect.
	if _, err := (Config{Scouting: ScoutingConfig{Address: "bad"}}).resolve(); err != nil {
		t.Errorf("scouting off: %v", err)
	}
	if _, err := (Config{Mode: ModeClient}).resolve(); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("client without Connect or scouting: %v", err)
	}
	r, err := Config{Scouting: ScoutingConfig{Multicast: true, Interface: "127.0.0.1"}}.resolve()
	if err != nil {
		t.Fatal(err)
	}
	if r.Scouting.Address != DefaultScoutAddress || r.Scouting.Period != DefaultScoutPeriod ||
		r.Scouting.Timeout != DefaultScoutTimeout {
		t.Errorf("defaults: %+v", r.Scouting)
	}
	if len(r.listen) != 1 || r.listen[0].String() != "tcp/127.0.0.1:0" {
		t.Errorf("default listen: %v", r.listen)
	}
	r, err = Config{Mode: ModeClient, Scouting: ScoutingConfig{Multicast: true}}.resolve()
	if err != nil || len(r.listen) != 0 {
		t.Errorf("scouting client: %v, listen %v", err, r)
	}
	for h, err := range Scout(t.Context(), ScoutingConfig{Address: "nope"}) {
		if !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("Scout with a bad address yields %+v, %v", h, err)
		}
	}
	for _, err := range Scout(t.Context(), ScoutingConfig{}, Role(9)) {
		if !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("Scout for Role(9): %v", err)
		}
	}
}

// scoutFor scouts on cfg until a node with zid answers, and returns it.
func scoutFor(t testing.TB, cfg ScoutingConfig, zid string, roles ...Role) Hello {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for h, err := range Scout(ctx, cfg, roles...) {
		if err != nil {
			t.Fatalf("Scout: %v", err)
		}
		if h.ZID == zid {
			return h
		}
	}
	t.Fatalf("node %s not found by scouting within 10 s", zid)
	return Hello{}
}

func TestScoutFindsPeer(t *testing.T) {
	cfg, here := loopbackScouting(t)
	if !here {
		return
	}
	a := openT(t, Config{Scouting: cfg})
	h := scoutFor(t, cfg, a.ZID())
	if h.Role != RolePeer || !slices.Equal(h.Locators, a.ListenAddrs()) {
		t.Fatalf("HELLO %+v, want role peer and locators %v", h, a.ListenAddrs())
	}
	if a.ListenAddrs()[0][:len("tcp/127.0.0.1:")] != "tcp/127.0.0.1:" {
		t.Fatalf("default listen endpoint %v", a.ListenAddrs())
	}
}

// linkCount returns the number of links of s.
func linkCount(s *Session) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.links)
}

func TestScoutPeersLinkAndExchange(t *testing.T) {
	cfg, here := loopbackScouting(t)
	if !here {
		return
	}
	a := openT(t, Config{Scouting: cfg})
	b := openT(t, Config{Scouting: cfg})
	ctx := testCtx(t)
	if err := a.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	got := collector(t, b, "scout/**")
	p := publisher(t, a, "scout/x") // waits until a knows b's subscriber
	if err := p.Put(ctx, []byte("found you")); err != nil {
		t.Fatal(err)
	}
	if s := recv(t, got); string(s.Payload) != "found you" || s.KeyExpr != "scout/x" {
		t.Fatalf("got %+v", s)
	}
	// Both keep scouting; repeated HELLOs must not add links. (When both
	// dial at once, the two links are settled to one: wait for that.)
	scoutFor(t, cfg, b.ZID())
	scoutFor(t, cfg, a.ZID())
	waitLinks(t, a, 1)
	waitLinks(t, b, 1)
	if err := p.Put(ctx, []byte("still here")); err != nil {
		t.Fatal(err)
	}
	if s := recv(t, got); string(s.Payload) != "still here" {
		t.Fatalf("got %+v", s)
	}
	if na, nb := linkCount(a), linkCount(b); na != 1 || nb != 1 {
		t.Fatalf("links: a %d, b %d, want 1 each", na, nb)
	}
}

// TestScoutingOff checks that sessions without scouting neither answer nor
// link, against a scouting session found on the same group as the control.
func TestScoutingOff(t *testing.T) {
	cfg, here := loopbackScouting(t)
	if !here {
		return
	}
	off := cfg
	off.Multicast = false
	a := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}, Scouting: off})
	b := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}, Scouting: off})
	control := openT(t, Config{Scouting: cfg})
	// Scout until the control answers, then for 5 more SCOUT periods.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	found := false
	for h, err := range Scout(ctx, cfg) {
		if err != nil {
			t.Fatal(err)
		}
		switch h.ZID {
		case a.ZID(), b.ZID():
			t.Fatalf("a session without scouting answered: %+v", h)
		case control.ZID():
			if !found {
				found = true
				var c2 context.CancelFunc
				ctx, c2 = context.WithTimeout(ctx, 5*cfg.Period)
				defer c2()
				go func() { <-ctx.Done(); cancel() }()
			}
		}
	}
	if !found {
		t.Fatal("the scouting control session was not found")
	}
	if na, nb := linkCount(a), linkCount(b); na != 0 || nb != 0 {
		t.Fatalf("sessions without scouting linked: a %d, b %d", na, nb)
	}
}

func TestScoutGarbageIgnored(t *testing.T) {
	cfg, here := loopbackScouting(t)
	if !here {
		return
	}
	a := openT(t, Config{Scouting: cfg})
	p, err := cfg.resolve()
	if err != nil {
		t.Fatal(err)
	}
	u, err := p.listenUnicast(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	garbage := [][]byte{
		{},
		{0xff},
		{0x01},             // truncated SCOUT
		{0x01, 0x09, 0x08}, // SCOUT announcing a ZID that is missing
		{0x22, 0x09, 0x01, 0x2a, 0xff, 0xff, 0xff, 0x7f}, // HELLO with a huge locator count
		{0x81, 0x09, 0x03, 0x11},                         // mandatory unknown extension
		[]byte("GET / HTTP/1.1\r\n\r\n"),
		make([]byte, 1400),
	}
	hello, err := (&wire.Hello{Version: 9, WhatAmI: wire.Peer, ZID: mustZID(t, []byte{1}),
		Locators: []string{"tcp/127.0.0.1:1"}}).AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	garbage = append(garbage, hello) // a HELLO to the group, not an answer
	for _, g := range garbage {
		if _, err := u.WriteToUDP(g, p.group); err != nil {
			t.Fatal(err)
		}
	}
	// The session still answers and still links.
	scoutFor(t, cfg, a.ZID())
	b := openT(t, Config{Scouting: cfg})
	if err := b.WaitConnected(testCtx(t)); err != nil {
		t.Fatal(err)
	}
}

func mustZID(t testing.TB, b []byte) wire.ZenohID {
	z, err := wire.NewZenohID(b)
	if err != nil {
		t.Fatal(err)
	}
	return z
}

func TestScoutClient(t *testing.T) {
	cfg, here := loopbackScouting(t)
	if !here {
		return
	}
	peer := openT(t, Config{Scouting: cfg})
	c := openT(t, Config{Mode: ModeClient, Scouting: cfg}) // Open waits for the link
	if n := linkCount(c); n != 1 {
		t.Fatalf("client links: %d", n)
	}
	got := collector(t, peer, "c/**")
	p := publisher(t, c, "c/1")
	if err := p.Put(testCtx(t), []byte("from client")); err != nil {
		t.Fatal(err)
	}
	if s := recv(t, got); string(s.Payload) != "from client" {
		t.Fatalf("got %+v", s)
	}
}

func TestScoutClientNoRouter(t *testing.T) {
	cfg, here := loopbackScouting(t)
	if !here {
		return
	}
	cfg.Timeout = 300 * time.Millisecond
	_, err := Open(testCtx(t), Config{Mode: ModeClient, Scouting: cfg, Logger: testLogger(t)})
	if !errors.Is(err, ErrNoRouter) {
		t.Fatalf("Open: %v, want ErrNoRouter", err)
	}
}

func TestScoutRoleFilter(t *testing.T) {
	cfg, here := loopbackScouting(t)
	if !here {
		return
	}
	a := openT(t, Config{Scouting: cfg})
	ctx, cancel := context.WithTimeout(context.Background(), 5*cfg.Period)
	defer cancel()
	for h, err := range Scout(ctx, cfg, RoleRouter) {
		if err != nil {
			t.Fatal(err)
		}
		t.Fatalf("scouting for routers found %+v", h)
	}
	if h := scoutFor(t, cfg, a.ZID(), RolePeer, RoleClient); h.Role != RolePeer {
		t.Fatalf("got %+v", h)
	}
}

// TestScoutCloseEndsGoroutines: Close ends every scouting goroutine (and
// its dials and links), and so does leaving a Scout loop.
func TestScoutCloseEndsGoroutines(t *testing.T) {
	cfg, here := loopbackScouting(t)
	if !here {
		return
	}
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx := testCtx(t)
	a, err := Open(ctx, Config{Scouting: cfg, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(ctx, Config{Scouting: cfg, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	for h, err := range Scout(ctx, cfg) {
		if err != nil {
			t.Fatal(err)
		}
		if h.ZID == a.ZID() {
			break
		}
	}
	_ = b.Close()
	_ = a.Close()
	// A new session scouts on the same group once both are closed.
	c, err := Open(ctx, Config{Scouting: cfg, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
}

// TestScoutClientWithConnect: a scouting client with a Connect endpoint
// links only there, and answers SCOUTs for clients (with no locator).
func TestScoutClientWithConnect(t *testing.T) {
	cfg, here := loopbackScouting(t)
	if !here {
		return
	}
	a := openT(t, Config{Scouting: cfg})
	b := openT(t, Config{Scouting: cfg})
	c := openT(t, Config{Mode: ModeClient, Connect: a.ListenAddrs(), Scouting: cfg})
	h := scoutFor(t, cfg, c.ZID(), RoleClient)
	if h.Role != RoleClient || len(h.Locators) != 0 {
		t.Fatalf("client HELLO %+v", h)
	}
	scoutFor(t, cfg, b.ZID(), RolePeer)
	if n := linkCount(c); n != 1 {
		t.Fatalf("client links: %d, want 1 (its Connect endpoint)", n)
	}
}

// TestScoutRelinksAfterLoss: when a scouted node goes away and comes back
// (same ZID), scouting links to it again.
func TestScoutRelinksAfterLoss(t *testing.T) {
	cfg, here := loopbackScouting(t)
	if !here {
		return
	}
	a := openT(t, Config{Scouting: cfg})
	zid := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	ctx := testCtx(t)
	b, err := Open(ctx, Config{Scouting: cfg, ZID: zid, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	_ = b.Close()
	for {
		ch := a.waitChange() // before the check, so no change is missed
		if linkCount(a) == 0 {
			break
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatal("a kept its link to the closed session")
		}
	}
	b = openT(t, Config{Scouting: cfg, ZID: zid})
	got := collector(t, b, "back/**")
	p := publisher(t, a, "back/again")
	if err := p.Put(ctx, []byte("welcome back")); err != nil {
		t.Fatal(err)
	}
	if s := recv(t, got); string(s.Payload) != "welcome back" {
		t.Fatalf("got %+v", s)
	}
}

// Peers scouting on an IPv6 group find each other and link over IPv6.
// Linux does not loop IPv6 multicast back on lo, so the test runs in a
// private network namespace on one end of a veth pair (v0, fd00::1).
func TestScoutIPv6(t *testing.T) {
	_, port, _ := net.SplitHostPort(scoutAddr(t))
	cfg := ScoutingConfig{Multicast: true, Address: net.JoinHostPort("ff02::7a5", port), Interface: "v0",
		Period: 50 * time.Millisecond, Timeout: 5 * time.Second}
	if err := probeMulticast(cfg); err != nil {
		if os.Getenv(netnsChildEnv) == "1" {
			t.Fatalf("IPv6 multicast on a veth pair fails in a private network namespace: %v", err)
		}
		const veth = "ip link set lo up && ip link add v0 type veth peer name v1 && ip link set v0 up && " +
			"ip link set v1 up && ip -6 addr add fd00::1/64 dev v0 nodad"
		if nerr := runInNetnsWith(t, veth); nerr != nil {
			msg := fmt.Sprintf("IPv6 multicast on lo does not work here (%v) and no network namespace is available: %v", err, nerr)
			if os.Getenv("CI") != "" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
		return
	}
	a := openT(t, Config{Scouting: cfg})
	b := openT(t, Config{Scouting: cfg})
	ctx := testCtx(t)
	if err := a.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	if l := a.Links(); len(l) == 0 || !strings.HasPrefix(l[0].Remote, "tcp/[") {
		t.Fatalf("links %+v, want IPv6", l)
	}
	got := collector(t, b, "scout6/**")
	p := publisher(t, a, "scout6/x")
	if err := p.Put(ctx, []byte("over v6")); err != nil {
		t.Fatal(err)
	}
	if s := recv(t, got); string(s.Payload) != "over v6" {
		t.Fatalf("got %+v", s)
	}
}
