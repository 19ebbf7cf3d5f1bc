//go:build linux

package multihost_test

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/transport/dds"
)

// probeCommand asks the probe role (and rclpy_probe.py) for a node of its
// own, in a domain of its own, with a discovery range and static peers.
type probeCommand struct {
	ID     string   `json:"id"`
	Domain int      `json:"domain"`
	Range  string   `json:"range"`
	Peers  []string `json:"peers"`
}

// probeRole runs one ROS 2 node on DDS per command line (a probeCommand),
// named probe_<side>_<id> (its one argument is the side, a or b), and
// reports {"ev":"found","id":I,"node":N,"t":ns} when
// another node shows in its graph, {"ev":"started","id":I} once the node
// runs. It is how the tests check ROS_AUTOMATIC_DISCOVERY_RANGE and
// ROS_STATIC_PEERS: many pairs of nodes, each pair in its own domain.
func probeRole(args []string) int {
	out := newEmitter(os.Stdout)
	side := "a"
	if len(args) > 0 {
		side = args[0]
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var mu sync.Mutex
	var nodes []*ros.Node
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		var c probeCommand
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			out.errorf("probe %q: %v", sc.Text(), err)
			continue
		}
		env := map[string]string{"ROS_AUTOMATIC_DISCOVERY_RANGE": c.Range}
		cfg := dds.Config{DomainID: c.Domain, ExactDomain: true, StaticPeers: c.Peers, Getenv: func(k string) string { return env[k] }}
		if c.Peers == nil {
			cfg.StaticPeers = []string{}
		}
		if os.Getenv("AFOR_PROBE_DEBUG") != "" {
			cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
		}
		node, err := ros.NewNode(ctx, "probe_"+side+"_"+c.ID, ros.WithMiddleware(ros.DDS(cfg)))
		if err != nil {
			out.errorf("probe %s: %v", c.ID, err)
			continue
		}
		mu.Lock()
		nodes = append(nodes, node)
		mu.Unlock()
		out.emit(map[string]any{"ev": "started", "id": c.ID})
		self := node.FullyQualifiedName()
		wg.Go(func() {
			g, err := node.Graph().WaitFor(ctx, func(g *ros.GraphSnapshot) bool {
				for _, ni := range g.Nodes {
					if ni.FullyQualifiedName() != self {
						return true
					}
				}
				return false
			})
			if err != nil {
				return
			}
			for _, ni := range g.Nodes {
				if ni.FullyQualifiedName() != self {
					out.emit(map[string]any{"ev": "found", "id": c.ID, "node": ni.FullyQualifiedName(), "t": time.Now().UnixNano()})
					return
				}
			}
		})
	}
	cancel()
	mu.Lock()
	for _, n := range nodes {
		n.Close()
	}
	mu.Unlock()
	wg.Wait()
	return 0
}
