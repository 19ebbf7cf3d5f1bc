//go:build linux

package hosts_test

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/netip"
	"os"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/netns"
	"github.com/afor-go/afor/internal/netns/hosts"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if code, done := hosts.RunRole(map[string]hosts.Role{"udp": udpRole}); done {
		os.Exit(code)
	}
	if code, done := netns.Exec(); done {
		os.Exit(code)
	}
	goleak.VerifyTestMain(m)
}

// udpRole listens on a UDP port (and a multicast group on every
// interface, with -group), reports each datagram it gets as
// {"ev":"got","seq":N,"from":"ip:port","size":S}, and sends on command:
// {"to":"ip:port","n":N,"size":S} sends N datagrams numbered from 0 and
// answers {"ev":"sent","n":N}. It starts with {"ev":"ready"}.
func udpRole(args []string) int {
	fs := flag.NewFlagSet("udp", flag.ContinueOnError)
	port := fs.Int("port", 9000, "UDP port to listen on")
	group := fs.String("group", "", "multicast group to join on every interface")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	emit := func(v map[string]any) {
		b, _ := json.Marshal(v)
		fmt.Println(string(b))
	}
	var c *net.UDPConn
	var err error
	if *group != "" {
		c, err = net.ListenMulticastUDP("udp4", nil, &net.UDPAddr{IP: net.ParseIP(*group), Port: *port})
	} else {
		c, err = net.ListenUDP("udp4", &net.UDPAddr{Port: *port})
	}
	if err != nil {
		emit(map[string]any{"ev": "error", "error": err.Error()})
		return 1
	}
	go func() {
		buf := make([]byte, 65536)
		for {
			n, from, err := c.ReadFromUDP(buf)
			if err != nil {
				return
			}
			if n >= 8 {
				emit(map[string]any{"ev": "got", "seq": binary.BigEndian.Uint64(buf), "from": from.String(), "size": n})
			}
		}
	}()
	emit(map[string]any{"ev": "ready"})
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		var cmd struct {
			To      string `json:"to"`
			N, Size int
		}
		if err := json.Unmarshal(sc.Bytes(), &cmd); err != nil {
			emit(map[string]any{"ev": "error", "error": err.Error()})
			continue
		}
		to, err := netip.ParseAddrPort(cmd.To)
		if err != nil {
			emit(map[string]any{"ev": "error", "error": err.Error()})
			continue
		}
		b := make([]byte, max(cmd.Size, 8))
		for i := range cmd.N {
			binary.BigEndian.PutUint64(b, uint64(i))
			if _, err := c.WriteToUDPAddrPort(b, to); err != nil {
				emit(map[string]any{"ev": "error", "error": err.Error()})
			}
		}
		emit(map[string]any{"ev": "sent", "n": cmd.N})
	}
	c.Close()
	return 0
}

// seqs returns the sequence numbers of the datagrams a udp role reported
// from its from-th event on, once want arrived or quiet passed without
// one; next is where the following call should start.
func seqs(t *testing.T, p *hosts.Proc, from, want int, quiet time.Duration) (got []uint64, next int) {
	t.Helper()
	read := func() []hosts.Event { return p.Events()[from:] }
	n, deadline := 0, time.Now().Add(quiet)
	for n < want && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		if m := len(read()); m > n {
			n, deadline = m, time.Now().Add(quiet)
		}
	}
	evs := read()
	for _, ev := range evs {
		var g struct{ Seq uint64 }
		if ev.Ev == "got" && ev.Decode(&g) == nil {
			got = append(got, g.Seq)
		}
	}
	return got, from + len(evs)
}

// distinct counts each sequence number.
func distinct(s []uint64) map[uint64]int {
	m := map[uint64]int{}
	for _, v := range s {
		m[v]++
	}
	return m
}

func send(t *testing.T, p *hosts.Proc, to netip.AddrPort, n, size int) {
	t.Helper()
	if err := p.Send(map[string]any{"to": to.String(), "n": n, "size": size}); err != nil {
		t.Fatal(err)
	}
	p.Expect(t, "sent", 10*time.Second)
}

