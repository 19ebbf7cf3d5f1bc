package zenoh_test

import (
	"context"
	"fmt"
	"log"

	"github.com/afor-go/afor/transport/zenoh"
)

// A publisher whose samples must not be lost to a slow subscriber blocks
// instead of dropping (as rmw_zenoh does for KEEP_ALL publishers), here
// with a high priority, sent at once rather than batched.
func ExampleWithCongestionControl() {
	ctx := context.Background()
	a, err := zenoh.Open(ctx, zenoh.Config{Listen: []string{"tcp/127.0.0.1:0"}})
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	b, err := zenoh.Open(ctx, zenoh.Config{Connect: a.ListenAddrs()})
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	got := make(chan zenoh.Sample, 1)
	if _, err := b.DeclareSubscriber("cmd/**", func(s zenoh.Sample) { got <- s }); err != nil {
		log.Fatal(err)
	}
	pub, err := a.DeclarePublisher("cmd/stop",
		zenoh.WithCongestionControl(zenoh.CongestionBlock),
		zenoh.WithPriority(zenoh.PriorityRealTime),
		zenoh.WithExpress(true))
	if err != nil {
		log.Fatal(err)
	}
	if err := pub.WaitMatching(ctx); err != nil {
		log.Fatal(err)
	}
	// Put waits for room, within ctx, if the link's queue is full.
	if err := pub.Put(ctx, []byte("now")); err != nil {
		log.Fatal(err)
	}
	s := <-got
	fmt.Println(s.KeyExpr, string(s.Payload), pub.Dropped())
	// Output: cmd/stop now 0
}

// Peers configured as rmw_zenoh configures its sessions: each connects
// only to the router and listens on an ephemeral port; gossip, through the
// router, makes them link directly, the peer with the greater ZID dialling.
func ExampleGossipConfig() {
	cfg := zenoh.Config{
		Connect: []string{"tcp/localhost:7447"}, // the router
		Listen:  []string{"tcp/localhost:0"},
		Gossip: zenoh.GossipConfig{
			Target:      []zenoh.Role{zenoh.RoleRouter},
			Autoconnect: []zenoh.Role{zenoh.RoleRouter, zenoh.RolePeer},
			ToPeer:      zenoh.AutoconnectGreaterZID,
		},
	}
	fmt.Println(cfg.Gossip.ToPeer)
	// Output: greater-zid
}
