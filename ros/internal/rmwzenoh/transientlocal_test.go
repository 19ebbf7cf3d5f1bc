package rmwzenoh

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/afor-go/afor/ros/internal/rmw"
)

// collect returns a deliver function that sends copies of messages to the
// returned channel.
func collect() (func(rmw.Message), chan rmw.Message) {
	ch := make(chan rmw.Message, 64)
	return func(m rmw.Message) { m.Payload = bytes.Clone(m.Payload); ch <- m }, ch
}

// expect receives the messages with payloads want, in order.
func expect(t *testing.T, ctx context.Context, ch chan rmw.Message, want ...string) []rmw.Message {
	t.Helper()
	var out []rmw.Message
	for _, w := range want {
		select {
		case m := <-ch:
			if string(m.Payload) != w {
				t.Fatalf("got %q, want %q", m.Payload, w)
			}
			out = append(out, m)
		case <-ctx.Done():
			t.Fatalf("%q not received", w)
		}
	}
	return out
}

func TestTransientLocalLateJoiner(t *testing.T) {
	a, b := pair(t)
	ctx := testCtx(t)
	tl := rmw.QoS{History: rmw.HistoryKeepLast, Depth: 2, Durability: rmw.DurabilityTransientLocal}
	pub, err := mustNode(t, a, "/", "latched_pub").CreatePublisher("/latched", stringType, tl)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := pub.Publish(ctx, fmt.Appendf(nil, "latched %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	nb := mustNode(t, b, "/", "latched_sub")
	// The publisher's cache token must be known before the late joiner
	// queries: wait for its rmw token, declared after it on the same link.
	waitGraph(t, b, "publisher", hasEndpoint(rmw.KindPublisher, "/latched", pub.GID()))

	deliver, got := collect()
	sub, err := nb.CreateSubscription("/latched", stringType, rmw.QoS{Depth: 5, Durability: rmw.DurabilityTransientLocal}, deliver)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	// The last depth (2) samples, once each, with their original info.
	ms := expect(t, ctx, got, "latched 1", "latched 2")
	if ms[0].Info.Sequence != 2 || ms[1].Info.Sequence != 3 || ms[0].Info.PublisherGID != pub.GID() {
		t.Fatalf("history info %+v %+v", ms[0].Info, ms[1].Info)
	}
	// Then live samples.
	if err := pub.(*publisher).pub.WaitMatching(ctx); err != nil {
		t.Fatal(err)
	}
	if err := pub.Publish(ctx, []byte("latched 3 live")); err != nil {
		t.Fatal(err)
	}
	expect(t, ctx, got, "latched 3 live")

	// A volatile late subscriber gets live samples only.
	vdeliver, vgot := collect()
	vsub, err := nb.CreateSubscription("/latched", stringType, depth10, vdeliver)
	if err != nil {
		t.Fatal(err)
	}
	defer vsub.Close()
	waitGraph(t, a, "volatile subscriber", hasEndpoint(rmw.KindSubscription, "/latched", vsub.GID()))
	if err := pub.Publish(ctx, []byte("latched 4 live")); err != nil {
		t.Fatal(err)
	}
	expect(t, ctx, vgot, "latched 4 live")
	expect(t, ctx, got, "latched 4 live")
	if len(got) != 0 {
		t.Fatalf("%d more deliveries (duplicates)", len(got))
	}
}

// A transient-local publisher that appears after the subscription is
// queried when its token shows up.
func TestTransientLocalLatePublisher(t *testing.T) {
	a, b := pair(t)
	ctx := testCtx(t)
	tl := rmw.QoS{Depth: 5, Durability: rmw.DurabilityTransientLocal}
	deliver, got := collect()
	sub, err := mustNode(t, b, "/", "sub").CreateSubscription("/latched", stringType, tl, deliver)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	// The publisher publishes before it knows of the subscription: the
	// sample reaches the subscription through the history query that its
	// token triggers, or live, but once.
	pub, err := mustNode(t, a, "/", "pub").CreatePublisher("/latched", stringType, tl)
	if err != nil {
		t.Fatal(err)
	}
	if err := pub.Publish(ctx, []byte("early")); err != nil {
		t.Fatal(err)
	}
	expect(t, ctx, got, "early")
	// A copy of "early" from history arriving later is dropped by its
	// sequence number: the next delivery is the next sample.
	if err := pub.(*publisher).pub.WaitMatching(ctx); err != nil {
		t.Fatal(err)
	}
	if err := pub.Publish(ctx, []byte("second")); err != nil {
		t.Fatal(err)
	}
	expect(t, ctx, got, "second")
	if len(got) != 0 {
		t.Fatalf("%d more deliveries (duplicates)", len(got))
	}
}

func TestCacheAnswersHonourMax(t *testing.T) {
	if n, sn := maxSamples("_max=5;_anyke"); n != 5 || sn {
		t.Fatalf("maxSamples = %d %v", n, sn)
	}
	if n, sn := maxSamples("_sn=3..;_anyke"); n != 0 || !sn {
		t.Fatalf("maxSamples = %d %v", n, sn)
	}
	if got := advPubKey("0/latched/T/H", "59cf"); got != "0/latched/T/H/@adv/pub/59cf/uhlc/_" {
		t.Fatalf("advPubKey = %q", got)
	}
	if got := historySelector("0/latched/T/H/@adv/**", 5); got != "0/latched/T/H/@adv/**?_max=5;_anyke" {
		t.Fatalf("historySelector = %q", got)
	}
}
