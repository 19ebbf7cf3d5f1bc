package dds

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/transport/dds/internal/rtps"
)

// fakeIfaces is a host with loopback, Ethernet, Wi-Fi, a VPN tunnel (no
// multicast) and a cable that is unplugged (down).
func fakeIfaces() []netIface {
	pfx := netip.MustParsePrefix
	return []netIface{
		{index: 1, name: "lo", up: true, loopback: true, prefixes: []netip.Prefix{pfx("127.0.0.1/8")}},
		{index: 2, name: "eth0", up: true, multicast: true, prefixes: []netip.Prefix{pfx("10.0.0.5/24")}},
		{index: 3, name: "wlan0", up: true, multicast: true, prefixes: []netip.Prefix{pfx("192.168.1.7/24")}},
		{index: 4, name: "tun0", up: true, prefixes: []netip.Prefix{pfx("10.8.0.2/24")}},
		{index: 5, name: "eth1", multicast: true, prefixes: []netip.Prefix{pfx("172.16.0.1/16")}},
	}
}

func TestSelectAddrs(t *testing.T) {
	addrs := func(s ...string) []netip.Addr {
		var out []netip.Addr
		for _, a := range s {
			out = append(out, netip.MustParseAddr(a))
		}
		return out
	}
	onlyLo := []netIface{{index: 1, name: "lo", up: true, loopback: true, multicast: true, prefixes: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/8")}}}
	for _, c := range []struct {
		name  string
		cfg   Config
		ifs   []netIface
		addrs []netip.Addr
		mcast []string
	}{
		{"subnet: every interface up, multicast on those that can", Config{Range: RangeSubnet}, fakeIfaces(),
			addrs("10.0.0.5", "192.168.1.7", "10.8.0.2"), []string{"eth0", "wlan0"}},
		{"localhost: the interfaces' addresses too, no multicast", Config{Range: RangeLocalhost}, fakeIfaces(),
			addrs("10.0.0.5", "192.168.1.7", "10.8.0.2"), nil},
		{"off", Config{Range: RangeOff}, fakeIfaces(), addrs("10.0.0.5", "192.168.1.7", "10.8.0.2"), nil},
		{"no multicast", Config{Range: RangeSubnet, NoMulticast: true}, fakeIfaces(), addrs("10.0.0.5", "192.168.1.7", "10.8.0.2"), nil},
		{"by name", Config{Range: RangeSubnet, Interfaces: []string{"wlan0"}}, fakeIfaces(), addrs("192.168.1.7"), []string{"wlan0"}},
		{"by address, no multicast there", Config{Range: RangeSubnet, Interfaces: []string{"10.8.0.2"}}, fakeIfaces(), addrs("10.8.0.2"), nil},
		{"a named interface that is down", Config{Range: RangeSubnet, Interfaces: []string{"eth1", "eth0"}}, fakeIfaces(), addrs("10.0.0.5"), []string{"eth0"}},
		{"loopback alone", Config{Range: RangeSubnet}, onlyLo, addrs("127.0.0.1"), []string{"lo"}},
		{"loopback alone, localhost", Config{Range: RangeLocalhost}, onlyLo, addrs("127.0.0.1"), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.cfg.Getenv = noEnv
			c.cfg.listInterfaces = func() ([]netIface, error) { return c.ifs, nil }
			r, err := c.cfg.resolve()
			if err != nil {
				t.Fatal(err)
			}
			a, m, err := r.selectAddrs(c.ifs, true)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, ni := range m {
				names = append(names, ni.name)
			}
			if !slices.Equal(a, c.addrs) || !slices.Equal(names, c.mcast) {
				t.Errorf("addresses %v multicast on %v, want %v and %v", a, names, c.addrs, c.mcast)
			}
		})
	}
	_, err := Config{Interfaces: []string{"wlan7"}, Getenv: noEnv, listInterfaces: func() ([]netIface, error) { return fakeIfaces(), nil }}.resolve()
	if !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("unknown interface: %v, want ErrInvalidConfig", err)
	}
}

