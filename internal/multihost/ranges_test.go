//go:build linux

package multihost_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/netns/hosts"
	"github.com/afor-go/afor/internal/peers"
)

// TestDDSLocalhostStaticPeers: with ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
// a talker that names the listener's host in ROS_STATIC_PEERS reaches it,
// Go or rclpy on either side; on one host an rclpy LOCALHOST talker reaches
// a Go LOCALHOST listener as soon as it reaches an rclpy one.
func TestDDSLocalhostStaticPeers(t *testing.T) {
	t.Parallel()
	lab := hosts.New(t)
	lan := lab.Network("lan")
	h1, h2 := lab.Host("h1", lan), lab.Host("h2", lan)
	local := rosEnv(ddsDomain, "ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST")
	toH2 := rosEnv(ddsDomain, "ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST", "ROS_STATIC_PEERS="+h2.Addr().String())
	rel := qos(true, 0)
	goL := goNodeOn(t, h2, "go_listener", local)
	pyL := pyNodeOn(t, h2, "py_listener", local)
	for _, l := range []*node{goL, pyL} {
		for _, topic := range []string{"/from_go", "/from_py", "/same_host"} {
			l.sub(topic, rel)
		}
	}
	for _, c := range []struct {
		scenario, topic string
		start           func() *node
	}{
		{"LOCALHOST + static peer, 2 hosts", "/from_go", func() *node { return goNodeOn(t, h1, "go_talker", toH2) }},
		{"LOCALHOST + static peer, 2 hosts", "/from_py", func() *node { return pyNodeOn(t, h1, "py_talker", toH2) }},
		{"LOCALHOST, 1 host", "/same_host", func() *node { return pyNodeOn(t, h2, "py_local_talker", local) }},
	} {
		tk := c.start()
		sent := stream(tk, c.topic, rel, 50, 64, 50, 20*time.Second, goL, pyL)
		for _, l := range []*node{goL, pyL} {
			peer := tk.kind + " -> " + l.kind
			rs := l.received(c.topic)
			if len(rs) == 0 {
				t.Errorf("%s, %s: nothing received of %d", c.scenario, peer, sent)
				report(t, c.scenario, peer, "none", &delivery{Sent: sent, Lost: sent}, 0)
				continue
			}
			first := sinceStart(tk, rs)
			d := summarizeFrom(rs, sent)
			if d.Lost > 0 || d.Duplicated > 0 {
				t.Errorf("%s, %s: %v", c.scenario, peer, d)
			}
			t.Logf("%s, %s: first message %v after the talker was ready; %v", c.scenario, peer, first.Round(time.Millisecond), d)
			report(t, c.scenario, peer, "none", &d, first)
		}
	}
}

// discoverySetting is one side's ROS_AUTOMATIC_DISCOVERY_RANGE, with or
// without the other side's host in ROS_STATIC_PEERS.
type discoverySetting struct {
	Range string
	Peer  bool
}

func (s discoverySetting) String() string {
	if s.Peer {
		return s.Range + "+peer"
	}
	return s.Range
}

var discoverySettings = func() []discoverySetting {
	var out []discoverySetting
	for _, peer := range []bool{false, true} {
		for _, r := range []string{"OFF", "LOCALHOST", "SUBNET"} {
			out = append(out, discoverySetting{r, peer})
		}
	}
	return out
}()

// discovers is ROS 2's table (the "Improved Dynamic Discovery" tutorial,
// Kilted): whether nodes with settings a and b discover each other, on one
// host or on two.
func discovers(a, b discoverySetting, sameHost bool) bool {
	switch {
	case a.Range == "OFF" || b.Range == "OFF":
		return false
	case sameHost:
		return true
	case a.Peer || b.Peer:
		return true
	}
	return a.Range == "SUBNET" && b.Range == "SUBNET"
}

// firstRangeDomain is the first of TestDDSDiscoveryRanges's 36 domains:
// their ports stay below Linux's ephemeral range (domains above 101 reach
// it, and a socket bound to port 0 can take the port a participant of a
// later domain needs: "bind: address already in use").
const firstRangeDomain = 10

