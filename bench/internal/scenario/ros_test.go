package scenario

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/transport/zenoh"
)

// openROSMixed links a ROS side (mode afor) and a bare Zenoh side (the
// native mode's) over TCP on 127.0.0.1, in one namespace.
func openROSMixed(t *testing.T, ctx context.Context, size int) (rosSide, native Peer, node *ros.Node) {
	t.Helper()
	ns := rosNamespace()
	r, err := openROSEnd(ctx, ModeAfor, zenoh.Config{Listen: []string{"tcp/127.0.0.1:0"}}, "bench_a", ns)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.close() })
	z, err := openROSEnd(ctx, ModeNative, zenoh.Config{Connect: r.listenAddrs()}, "", ns)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = z.close() })
	return r.peer(ns, size), z.peer(ns, size), r.node
}

// The native rows run on what the ROS layer runs on: the native side's
// publications reach a ROS subscription (so its keys, payloads and
// attachments are rmw_zenoh's), and a native callback receives the ROS
// publisher's messages.
func TestROSNativeSameTopics(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	const size = 100
	r, n, node := openROSMixed(t, ctx, size)

	sub, err := r.Subscribe("hello")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	next := sub.Listener(ctx)
	pub, err := n.Publisher(ctx, "hello")
	if err != nil {
		t.Fatal(err)
	}
	for i := range uint64(3) {
		if err := pub(ctx, Msg{Seq: i, Stamp: int64(10 * i)}); err != nil {
			t.Fatal(err)
		}
		m, err := next.Next(ctx)
		if err != nil || m.Seq != i || m.Stamp != int64(10*i) {
			t.Fatalf("ROS subscription got %+v, %v; want message %d", m, err, i)
		}
	}

	got := make(chan Msg, 3)
	stop, err := n.Callback("world", func(m Msg) { got <- m })
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	// The bare subscriber has no token in the graph for the ROS publisher
	// to wait for: publish until it is reached.
	rpub, err := ros.NewPublisher[Msg](node, "world", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if err := rpub.Publish(ctx, &Msg{Seq: 42, Body: padding(size)}); err != nil {
			t.Fatal(err)
		}
		select {
		case m := <-got:
			if m.Seq != 42 {
				t.Fatalf("native callback got %+v", m)
			}
			return
		case <-tick.C:
		case <-ctx.Done():
			t.Fatal("the native callback got nothing from the ROS publisher")
		}
	}
}

// Likewise for services: a ROS client calls the native queryable, the
// native querier calls a ROS server, and replies have the requested size.
func TestROSNativeSameService(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	const size = 100
	r, n, _ := openROSMixed(t, ctx, size)

	stopN, err := RequestResponder(n, ModeNative, size)
	if err != nil {
		t.Fatal(err)
	}
	cli, err := r.Client(reqKey)
	if err != nil {
		t.Fatal(err)
	}
	// The bare queryable has no token in the graph for WaitForServer: call
	// until it is reached.
	for {
		res, err := cli.Call(ctx, Msg{Seq: 7, Body: padding(size)})
		if errors.Is(err, afor.ErrNoServer) && ctx.Err() == nil {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		if err != nil || res.Seq != 8 {
			t.Fatalf("ROS client to native queryable: %+v, %v", res, err)
		}
		break
	}
	if err := stopN(); err != nil {
		t.Fatal(err)
	}

	stopR, err := RequestResponder(r, ModeAfor, size)
	if err != nil {
		t.Fatal(err)
	}
	defer stopR()
	call, err := n.Querier(ctx, reqKey)
	if err != nil {
		t.Fatal(err)
	}
	for i := uint64(1); i <= 3; i++ {
		if res, err := call(ctx, Msg{Seq: 2 * i}); err != nil || res.Seq != 2*i+1 {
			t.Fatalf("native querier to ROS server: %+v, %v", res, err)
		}
	}
}

// A ROS payload padded to the size decodes as the UInt8MultiArray of that
// many bytes.
func TestROSPayloadSize(t *testing.T) {
	for _, size := range []int{0, HeaderSize, 64, 1000} {
		b, err := (&Msg{Seq: 1, Body: padding(size)}).AppendCDR(nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := rosHeaderOffset + max(size, HeaderSize); len(b) != want {
			t.Errorf("size %d: %d bytes of CDR, want %d", size, len(b), want)
		}
	}
}