func TestUnicastMulticastAndSecondNetwork(t *testing.T) {
	lab := hosts.New(t)
	lan, wifi := lab.Network("lan"), lab.Network("wifi")
	a := lab.Host("a", lan, wifi)
	b := lab.Host("b", lan)
	c := lab.Host("c", wifi)
	if a.Addr() != netip.MustParseAddr("10.77.1.1") || b.Addr() != netip.MustParseAddr("10.77.1.2") ||
		a.Link("eth1").Addr() != netip.MustParseAddr("10.77.2.1") || c.Addr() != netip.MustParseAddr("10.77.2.2") {
		t.Fatalf("addresses %v %v %v %v", a.Addr(), a.Link("eth1").Addr(), b.Addr(), c.Addr())
	}
	pa := a.StartRole(t, "udp", "-port", "9000")
	pb := b.StartRole(t, "udp", "-port", "9000", "-group", "239.255.0.7")
	pc := c.StartRole(t, "udp", "-port", "9000")
	for _, p := range []*hosts.Proc{pa, pb, pc} {
		p.Expect(t, "ready", 10*time.Second)
	}
	send(t, pa, netip.AddrPortFrom(b.Addr(), 9000), 20, 100)
	send(t, pa, netip.AddrPortFrom(c.Addr(), 9000), 20, 3000) // fragmented, second network
	send(t, pa, netip.MustParseAddrPort("239.255.0.7:9000"), 20, 100)
	if s, _ := seqs(t, pb, 1, 40, 2*time.Second); len(distinct(s)) != 20 || len(s) != 40 {
		t.Errorf("b got %v, want 20 datagrams twice each (unicast and multicast)", distinct(s))
	}
	if s, _ := seqs(t, pc, 1, 20, 2*time.Second); len(distinct(s)) != 20 {
		t.Errorf("c got %v through eth1, want 20 datagrams", distinct(s))
	}
	up, _ := a.Link("eth1").Stats()
	if up.Frames < 40 || up.Delivered != up.Frames {
		t.Errorf("a/eth1 up stats %+v: want every frame (20 datagrams of 3 fragments, ARP) delivered", up)
	}
}

