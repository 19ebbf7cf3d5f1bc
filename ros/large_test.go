package ros_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/sensor_msgs"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/transport/dds"
	"github.com/afor-go/afor/transport/zenoh"
)

// largeLink is a way to carry large messages between two nodes: the
// in-memory middleware, Zenoh within one session or across two over TCP
// loopback, and DDS across two participants.
type largeLink struct {
	name  string
	nodes func(t testing.TB) (pub, sub *ros.Node)
}

var largeLinks = []largeLink{
	{"mem", func(t testing.TB) (*ros.Node, *ros.Node) {
		net := ros.NewMemoryNetwork()
		return memNode(t, net, "camera"), memNode(t, net, "perception")
	}},
	{"zenoh-local", func(t testing.TB) (*ros.Node, *ros.Node) { return largeZenoh(t, true) }},
	{"zenoh-tcp", func(t testing.TB) (*ros.Node, *ros.Node) { return largeZenoh(t, false) }},
	{"dds", largeDDS},
}

// largeZenoh opens rmw_zenoh contexts as benchContexts does, closed with t.
func largeZenoh(t testing.TB, local bool) (pub, sub *ros.Node) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	quiet := ros.WithLogger(slog.New(slog.DiscardHandler))
	ca, err := ros.Open(ctx, ros.WithMiddleware(ros.Zenoh(zenoh.Config{Listen: []string{"tcp/127.0.0.1:0"}})), ros.WithDomainID(0), quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ca.Close() })
	cb := ca
	if !local {
		cb, err = ros.Open(ctx, ros.WithMiddleware(ros.Zenoh(zenoh.Config{Connect: ca.ListenAddrs()})), ros.WithDomainID(0), quiet)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cb.Close() })
	}
	if pub, err = ca.NewNode("camera"); err != nil {
		t.Fatal(err)
	}
	if sub, err = cb.NewNode("perception"); err != nil {
		t.Fatal(err)
	}
	return pub, sub
}

// largeDDS opens two DDS contexts on the loopback of the test namespace.
func largeDDS(t testing.TB) (pub, sub *ros.Node) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	mw := ros.WithMiddleware(ros.DDS(dds.Config{DomainID: 43, Range: dds.RangeLocalhost, NoMulticast: true}))
	quiet := ros.WithLogger(slog.New(slog.DiscardHandler))
	var nodes [2]*ros.Node
	for i, name := range []string{"camera", "perception"} {
		n, err := ros.NewNode(ctx, name, mw, quiet)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = n.Close() })
		nodes[i] = n
	}
	return nodes[0], nodes[1]
}

// largeImage returns a width x height image with bpp bytes per pixel, all
// of them fill.
func largeImage(width, height, bpp int, fill byte) *sensor_msgs.Image {
	img := &sensor_msgs.Image{
		Header: std_msgs.Header{FrameID: "camera"}, Height: uint32(height), Width: uint32(width),
		Encoding: "mono8", Step: uint32(width * bpp), Data: make([]byte, width*height*bpp),
	}
	if bpp == 3 {
		img.Encoding = "rgb8"
	}
	for i := range img.Data {
		img.Data[i] = fill
	}
	return img
}

// largePair is a publisher and a subscription of images on "image", with
// the route between them established.
func largePair(t testing.TB, l largeLink) (*ros.Publisher[sensor_msgs.Image, *sensor_msgs.Image], *afor.Sub[sensor_msgs.Image]) {
	a, b := l.nodes(t)
	qos := ros.QoSKeepLast(2)
	pub, err := ros.NewPublisher[sensor_msgs.Image](a, "image", qos)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := ros.Subscribe[sensor_msgs.Image](b, "image", qos)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sub.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := a.Graph().WaitForSubscriber(ctx, "/image"); err != nil {
		t.Fatal(err)
	}
	// A subscription is in the graph a little before the publisher's
	// side matched it on some middlewares: send until one arrives.
	probe := &sensor_msgs.Image{Encoding: "probe"}
	for {
		w := sub.ArmNext(ctx)
		if err := pub.Publish(ctx, probe); err != nil {
			t.Fatal(err)
		}
		wctx, wcancel := context.WithTimeout(ctx, 100*time.Millisecond)
		_, err := w.Wait(wctx)
		wcancel()
		if err == nil {
			return pub, sub
		}
		if ctx.Err() != nil {
			t.Fatal("no route from publisher to subscription")
		}
	}
}

