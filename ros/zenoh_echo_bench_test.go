package ros_test

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"log/slog"
	"testing"
	"time"

	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/transport/zenoh"
)

// BenchmarkZenohEchoLayers times one echo (a std_msgs/String "hello world"
// sent on ping and answered on pong, one in flight) at three levels, in one
// run, and reports ns/hop (half a round trip). Over tcp, the two sides are
// two Zenoh sessions of this process linked over TCP on 127.0.0.1; over
// local, they share one session, which delivers without a socket, so what
// the layers cost stands out from the noise of the system calls. The
// levels:
//
//   - raw_zenoh: the Zenoh underneath, no ROS layer: subscriber callbacks
//     decode the CDR and answer with Put, on rmw_zenoh's keys with the same
//     bytes as the ROS layer sends (payload, 33-byte attachment, timestamp);
//   - ros_callback: the ROS layer (ros.NewPublisher, ros.Subscribe over
//     ros.Zenoh), answering from the sub's OnInput callback, so without a
//     goroutine hand-off, as raw_zenoh;
//   - ros_listen: the ROS layer used as a node is written, a ListenReliable
//     loop answering and the caller waiting with a Listener.
//
// ros_callback minus raw_zenoh is what the ROS layer costs per hop (the
// issue's target: within 1 µs); ros_listen adds afor's hand-off to the
// goroutines of the loops. bench/ has the same comparison across processes
// (go run ./bench -transports ros-zenoh-tcp,ros-zenoh-proc).
func BenchmarkZenohEchoLayers(b *testing.B) {
	for _, link := range []string{"tcp", "local"} {
		local := link == "local"
		b.Run(link+"/raw_zenoh", func(b *testing.B) { benchRawZenohEcho(b, local) })
		b.Run(link+"/ros_callback", func(b *testing.B) { a, e := benchContexts(b, local); benchROSEcho(b, a, e, false) })
		b.Run(link+"/ros_listen", func(b *testing.B) { a, e := benchContexts(b, local); benchROSEcho(b, a, e, true) })
	}
}

const echoData = "hello world"

// reportHops reports the time per hop of b.N round trips.
func reportHops(b *testing.B) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/hop")
}

// benchContexts opens two ROS contexts on rmw_zenoh, the second connected
// to the first over TCP loopback, and a node on each; or, local, one
// context and both nodes on it.
func benchContexts(b *testing.B, local bool) (a, e *ros.Node) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	quiet := ros.WithLogger(slog.New(slog.DiscardHandler))
	ca, err := ros.Open(ctx, ros.WithMiddleware(ros.Zenoh(zenoh.Config{Listen: []string{"tcp/127.0.0.1:0"}})), ros.WithDomainID(0), quiet)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = ca.Close() })
	ce := ca
	if !local {
		ce, err = ros.Open(ctx, ros.WithMiddleware(ros.Zenoh(zenoh.Config{Connect: ca.ListenAddrs()})), ros.WithDomainID(0), quiet)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = ce.Close() })
	}
	if a, err = ca.NewNode("ping"); err != nil {
		b.Fatal(err)
	}
	if e, err = ce.NewNode("echo"); err != nil {
		b.Fatal(err)
	}
	return a, e
}

// benchROSEcho times echoes from node a to node e and back over the ROS
// layer, on any middleware: answering from OnInput callbacks or, listen,
// from a ListenReliable loop, with the caller waiting with a Listener.
func benchROSEcho(b *testing.B, a, e *ros.Node, listen bool) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pingPub, err := ros.NewPublisher[std_msgs.String](a, "/ping", ros.QoSDefault)
	if err != nil {
		b.Fatal(err)
	}
	pongPub, err := ros.NewPublisher[std_msgs.String](e, "/pong", ros.QoSDefault)
	if err != nil {
		b.Fatal(err)
	}
	pingSub, err := ros.Subscribe[std_msgs.String](e, "/ping", ros.QoSDefault)
	if err != nil {
		b.Fatal(err)
	}
	pongSub, err := ros.Subscribe[std_msgs.String](a, "/pong", ros.QoSDefault)
	if err != nil {
		b.Fatal(err)
	}
	// The graph shows a subscription once its token came, which follows
	// the subscriber's declaration on the link: the routes are known.
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	defer wcancel()
	if err := a.Graph().WaitForSubscriber(wctx, "/ping"); err != nil {
		b.Fatal(err)
	}
	if err := e.Graph().WaitForSubscriber(wctx, "/pong"); err != nil {
		b.Fatal(err)
	}

	var next func() (std_msgs.String, error)
	done := make(chan struct{})
	if listen {
		go func() {
			defer close(done)
			var out std_msgs.String
			for m := range pingSub.ListenReliable(ctx) {
				out = m
				if pongPub.Publish(ctx, &out) != nil {
					return
				}
			}
		}()
		l := pongSub.Listener(ctx)
		next = func() (std_msgs.String, error) { return l.Next(ctx) }
	} else {
		close(done)
		var out std_msgs.String // used by the delivering goroutine only
		pingSub.OnInput(func(m std_msgs.String) {
			out = m
			_ = pongPub.Publish(ctx, &out)
		})
		got := make(chan std_msgs.String, 1)
		pongSub.OnInput(func(m std_msgs.String) { got <- m })
		next = func() (std_msgs.String, error) {
			select {
			case m := <-got:
				return m, nil
			case <-ctx.Done():
				return std_msgs.String{}, ctx.Err()
			}
		}
	}
	// Over DDS, the first round trip may wait for the far reader to match
	// the writer.
	in := std_msgs.String{Data: echoData}
	b.ReportAllocs()
	for b.Loop() {
		if err := pingPub.Publish(ctx, &in); err != nil {
			b.Fatal(err)
		}
		if m, err := next(); err != nil || m.Data != echoData {
			b.Fatalf("echo: %q, %v", m.Data, err)
		}
	}
	reportHops(b)
	cancel()
	<-done
}

