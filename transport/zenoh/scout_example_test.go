package zenoh_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/afor-go/afor/transport/zenoh"
)

// Scout lists the Zenoh peers and routers that answer within two seconds,
// like zenoh.scout in Python. (No output is checked: what answers depends
// on the network.)
func ExampleScout() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	cfg := zenoh.ScoutingConfig{Interface: "lo"} // group 224.0.0.224:7446
	for h, err := range zenoh.Scout(ctx, cfg, zenoh.RolePeer, zenoh.RoleRouter) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(h.Role, h.ZID, h.Locators)
	}
}

// Two peers on one host find each other by multicast scouting, with no
// Connect endpoint: each listens on an ephemeral port of the loopback
// interface and announces it in its HELLOs. (No output is checked: the
// example needs multicast on the loopback interface.)
func ExampleScoutingConfig() {
	ctx := context.Background()
	cfg := zenoh.Config{Scouting: zenoh.ScoutingConfig{Multicast: true, Interface: "lo"}}
	a, err := zenoh.Open(ctx, cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	b, err := zenoh.Open(ctx, cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := b.WaitConnected(wctx); err != nil {
		log.Fatal(err)
	}
	fmt.Println("linked to", a.ZID())
}