// TestDDSDiscoveryRanges checks every pair of discovery settings (range,
// static peer or not) on one host and on two against ROS 2's table, Go
// against Go and Go against rclpy: each pair is two nodes in a domain of
// their own, which must see each other in their graph, or must not.
func TestDDSDiscoveryRanges(t *testing.T) {
	t.Parallel()
	lab := hosts.New(t)
	py := peers.Python(t, "rclpy")
	script, err := filepath.Abs(filepath.Join("testdata", "rclpy_probe.py"))
	if err != nil {
		t.Fatal(err)
	}
	start := func(h *hosts.Host, kind, side string) *hosts.Proc {
		if kind == "go" {
			return h.StartRole(t, "probe", side)
		}
		cmd := h.Command(py, "-u", script, side)
		cmd.Env = append(cmd.Env, "RMW_IMPLEMENTATION=rmw_fastrtps_cpp", "FASTDDS_BUILTIN_TRANSPORTS=UDPv4")
		return h.Start(t, "rclpy-probe-"+side, cmd)
	}
	// A layout is one kind of pair (Go and Go, Go and rclpy) on one host or
	// two, on a LAN of its own: its pairs use domains firstRangeDomain to
	// firstRangeDomain+35, one each.
	type layout struct {
		kinds string
		same  bool
		a, b  *hosts.Proc
	}
	var layouts []*layout
	for _, kinds := range []string{"go/go", "go/rclpy"} {
		for _, same := range []bool{false, true} {
			ka, kb, _ := strings.Cut(kinds, "/")
			tag := strings.ReplaceAll(kinds, "/", "-") + "-" + map[bool]string{false: "2h", true: "1h"}[same]
			lan := lab.Network(tag)
			ha, hb := lab.Host(tag+"-a", lan), lab.Host(tag+"-b", lan)
			l := &layout{kinds: kinds, same: same}
			l.a = start(ha, ka, "a")
			if same {
				l.b = start(ha, kb, "b")
			} else {
				l.b = start(hb, kb, "b")
			}
			// Each side names the other host as its static peer (on one
			// host: the LAN's other host, as it would name a remote robot).
			peerA, peerB := hb.Addr().String(), ha.Addr().String()
			if same {
				peerB = peerA
			}
			type cmd struct {
				c     probeCommand
				first int
			}
			var cmdsA []probeCommand
			var cmdsB []cmd
			domain := firstRangeDomain
			for _, a := range discoverySettings {
				for _, b := range discoverySettings {
					ca := probeCommand{ID: fmt.Sprint(domain), Domain: domain, Range: a.Range}
					if a.Peer {
						ca.Peers = []string{peerA}
					}
					cb := probeCommand{ID: fmt.Sprint(domain), Domain: domain, Range: b.Range}
					if b.Peer {
						cb.Peers = []string{peerB}
					}
					cmdsA = append(cmdsA, ca)
					// One process stands for 36 here, and Fast DDS numbers
					// the participants of a process, where a node of a
					// domain of its own would be the first on its host:
					// the B nodes that an A node finds by probing participant
					// indices (the first 4 for a SUBNET static peer, 32 for
					// LOCALHOST) are made first, so that their indices are
					// low enough.
					first := 2
					switch {
					case a == discoverySetting{"SUBNET", true} && b.Range == "LOCALHOST":
						first = 0
					case a.Range == "LOCALHOST":
						first = 1
					}
					cmdsB = append(cmdsB, cmd{cb, first})
					domain++
				}
			}
			slices.SortStableFunc(cmdsB, func(x, y cmd) int { return x.first - y.first })
			for _, c := range cmdsA {
				if err := l.a.Send(c); err != nil {
					t.Fatal(err)
				}
			}
			for _, c := range cmdsB {
				if err := l.b.Send(c.c); err != nil {
					t.Fatal(err)
				}
			}
			layouts = append(layouts, l)
		}
	}
	n := len(discoverySettings) * len(discoverySettings)
	for _, l := range layouts {
		for _, p := range []*hosts.Proc{l.a, l.b} {
			ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
			for i := range n {
				ev, err := p.Next(ctx, func(e hosts.Event) bool { return e.Ev == "started" || e.Ev == "error" })
				if err != nil {
					cancel()
					t.Fatalf("%s: %d nodes of %d started: %v", p.Name, i, n, err)
				}
				if ev.Ev == "error" {
					cancel()
					t.Fatalf("%s: %s", p.Name, ev)
				}
			}
			cancel()
		}
	}
	// Those that should meet do within seconds (the first SPDP
	// announcements go out in the first half second, then every three
	// seconds; on a loaded machine, later): wait for them, then some more,
	// in case those that should not meet do.
	found := func(l *layout) map[string]int { // domain -> sides that saw the other
		m := map[string]int{}
		for _, p := range []*hosts.Proc{l.a, l.b} {
			for _, e := range p.Events() {
				var f struct{ ID string }
				if e.Ev == "found" && e.Decode(&f) == nil {
					m[f.ID]++
				}
			}
		}
		return m
	}
	deadline := time.Now().Add(60 * time.Second)
	for _, l := range layouts {
		for time.Now().Before(deadline) {
			m, missing := found(l), 0
			domain := firstRangeDomain
			for _, a := range discoverySettings {
				for _, b := range discoverySettings {
					if discovers(a, b, l.same) && m[fmt.Sprint(domain)] < 2 {
						missing++
					}
					domain++
				}
			}
			if missing == 0 {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	time.Sleep(4 * time.Second)
	var table strings.Builder
	bad := 0
	for _, l := range layouts {
		found := found(l)
		fmt.Fprintf(&table, "\n%s, %s (A rows, B columns; O discovered, X not):\n%-16s", l.kinds, hostsName(l.same), "")
		for _, b := range discoverySettings {
			fmt.Fprintf(&table, "%-16s", b)
		}
		domain := firstRangeDomain
		for _, a := range discoverySettings {
			fmt.Fprintf(&table, "\n%-16s", a)
			for _, b := range discoverySettings {
				got := found[fmt.Sprint(domain)]
				want := discovers(a, b, l.same)
				fmt.Fprintf(&table, "%-16s", map[int]string{0: "X", 1: "one side", 2: "O"}[got])
				if (got == 2) != want || got == 1 {
					bad++
					t.Errorf("%s, %s: A %v, B %v: %d of 2 sides discovered, want %v", l.kinds, hostsName(l.same), a, b, got, want)
				}
				domain++
			}
		}
	}
	t.Log(table.String())
	if bad == 0 {
		report(t, "discovery ranges (ROS 2 table), 36 pairs", "go <-> go, go <-> rclpy", "1 and 2 hosts", nil, 0)
	}
}

func hostsName(same bool) string {
	if same {
		return "one host"
	}
	return "two hosts"
}