func TestFaults(t *testing.T) {
	lab := hosts.New(t)
	lan := lab.Network("lan")
	a, b := lab.Host("a", lan), lab.Host("b", lan)
	pa := a.StartRole(t, "udp", "-port", "9000")
	pb := b.StartRole(t, "udp", "-port", "9000")
	pa.Expect(t, "ready", 10*time.Second)
	pb.Expect(t, "ready", 10*time.Second)
	to := netip.AddrPortFrom(b.Addr(), 9000)
	send(t, pa, to, 1, 100) // resolves b's MAC address before the faults
	_, at := seqs(t, pb, 1, 1, time.Second)
	link := a.Link("eth0")

	t.Run("loss", func(t *testing.T) {
		before, _ := link.Stats()
		link.SetFaultsEach(hosts.Faults{Loss: 0.5}, hosts.Faults{})
		send(t, pa, to, 400, 100)
		var s []uint64
		s, at = seqs(t, pb, at, 400, 300*time.Millisecond)
		up, _ := link.Stats()
		link.SetFaults(hosts.Faults{})
		lost := up.Lost - before.Lost
		if lost < 100 || lost > 300 {
			t.Errorf("%d of 400 frames lost at 50%%", lost)
		}
		if uint64(len(s))+lost != 400 {
			t.Errorf("%d datagrams arrived and %d were lost, of 400", len(s), lost)
		}
		if up.Frames-before.Frames != lost+up.Delivered-before.Delivered+up.Overrun-before.Overrun {
			t.Errorf("stats do not add up: %+v then %+v", before, up)
		}
	})
	t.Run("duplicate and reorder", func(t *testing.T) {
		link.SetFaultsEach(hosts.Faults{Duplicate: 1, Reorder: 0.3, ReorderBy: 5 * time.Millisecond}, hosts.Faults{})
		send(t, pa, to, 100, 100)
		var s []uint64
		s, at = seqs(t, pb, at, 200, 300*time.Millisecond)
		link.SetFaults(hosts.Faults{})
		inversions := 0
		for i := 1; i < len(s); i++ {
			if s[i] < s[i-1] {
				inversions++
			}
		}
		if len(s) != 200 || len(distinct(s)) != 100 {
			t.Errorf("got %d datagrams (%d distinct), want each of 100 twice", len(s), len(distinct(s)))
		}
		if inversions == 0 {
			t.Errorf("no datagram out of order with 30%% reordered")
		}
	})
	t.Run("delay", func(t *testing.T) {
		link.SetFaults(hosts.Faults{Delay: 50 * time.Millisecond})
		start := time.Now()
		send(t, pa, to, 1, 100)
		s, next := seqs(t, pb, at, 1, time.Second)
		link.SetFaults(hosts.Faults{})
		if len(s) != 1 {
			t.Fatalf("got %v", s)
		}
		if d := pb.Events()[next-1].At.Sub(start); d < 50*time.Millisecond {
			t.Errorf("datagram arrived after %v, before the 50 ms of delay", d)
		}
		at = next
	})
	t.Run("cut", func(t *testing.T) {
		link.Cut(true)
		send(t, pa, to, 10, 100)
		var s []uint64
		s, at = seqs(t, pb, at, 1, 200*time.Millisecond)
		if len(s) != 0 {
			t.Errorf("%d datagrams crossed a cut link", len(s))
		}
		link.Cut(false)
		send(t, pa, to, 10, 100)
		if s, at = seqs(t, pb, at, 10, time.Second); len(s) != 10 {
			t.Errorf("%d of 10 datagrams crossed the mended link", len(s))
		}
	})
	t.Run("rate", func(t *testing.T) {
		link.SetFaults(hosts.Faults{Rate: 8_000_000, Queue: time.Second}) // 1 MB/s
		defer link.SetFaults(hosts.Faults{})
		start := time.Now()
		send(t, pa, to, 200, 5000) // 1 MB
		s, _ := seqs(t, pb, at, 200, time.Second)
		if d := pb.Events()[len(pb.Events())-1].At.Sub(start); d < 700*time.Millisecond {
			t.Errorf("1 MB crossed a 1 MB/s link in %v", d)
		}
		if len(s) < 150 {
			t.Errorf("only %d datagrams arrived", len(s))
		}
	})
}

func TestReaddressAndDown(t *testing.T) {
	lab := hosts.New(t)
	lan := lab.Network("lan")
	a, b := lab.Host("a", lan), lab.Host("b", lan)
	pa := a.StartRole(t, "udp", "-port", "9000")
	pb := b.StartRole(t, "udp", "-port", "9000", "-group", "239.255.0.7")
	pa.Expect(t, "ready", 10*time.Second)
	pb.Expect(t, "ready", 10*time.Second)
	lk := b.Link("eth0")
	lk.SetDown(true)
	lk.SetAddr(lan.Addr(20))
	lk.SetDown(false)
	send(t, pa, netip.AddrPortFrom(lan.Addr(20), 9000), 5, 100)
	s, at := seqs(t, pb, 1, 5, 2*time.Second)
	if len(s) != 5 {
		t.Errorf("at its new address b got %v by unicast, want 5 datagrams", s)
	}
	send(t, pa, netip.MustParseAddrPort("239.255.0.7:9000"), 5, 100)
	if s, _ = seqs(t, pb, at, 5, 2*time.Second); len(s) != 5 {
		t.Errorf("at its new address b got %v by multicast, want 5 datagrams", s)
	}
}

func TestSysctl(t *testing.T) {
	lab := hosts.New(t)
	h := lab.Host("h", lab.Network("lan"))
	h.Sysctl("net.ipv4.ipfrag_time", "3")
	out, err := h.Command("cat", "/proc/sys/net/ipv4/ipfrag_time").Output()
	if err != nil || string(out) != "3\n" {
		t.Fatalf("ipfrag_time on the host: %q, %v", out, err)
	}
	own, err := os.ReadFile("/proc/sys/net/ipv4/ipfrag_time")
	if err != nil || string(own) == "3\n" {
		t.Fatalf("ipfrag_time of the test's namespace changed too: %q, %v", own, err)
	}
}
