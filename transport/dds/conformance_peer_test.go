package dds

import (
	"context"
	"fmt"
	"testing"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/afortest"
	"github.com/afor-go/afor/internal/netns"
	"github.com/afor-go/afor/transport/dds/internal/ddspeer"
)

// relayPair returns the afortest factory for a Go writer and a Go reader
// with a real peer between them: the Go writer writes topic IN, the peer
// (a relay) reads IN and writes every sample unchanged to OUT, which the Go
// reader reads. Every value the conformance suite checks has crossed the
// peer twice, so the suite holds for Go with that peer on both sides.
func relayPair(start func(testing.TB, ddspeer.Options) *ddspeer.Peer) func(t *testing.T) (func(context.Context, string) error, *afor.Sub[string]) {
	return func(t *testing.T) (func(context.Context, string) error, *afor.Sub[string]) {
		d := nextDomain()
		ctx := waitCtx(t)
		p := goParticipant(t, d)
		n := conformanceTopic.Add(1)
		in := Topic{Name: fmt.Sprintf("rt/conformance_%d_in", n), TypeName: chatter.TypeName}
		out := Topic{Name: fmt.Sprintf("rt/conformance_%d_out", n), TypeName: chatter.TypeName}
		// KEEP_ALL everywhere: the suite publishes bursts that a KEEP_LAST
		// relay could overwrite before it took them.
		q := QoS{History: KeepAll}
		peer := start(t, ddspeer.Options{Role: ddspeer.Relay, Topic: in.Name, OutTopic: out.Name, KeepAll: true, Domain: d})
		r, sub, err := NewCodecReader(p, out, q, afor.Codec[string](stringCodec{}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(sub.Close)
		w, err := NewTypedWriter(p, in, q, afor.Codec[string](stringCodec{}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close() })
		// Both of the relay's endpoints and both of ours must have matched
		// before the first sample, or a VOLATILE hop drops it.
		sides := map[string]bool{}
		for len(sides) < 2 {
			ev, err := peer.WaitEvent(ctx, ddspeer.EvMatched)
			if err != nil {
				t.Fatalf("relay matched: %v", err)
			}
			if ev.Count >= 1 {
				sides[ev.Side] = true
			}
		}
		if err := w.Writer().WaitMatched(ctx, 1); err != nil {
			t.Fatalf("writer WaitMatched: %v", err)
		}
		if err := r.WaitMatched(ctx, 1); err != nil {
			t.Fatalf("reader WaitMatched: %v", err)
		}
		return w.Write, sub
	}
}

// TestPubSubConformanceThroughPeer runs afortest.RunPubSub between Go
// endpoints with each Python reference peer relaying every sample: Cyclone
// DDS (the cyclonedds package) and rclpy on Fast DDS.
func TestPubSubConformanceThroughPeer(t *testing.T) {
	netns.Require(t)
	for _, pk := range []peerKind{{"cyclone-py", ddspeer.Cyclone}, {"rclpy", ddspeer.Rclpy}} {
		t.Run(pk.name, func(t *testing.T) {
			afortest.RunPubSub(t, afortest.PubSub{New: relayPair(pk.start)})
		})
	}
}
