//go:build linux

package multihost_test

import (
	"flag"
	"net"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/netns/hosts"
)

// sniffRole reports each datagram sent to a multicast group and port, on
// the interface given by its address: {"ev":"dgram","from":"ip:port"}.
func sniffRole(args []string) int {
	fs := flag.NewFlagSet("sniff", flag.ContinueOnError)
	group := fs.String("group", "239.255.0.1", "multicast group")
	port := fs.Int("port", 7400, "UDP port")
	ifaddr := fs.String("if", "", "address of the interface to listen on")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	out := newEmitter(os.Stdout)
	var ifi *net.Interface
	ifs, _ := net.Interfaces()
	for i := range ifs {
		as, _ := ifs[i].Addrs()
		for _, a := range as {
			if ipn, ok := a.(*net.IPNet); ok && ipn.IP.String() == *ifaddr {
				ifi = &ifs[i]
			}
		}
	}
	c, err := net.ListenMulticastUDP("udp4", ifi, &net.UDPAddr{IP: net.ParseIP(*group), Port: *port})
	if err != nil {
		out.errorf("sniff: %v", err)
		return 1
	}
	go func() {
		buf := make([]byte, 65536)
		for {
			_, from, err := c.ReadFromUDP(buf)
			if err != nil {
				return
			}
			out.emit(map[string]any{"ev": "dgram", "from": from.String()})
		}
	}()
	out.emit(map[string]any{"ev": "ready"})
	_, _ = os.Stdin.Read(make([]byte, 1))
	c.Close()
	return 0
}

// ddsDomain is the domain of the DDS tests; each lab is a network of its
// own, so they may share it.
const ddsDomain = 42

// spdpPort is the SPDP multicast port of ddsDomain.
const spdpPort = 7400 + 250*ddsDomain

// TestDDSDiscoveryAcrossHosts: a Go talker, a Go listener and an rclpy
// listener on three hosts of one LAN, default discovery (SUBNET, multicast
// on the LAN): both listeners get everything, soon after the talker
// starts. rclpy talks to the Go listener the same way.
func TestDDSDiscoveryAcrossHosts(t *testing.T) {
	t.Parallel()
	lab := hosts.New(t)
	lan := lab.Network("lan")
	h1, h2, h3 := lab.Host("h1", lan), lab.Host("h2", lan), lab.Host("h3", lan)
	env := rosEnv(ddsDomain)
	goL := goNodeOn(t, h2, "go_listener", env)
	pyL := pyNodeOn(t, h3, "py_listener", env)
	rel := qos(true, 0)
	goL.sub("/chatter", rel)
	pyL.sub("/chatter", rel)
	goL.sub("/py_chatter", rel)
	for _, c := range []struct {
		start     func() *node
		topic     string
		listeners []*node
	}{
		{func() *node { return goNodeOn(t, h1, "go_talker", env) }, "/chatter", []*node{goL, pyL}},
		{func() *node { return pyNodeOn(t, h3, "py_talker", env) }, "/py_chatter", []*node{goL}},
	} {
		talker := c.start()
		sent := stream(talker, c.topic, rel, 50, 64, 50, 20*time.Second, c.listeners...)
		for _, l := range c.listeners {
			peer := talker.kind + " -> " + l.kind
			rs := l.received(c.topic)
			if len(rs) == 0 {
				t.Errorf("%s: nothing received of %d", peer, sent)
				continue
			}
			first := sinceStart(talker, rs)
			d := summarizeFrom(rs, sent)
			t.Logf("%s: first message %v after the talker was ready; %v", peer, first.Round(time.Millisecond), d)
			if d.Lost > 0 || d.Duplicated > 0 {
				t.Errorf("%s: %v", peer, d)
			}
			report(t, "discovery, 3 hosts, 1 LAN", peer, "none", &d, first)
		}
	}
}

// TestDDSSecondInterface: a host on two LANs announces itself by
// multicast on both; two hosts that share only their second LAN find each
// other; a host reachable only through the second LAN gets a Go talker's
// announcements from the start.
func TestDDSSecondInterface(t *testing.T) {
	t.Parallel()
	lab := hosts.New(t)
	lanA, lanB, lanC := lab.Network("lanA"), lab.Network("lanB"), lab.Network("lanC")
	robot := lab.Host("robot", lanA, lanB) // eth1 on lanB
	other := lab.Host("other", lanC, lanB) // shares only lanB with robot
	base := lab.Host("base", lanB)         // reachable only through robot's eth1
	env := rosEnv(ddsDomain)

	sniff := base.StartRole(t, "sniff", "-port", strconv.Itoa(spdpPort), "-if", base.Addr().String())
	sniff.Expect(t, "ready", 10*time.Second)
	goL := goNodeOn(t, other, "go_listener", env)
	goL.sub("/chatter", qos(true, 0))
	pyL := pyNodeOn(t, base, "py_listener", env)
	pyL.sub("/chatter", qos(true, 0))
	talker := goNodeOn(t, robot, "go_talker", env)
	sent := stream(talker, "/chatter", qos(true, 0), 50, 64, 50, 20*time.Second, goL, pyL)
	for _, c := range []struct {
		peer     string
		listener *node
	}{{"go on 2 LANs -> go sharing the 2nd", goL}, {"go on 2 LANs -> rclpy on the 2nd", pyL}} {
		rs := c.listener.received("/chatter")
		if len(rs) == 0 {
			t.Errorf("%s: nothing received of %d", c.peer, sent)
			continue
		}
		first := sinceStart(talker, rs)
		d := summarizeFrom(rs, sent)
		t.Logf("%s: first message %v after the talker was ready; %v", c.peer, first.Round(time.Millisecond), d)
		if d.Lost > 0 || d.Duplicated > 0 {
			t.Errorf("%s: %v", c.peer, d)
		}
		report(t, "second interface", c.peer, "none", &d, first)
	}
	robotB := robot.Link("eth1").Addr().String()
	n := 0
	for _, e := range sniff.Events() {
		var d struct{ From string }
		if e.Ev == "dgram" && e.Decode(&d) == nil {
			if host, _, _ := net.SplitHostPort(d.From); host == robotB {
				n++
			}
		}
	}
	if n == 0 {
		t.Errorf("no SPDP announcement from the robot's second interface (%s) on lanB", robotB)
	}
}