// sendImage publishes img and waits for it on sub.
func sendImage(ctx context.Context, pub *ros.Publisher[sensor_msgs.Image, *sensor_msgs.Image], sub *afor.Sub[sensor_msgs.Image], img *sensor_msgs.Image) (sensor_msgs.Image, error) {
	w := sub.ArmNext(ctx)
	if err := pub.Publish(ctx, img); err != nil {
		return sensor_msgs.Image{}, err
	}
	return w.Wait(ctx)
}

// TestLargeKeptMessagesStayIntact checks the ownership rule of received
// messages: a message kept while more arrive is never written again, on
// any middleware, whether its Data aliases the received buffer (Zenoh,
// DDS) or is a copy (in memory, where the publisher reuses its buffer).
// Under -race, a middleware that recycled a buffer it handed out would
// also be reported as a race with the reads here.
func TestLargeKeptMessagesStayIntact(t *testing.T) {
	for _, l := range largeLinks {
		t.Run(l.name, func(t *testing.T) {
			pub, sub := largePair(t, l)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			var kept []sensor_msgs.Image
			for fill := range byte(4) {
				// 1 MB: fragmented by every networked middleware.
				m, err := sendImage(ctx, pub, sub, largeImage(1024, 1024, 1, fill))
				if err != nil {
					t.Fatal(err)
				}
				kept = append(kept, m)
			}
			for fill, m := range kept {
				if len(m.Data) != 1<<20 {
					t.Fatalf("image %d: %d bytes", fill, len(m.Data))
				}
				for i, b := range m.Data {
					if b != byte(fill) {
						t.Fatalf("image %d changed after delivery: byte %d is %d", fill, i, b)
					}
				}
			}
			// Writing into a received message (after cloning, as the rule
			// says, or not) touches no other message.
			kept[0].Data[0] = 0xff
			if kept[1].Data[0] != 1 {
				t.Fatal("writing one message changed another")
			}
		})
	}
}

// BenchmarkLargeImage publishes a camera image and waits for it on a
// subscription (one in flight), for 1280x720 mono8 (0.9 MB) and 1920x1080
// rgb8 (6.2 MB) images on each largeLink. B/op is what both sides together
// allocate per image: with the publisher reusing its buffer, the floor is
// one payload (the receiving buffer) on networked middlewares, where the
// decoded Data aliases it, and one on the in-memory one, where the
// subscription copies the publisher's reused buffer. The copy row is the
// primitive: copying the image's bytes once.
//
//	go test -run XXX -bench LargeImage -benchmem ./ros
func BenchmarkLargeImage(b *testing.B) {
	sizes := []struct {
		name               string
		width, height, bpp int
	}{{"mono8-0.9MB", 1280, 720, 1}, {"rgb8-6.2MB", 1920, 1080, 3}}
	for _, size := range sizes {
		img := largeImage(size.width, size.height, size.bpp, 7)
		b.Run(size.name+"/copy", func(b *testing.B) {
			dst := make([]byte, len(img.Data))
			b.SetBytes(int64(len(img.Data)))
			for b.Loop() {
				copy(dst, img.Data)
			}
		})
		for _, l := range largeLinks {
			b.Run(fmt.Sprintf("%s/%s", size.name, l.name), func(b *testing.B) {
				pub, sub := largePair(b, l)
				ctx := context.Background()
				b.SetBytes(int64(len(img.Data)))
				b.ReportAllocs()
				for b.Loop() {
					m, err := sendImage(ctx, pub, sub, img)
					if err != nil || len(m.Data) != len(img.Data) {
						b.Fatalf("image of %d bytes: %v", len(m.Data), err)
					}
				}
			})
		}
	}
}

// Publishing a large image encodes it into the publisher's buffer, which
// is reused: in the steady state nothing is allocated.
func TestLargePublishDoesNotAllocate(t *testing.T) {
	n := memNode(t, ros.NewMemoryNetwork(), "camera")
	pub, err := ros.NewPublisher[sensor_msgs.Image](n, "image", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	img := largeImage(1280, 720, 1, 7)
	if err := pub.Publish(ctx, img); err != nil { // sizes the buffer
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(10, func() { _ = pub.Publish(ctx, img) }); a != 0 {
		t.Errorf("publishing a 0.9 MB image allocates %v times", a)
	}
}