// rawEnd is a bare Zenoh session publishing and receiving std_msgs/String
// as rmw_zenoh does.
type rawEnd struct {
	s    *zenoh.Session
	pub  *zenoh.Publisher
	buf  []byte // the payload, reused
	att  []byte // rmw_zenoh's attachment, rewritten per sample
	opt  zenoh.PutOption
	seq  int64
	recv std_msgs.String // decoded into, by the session's goroutine
}

// rawKey is rmw_zenoh's key of a std_msgs/String topic in domain 0.
func rawKey(topic string) string {
	var m std_msgs.String
	return "0/" + topic + "/" + m.DDSTypeName() + "/" + m.TypeHash()
}

func newRawEnd(b *testing.B, s *zenoh.Session, topic string) *rawEnd {
	pub, err := s.DeclarePublisher(rawKey(topic))
	if err != nil {
		b.Fatal(err)
	}
	r := &rawEnd{s: s, pub: pub, att: make([]byte, 33)}
	r.att[16] = 16
	_, _ = rand.Read(r.att[17:]) // a GID
	r.opt = zenoh.WithAttachment(r.att)
	return r
}

// put encodes m and puts it with the next sequence number, the time and
// a timestamp, as rmw_zenoh's publishers do.
func (r *rawEnd) put(ctx context.Context, m *std_msgs.String) error {
	var err error
	if r.buf, err = m.AppendCDR(r.buf[:0]); err != nil {
		return err
	}
	r.seq++
	now := time.Now()
	binary.LittleEndian.PutUint64(r.att[0:], uint64(r.seq))
	binary.LittleEndian.PutUint64(r.att[8:], uint64(now.UnixNano()))
	return r.pub.Put(ctx, r.buf, r.opt, zenoh.WithTimestamp(zenoh.NewTimestamp(now, nil)))
}

func benchRawZenohEcho(b *testing.B, local bool) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sa, err := zenoh.Open(ctx, zenoh.Config{Listen: []string{"tcp/127.0.0.1:0"}})
	if err != nil {
		b.Fatal(err)
	}
	defer sa.Close()
	se := sa
	if !local {
		if se, err = zenoh.Open(ctx, zenoh.Config{Connect: sa.ListenAddrs()}); err != nil {
			b.Fatal(err)
		}
		defer se.Close()
	}
	a, e := newRawEnd(b, sa, "ping"), newRawEnd(b, se, "pong")
	got := make(chan string, 1)
	if _, err := sa.DeclareSubscriber(rawKey("pong"), func(smp zenoh.Sample) {
		if a.recv.UnmarshalCDR(smp.Payload) == nil {
			got <- a.recv.Data
		}
	}); err != nil {
		b.Fatal(err)
	}
	if _, err := se.DeclareSubscriber(rawKey("ping"), func(smp zenoh.Sample) {
		if e.recv.UnmarshalCDR(smp.Payload) == nil {
			_ = e.put(ctx, &e.recv)
		}
	}); err != nil {
		b.Fatal(err)
	}
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	defer wcancel()
	if err := a.pub.WaitMatching(wctx); err != nil {
		b.Fatal(err)
	}
	if err := e.pub.WaitMatching(wctx); err != nil {
		b.Fatal(err)
	}
	in := std_msgs.String{Data: echoData}
	b.ReportAllocs()
	for b.Loop() {
		if err := a.put(ctx, &in); err != nil {
			b.Fatal(err)
		}
		select {
		case d := <-got:
			if d != echoData {
				b.Fatalf("echo: %q", d)
			}
		case <-ctx.Done():
			b.Fatal("no echo")
		}
	}
	reportHops(b)
}
