package dds

import (
	"testing"

	"github.com/afor-go/afor/internal/netns"
	"github.com/afor-go/afor/transport/dds/internal/ddspeer"
)

// A reliable reader gets every sample written after the Go writer matched
// it, even when the writer writes before the reader's side has matched
// the writer (or seen a HEARTBEAT from it). A Cyclone DDS volatile reader
// drops data until its first HEARTBEAT from a writer of another vendor and
// takes everything up to that HEARTBEAT's last sequence number as history
// it does not want; the writer must not let it skip samples it owes it.
func TestInteropGoToPeerRightAfterMatch(t *testing.T) {
	netns.Require(t)
	const n = 50
	for _, pk := range peerKinds {
		t.Run(pk.name, func(t *testing.T) {
			d := nextDomain()
			ctx := waitCtx(t)
			p := goParticipant(t, d)
			peer := pk.start(t, ddspeer.Options{Role: ddspeer.Reader, Domain: d, Count: n, KeepAll: true})
			w, err := NewWriter(p, chatter, QoS{History: KeepAll})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.WaitMatched(ctx, 1); err != nil {
				t.Fatalf("no match with %s: %v", peer, err)
			}
			for i := range n { // no wait for the peer's side of the match
				if err := w.Write(ctx, cdrString(ddspeer.Payload(i, 0))); err != nil {
					t.Fatal(err)
				}
			}
			evs, err := peer.Samples(ctx, n)
			if err != nil {
				t.Fatal(err)
			}
			for i, ev := range evs {
				if !ev.OK || ev.I != i {
					t.Fatalf("sample %d: got %+v", i, ev)
				}
			}
		})
	}
}
