//go:build linux

package multihost_test

import (
	"slices"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/netns/hosts"
)

// TestROSAcrossHostsDDS: rclpy (Fast DDS) on one host, Go nodes on two
// others, default discovery: each sees the three nodes in its graph;
// topics go every way; Go calls rclpy's service and action and rclpy
// calls the Go ones.
func TestROSAcrossHostsDDS(t *testing.T) {
	t.Parallel()
	lab := hosts.New(t)
	lan := lab.Network("lan")
	h1, h2, h3 := lab.Host("h1", lan), lab.Host("h2", lan), lab.Host("h3", lan)
	env := rosEnv(ddsDomain)
	py := pyNodeOn(t, h1, "py_node", env)
	ga := goNodeOn(t, h2, "go_a", env)
	gb := goNodeOn(t, h3, "go_b", env)
	nodes := []*node{py, ga, gb}

	// TRANSIENT_LOCAL with the whole run in history: a writer starts once
	// its graph shows the subscriptions, which can be before the reader
	// matched it (a volatile writer's first samples then miss a Fast DDS
	// reader; one run in four lost up to 31 of 50).
	rel := map[string]any{"reliable": true, "depth": 50, "transient_local": true}
	for _, n := range nodes {
		for _, m := range nodes {
			if m != n {
				n.sub("/from_"+m.name, rel)
			}
		}
	}
	py.send(map[string]any{"op": "serve", "service": "/py_set"})
	py.send(map[string]any{"op": "action_server", "action": "/py_fibonacci"})
	ga.send(map[string]any{"op": "serve", "service": "/go_set"})
	ga.send(map[string]any{"op": "action_server", "action": "/go_fibonacci"})
	for _, n := range nodes {
		id := n.id()
		n.send(map[string]any{"op": "graph", "id": id, "nodes": []string{"/py_node", "/go_a", "/go_b"},
			"services": []string{"/py_set", "/go_set"}})
		var g struct{ Nodes []string }
		if err := n.Expect(t, "graph", 30*time.Second).Decode(&g); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s sees %v", n.Name, g.Nodes)
	}
	for _, n := range nodes {
		n.pub("/from_"+n.name, rel, 50, 50, 100, 2)
	}
	for _, n := range nodes {
		for _, m := range nodes {
			if m == n {
				continue
			}
			topic := "/from_" + m.name
			d := summarize(n.waitReceived(topic, 50, 5*time.Second, 30*time.Second), 50)
			if d.Lost > 0 || d.Duplicated > 0 {
				t.Errorf("%s -> %s: %v", m.Name, n.Name, d)
			}
			report(t, "ROS 2 topic, 3 hosts", m.kind+" -> "+n.kind, "none", &d, 0)
		}
	}
	for _, c := range []struct {
		caller          *node
		service, action string
	}{{ga, "/py_set", "/py_fibonacci"}, {gb, "/py_set", "/py_fibonacci"}, {py, "/go_set", "/go_fibonacci"}, {gb, "/go_set", "/go_fibonacci"}} {
		id := c.caller.id()
		c.caller.send(map[string]any{"op": "call", "id": id, "service": c.service, "n": 5})
		var called struct {
			OK  int
			RTT []int64
		}
		if err := c.caller.Expect(t, "called", 30*time.Second).Decode(&called); err != nil || called.OK != 5 {
			t.Errorf("%s -> %s: %d of 5 calls answered (%v)", c.caller.Name, c.service, called.OK, err)
		} else {
			slices.Sort(called.RTT)
			d := delivery{Sent: 5, Delivered: 5, P50: time.Duration(called.RTT[2]), P99: time.Duration(called.RTT[4])}
			report(t, "ROS 2 service call (round trip), 3 hosts", c.caller.kind+" -> "+c.service, "none", &d, 0)
		}
		id = c.caller.id()
		c.caller.send(map[string]any{"op": "goal", "id": id, "action": c.action, "order": 6})
		var res struct {
			Status   int
			Sequence []int
			Feedback int
		}
		if err := c.caller.Expect(t, "result", 30*time.Second).Decode(&res); err != nil || res.Status != 4 ||
			!slices.Equal(res.Sequence, []int{0, 1, 1, 2, 3, 5, 8}) || res.Feedback == 0 {
			t.Errorf("%s -> %s: result %+v (%v)", c.caller.Name, c.action, res, err)
		}
	}
}
