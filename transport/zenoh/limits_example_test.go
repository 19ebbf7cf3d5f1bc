package zenoh_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/afor-go/afor/transport/zenoh"
)

// A session exposed to untrusted nodes tightens the limits on what they
// can make it hold (a zero field keeps its default, a negative one lifts
// the limit), and Stats tells how often they were hit.
func ExampleLimits() {
	ctx := context.Background()
	s, err := zenoh.Open(ctx, zenoh.Config{
		Listen:         []string{"tcp/127.0.0.1:0"},
		MaxMessageSize: 1 << 20,
		Limits: zenoh.Limits{
			MaxLinks:        32,
			MaxLinksPerIP:   4,
			MaxPeerLease:    20 * time.Second,
			MaxDeclarations: 1000,
			MaxQueuedBytes:  -1, // no limit
			// Budgets shared by all links: the link holding the most pays.
			MaxSessionAliasBytes:   1 << 20,
			MaxSessionQueuedBytes:  16 << 20,
			MaxRelayedDeclarations: 500,
			MaxPendingQueries:      64,
			MaxQueryTimeout:        time.Minute,
			ReassemblyTimeout:      time.Second,
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	// A sample that receivers would drop for its size fails at once.
	err = s.Put(ctx, "big/blob", make([]byte, 1<<20))
	fmt.Println(errors.Is(err, zenoh.ErrTooLarge))
	st := s.Stats()
	fmt.Println(st.LinksRefused, st.LinksClosedForLimits, st.LinksEvicted, st.ClosedByRemote, st.ByLimit[zenoh.LimitLinksPerIP])
	// Output:
	// true
	// 0 0 0 0 0
}