func TestPickLocators(t *testing.T) {
	pfx := netip.MustParsePrefix
	p := &Participant{}
	p.netState.Store(&localNet{
		own:     map[netip.Addr]bool{loopbackAddr: true, netip.MustParseAddr("10.0.0.5"): true, netip.MustParseAddr("172.17.0.1"): true},
		subnets: []netip.Prefix{pfx("10.0.0.0/24"), pfx("172.17.0.0/16")},
	})
	locs := func(s ...string) []rtps.Locator {
		var out []rtps.Locator
		for _, a := range s {
			out = append(out, rtps.LocatorUDPv4(netip.MustParseAddr(a), 7410))
		}
		return out
	}
	for _, c := range []struct {
		name string
		in   []rtps.Locator
		want string
	}{
		{"same host", locs("10.0.0.5", "127.0.0.1"), "[10.0.0.5:7410]"},
		{"loopback only", locs("127.0.0.1"), "[127.0.0.1:7410]"},
		{"a docker bridge every host has", locs("172.17.0.1", "10.0.0.9"), "[10.0.0.9:7410]"},
		{"the shared subnet only", locs("192.168.3.3", "10.0.0.9"), "[10.0.0.9:7410]"},
		{"two shared subnets", locs("10.0.0.9", "172.17.0.8"), "[10.0.0.9:7410 172.17.0.8:7410]"},
		{"routed", locs("192.168.3.3", "192.168.4.4"), "[192.168.3.3:7410 192.168.4.4:7410]"},
		{"nothing usable", locs("0.0.0.0", "239.255.0.1"), "[]"},
	} {
		if got := fmt.Sprint(p.pickLocators(c.in)); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

// TestParticipantFollowsItsInterfaces: when a participant's interfaces
// change, it announces its new addresses, its writers their new locators,
// and its peer points its proxies at them, with nothing unmatched: the
// samples keep flowing.
func TestParticipantFollowsItsInterfaces(t *testing.T) {
	var mu sync.Mutex
	lo := netIface{index: 1, name: "lo", up: true, loopback: true, multicast: true, prefixes: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/8")}}
	ifs := []netIface{lo}
	list := func() ([]netIface, error) {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(ifs), nil
	}
	d := nextDomain()
	a := newTestParticipant(t, Config{DomainID: d, Range: RangeLocalhost, listInterfaces: list, AnnouncePeriod: 50 * time.Millisecond})
	b := newTestParticipant(t, Config{DomainID: d, Range: RangeLocalhost})
	ctx := waitCtx(t)
	lost := make(chan DiscoveryEvent, 16)
	stop := b.WatchDiscovery(func(e DiscoveryEvent) {
		if e.Kind == EndpointLost || e.Kind == ParticipantLost {
			lost <- e
		}
	})
	defer stop()
	w, err := NewWriter(a, chatter, QoS{Reliability: Reliable})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r, err := NewReader(b, chatter, QoS{Reliability: Reliable}, afor.WithDefaultQueueSize(0))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := w.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	l := r.Sub().Listener(ctx, afor.Fresh(), afor.QueueSize(0))
	defer l.Stop()
	send := func(i int) {
		t.Helper()
		if err := w.Write(ctx, cdrString(fmt.Sprint("hello ", i))); err != nil {
			t.Fatal(err)
		}
		s, err := l.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := cdrStringDecode(s.Payload); got != fmt.Sprint("hello ", i) {
			t.Fatalf("got %q", got)
		}
	}
	send(0)
	// a's host gets an interface (on loopback's addresses, so that it is
	// reachable here): it announces 127.0.0.3 instead of 127.0.0.1.
	moved := netip.MustParseAddr("127.0.0.3")
	mu.Lock()
	ifs = append(ifs, netIface{index: 2, name: "eth0", up: true, multicast: true, prefixes: []netip.Prefix{netip.PrefixFrom(moved, 8)}})
	mu.Unlock()
	want := netip.AddrPortFrom(moved, uint16(metaUnicastPort(d, a.Index())))
	wantAck := netip.AddrPortFrom(moved, a.socks.acks.LocalAddr().(*net.UDPAddr).AddrPort().Port())
	for {
		b.mu.RLock()
		rp := b.remotes[a.prefix]
		at := rp != nil && slices.Equal(rp.meta, []netip.AddrPort{want})
		b.mu.RUnlock()
		r.mu.Lock()
		var wl []netip.AddrPort
		for _, wp := range r.proxies {
			wl = wp.locs
		}
		r.mu.Unlock()
		if at && slices.Equal(wl, []netip.AddrPort{wantAck}) {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("b still sends to a at %v (writer %v), want %v and %v", rp.meta, wl, want, wantAck)
		case <-time.After(20 * time.Millisecond):
		}
	}
	send(1)
	select {
	case e := <-lost:
		t.Errorf("b lost something when a moved: %+v", e)
	default:
	}
}

// TestGreetingsAreBounded: a participant answers a new participant's first
// announcements with its own (a Fast DDS participant that is just starting
// may miss the first answer), but two participants doing so must not
// answer each other's answers for ever.
func TestGreetingsAreBounded(t *testing.T) {
	d := nextDomain()
	cfg := Config{DomainID: d, Range: RangeSubnet, NoMulticast: true, StaticPeers: []string{"127.0.0.1"}}
	a := newTestParticipant(t, cfg)
	b := newTestParticipant(t, cfg)
	ctx := waitCtx(t)
	for _, p := range []*Participant{a, b} {
		for len(p.Participants()) == 0 {
			select {
			case <-ctx.Done():
				t.Fatal("no discovery")
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	// Two seconds: the window in which they greet each other, and more
	// than the fast announcements (5 x 4 static peer ports each).
	sent := a.Stats().Sent + b.Stats().Sent
	time.Sleep(greetWindow)
	if n := a.Stats().Sent + b.Stats().Sent - sent; n > 200 {
		t.Errorf("%d datagrams in %v between two participants with nothing to say", n, greetWindow)
	}
}
