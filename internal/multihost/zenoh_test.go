//go:build linux

package multihost_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/netns/hosts"
	"github.com/afor-go/afor/internal/peers"
)

// zenohPort is the port of the labs' Zenoh routers.
const zenohPort = 7447

// startRouter runs testdata/zenoh_router.py on h, listening on its port
// 7447, scouting on the LAN.
func startRouter(t *testing.T, h *hosts.Host) *hosts.Proc {
	t.Helper()
	py := peers.Python(t, "zenoh")
	script, err := filepath.Abs(filepath.Join("testdata", "zenoh_router.py"))
	if err != nil {
		t.Fatal(err)
	}
	p := h.Start(t, "zenoh-router", h.Command(py, "-u", script, "--listen", fmt.Sprintf("tcp/0.0.0.0:%d", zenohPort), "--scout"))
	p.Expect(t, "ready", 30*time.Second)
	return p
}

// TestZenohAcrossHosts: ROS 2 nodes in Go on rmw_zenoh's conventions, on
// three hosts around a Rust router on a fourth: a peer that connects to
// the router (and, told of the others by its gossip, links to them
// directly), a client of the router, and a peer that finds the others by
// multicast scouting alone. Topics, a service, an action and the graph
// work between all of them; when the router restarts the peers keep
// talking over their direct links and the client comes back; when a link
// breaks for 10 s its node comes back after it.
func TestZenohAcrossHosts(t *testing.T) {
	t.Parallel()
	skipShort(t)
	lab := hosts.New(t)
	lan := lab.Network("lan")
	hr, h2, h3, h4 := lab.Host("router", lan), lab.Host("h2", lan), lab.Host("h3", lan), lab.Host("h4", lan)
	router := startRouter(t, hr)
	ep := fmt.Sprintf("tcp/%s:%d", hr.Addr(), zenohPort)
	env := rosEnv(ddsDomain)
	peer := goNodeOn(t, h2, "talker", env, "-mw", "zenoh", "-connect", ep, "-listen", "tcp/0.0.0.0:0")
	client := goNodeOn(t, h3, "client", env, "-mw", "zenoh", "-mode", "client", "-connect", ep)
	scout := goNodeOn(t, h4, "scout", env, "-mw", "zenoh", "-scout")

	rel := qos(true, 10)
	client.sub("/chatter", rel)
	scout.sub("/chatter", rel)
	peer.send(map[string]any{"op": "serve", "service": "/set"})
	peer.send(map[string]any{"op": "action_server", "action": "/fibonacci"})
	all := []string{"/talker", "/client", "/scout"}
	for _, n := range []*node{peer, client, scout} {
		id := n.id()
		n.send(map[string]any{"op": "graph", "id": id, "nodes": all, "services": []string{"/set"}})
		n.Expect(t, "graph", 30*time.Second)
	}
	// Topics: everything reaches the client and the scouting peer.
	pubID := peer.pub("/chatter", rel, -1, 20, 100, 2)
	for _, l := range []*node{client, scout} {
		if rs := l.waitReceived("/chatter", 20, 10*time.Second, 30*time.Second); distinctSeqs(rs) < 20 {
			t.Fatalf("%s: %d messages", l.Name, distinctSeqs(rs))
		}
	}
	// A service and an action, from the client and the scouting peer.
	for _, n := range []*node{client, scout} {
		id := n.id()
		n.send(map[string]any{"op": "call", "id": id, "service": "/set", "n": 5})
		var called struct{ OK int }
		if err := n.Expect(t, "called", 30*time.Second).Decode(&called); err != nil || called.OK != 5 {
			t.Errorf("%s: %d of 5 calls answered (%v)", n.Name, called.OK, err)
		}
		id = n.id()
		n.send(map[string]any{"op": "goal", "id": id, "action": "/fibonacci", "order": 6})
		var res struct {
			Status   int
			Sequence []int
			Feedback int
		}
		if err := n.Expect(t, "result", 30*time.Second).Decode(&res); err != nil || res.Status != 4 ||
			!slices.Equal(res.Sequence, []int{0, 1, 1, 2, 3, 5, 8}) || res.Feedback == 0 {
			t.Errorf("%s: action result %+v (%v)", n.Name, res, err)
		}
	}

	// The router restarts: the peers keep their direct link, the client
	// has nothing until the router is back.
	router.Kill()
	down := time.Now()
	time.Sleep(2 * time.Second)
	n0 := len(scout.received("/chatter"))
	time.Sleep(2 * time.Second)
	if n := len(scout.received("/chatter")) - n0; n == 0 {
		t.Errorf("the scouting peer got nothing from the other peer while the router was down")
	} else {
		t.Logf("while the router was down the scouting peer got %d messages over its direct link", n)
	}
	nc := len(client.received("/chatter"))
	startRouter(t, hr)
	up := time.Now()
	if first := client.firstAfter("/chatter", nc, up, 30*time.Second); first == 0 {
		t.Errorf("the client got nothing in 30 s after the router restarted")
	} else {
		t.Logf("the client got its first message %v after the router was back (%v after it went down)", first.Round(time.Millisecond), time.Since(down).Round(time.Millisecond))
		report(t, "zenoh: router restart", "go client via rust router", fmt.Sprintf("router down %v", up.Sub(down).Round(time.Second)), nil, first)
	}

	// The client's and the scouting peer's links break for 10 s.
	cut := []*node{client, scout}
	before := make([]int, len(cut))
	for i, n := range cut {
		before[i] = len(n.received("/chatter"))
		n.host.Link("eth0").Cut(true)
	}
	time.Sleep(outage)
	for _, n := range cut {
		n.host.Link("eth0").Cut(false)
	}
	back := time.Now()
	firsts := firstAfterAll(cut, []string{"/chatter", "/chatter"}, before, back, 40*time.Second)
	for i, n := range cut {
		t.Logf("%s: first message %v after its link came back", n.Name, firsts[i].Round(time.Millisecond))
		report(t, "zenoh: link cut", "go "+[]string{"client via rust router", "peer (scouted) <- go peer"}[i], fmt.Sprintf("%v outage", outage), nil, firsts[i])
		if firsts[i] == 0 {
			t.Errorf("%s: nothing in 40 s after its link came back", n.Name)
		}
	}
	peer.send(map[string]any{"op": "stop", "id": pubID})
}
