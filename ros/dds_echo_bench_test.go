package ros_test

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/transport/dds"
)

// BenchmarkDDSEchoLayers times one echo over ROS 2 on DDS (a std_msgs/String
// "hello world" sent on /ping and answered on /pong, one in flight) between
// two DDS participants of this process on loopback, at three levels, in
// one run, and reports ns/hop (half a round trip):
//
//   - raw_dds: transport/dds underneath, no ROS layer: callback readers
//     (dds.NewReaderFunc) decoding the CDR and answering with Writer.Write,
//     on the topics ("rt/ping", "rt/pong"), type name and QoS (ROS's
//     default profile with the typehash USER_DATA) the ROS layer uses;
//   - ros_callback: the ROS layer (ros.NewPublisher, ros.Subscribe over
//     ros.DDS), answering from the sub's OnInput callback, without a
//     goroutine hand-off, as raw_dds;
//   - ros_listen: the ROS layer used as a node is written, a ListenReliable
//     loop answering and the caller waiting with a Listener.
//
// ros_callback minus raw_dds is what the ROS layer costs per hop (the
// target: within 1 µs); ros_listen adds afor's hand-off to the loops'
// goroutines. bench/ has the same between two processes, next to rclpy
// (go run ./bench -scenarios echo -transports ros-dds,ros-dds-proc).
//
// The local/ variants put both sides on one participant (raw_dds) or one
// ROS context (the others), whose samples are delivered in memory, not
// over loopback, as BenchmarkZenohEchoLayers's local/ share one session.
func BenchmarkDDSEchoLayers(b *testing.B) {
	b.Run("raw_dds", func(b *testing.B) { benchRawDDSEcho(b, false) })
	b.Run("ros_callback", func(b *testing.B) { benchROSDDSEcho(b, false, false) })
	b.Run("ros_listen", func(b *testing.B) { benchROSDDSEcho(b, true, false) })
	b.Run("local/raw_dds", func(b *testing.B) { benchRawDDSEcho(b, true) })
	b.Run("local/ros_callback", func(b *testing.B) { benchROSDDSEcho(b, false, true) })
	b.Run("local/ros_listen", func(b *testing.B) { benchROSDDSEcho(b, true, true) })
}

// benchDDSConfig is a participant's configuration: LOCALHOST discovery in
// domain d, the environment ignored.
func benchDDSConfig(d int) dds.Config {
	return dds.Config{DomainID: d, ExactDomain: true, Range: dds.RangeLocalhost, Getenv: func(string) string { return "" },
		Logger: slog.New(slog.DiscardHandler)}
}

// benchDDSDomain picks a domain away from the interop tests' (100 to 199).
func benchDDSDomain() int { return 200 + rand.IntN(30) }

// benchRawDDSEcho times the raw DDS echo between two participants or,
// local, within one.
func benchRawDDSEcho(b *testing.B, local bool) {
	d := benchDDSDomain()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var typ std_msgs.String
	q := dds.QoS{Reliability: dds.Reliable, Durability: dds.Volatile, History: dds.KeepLast, Depth: 10,
		UserData: []byte("typehash=" + typ.TypeHash() + ";")}
	topic := func(name string) dds.Topic { return dds.Topic{Name: "rt/" + name, TypeName: typ.DDSTypeName()} }
	pa, err := dds.NewParticipant(ctx, benchDDSConfig(d))
	if err != nil {
		b.Fatal(err)
	}
	defer pa.Close()
	pe := pa
	if !local {
		if pe, err = dds.NewParticipant(ctx, benchDDSConfig(d)); err != nil {
			b.Fatal(err)
		}
		defer pe.Close()
	}
	ping, err := dds.NewWriter(pa, topic("ping"), q)
	if err != nil {
		b.Fatal(err)
	}
	pong, err := dds.NewWriter(pe, topic("pong"), q)
	if err != nil {
		b.Fatal(err)
	}
	var echoBuf []byte // used by the delivering goroutine only
	if _, err := dds.NewReaderFunc(pe, topic("ping"), q, func(s dds.Sample) {
		var m std_msgs.String
		if m.UnmarshalCDR(s.Payload) != nil {
			return
		}
		echoBuf, _ = m.AppendCDR(echoBuf[:0])
		_ = pong.Write(ctx, echoBuf)
	}); err != nil {
		b.Fatal(err)
	}
	got := make(chan std_msgs.String, 1)
	if _, err := dds.NewReaderFunc(pa, topic("pong"), q, func(s dds.Sample) {
		var m std_msgs.String
		_ = m.UnmarshalCDR(s.Payload)
		got <- m
	}); err != nil {
		b.Fatal(err)
	}
	if err := ping.WaitMatched(ctx, 1); err != nil {
		b.Fatal(err)
	}
	if err := pong.WaitMatched(ctx, 1); err != nil {
		b.Fatal(err)
	}
	in := std_msgs.String{Data: echoData}
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		if buf, err = in.AppendCDR(buf[:0]); err != nil {
			b.Fatal(err)
		}
		if err := ping.Write(ctx, buf); err != nil {
			b.Fatal(err)
		}
		select {
		case m := <-got:
			if m.Data != echoData {
				b.Fatalf("echo: %q", m.Data)
			}
		case <-ctx.Done():
			b.Fatal(ctx.Err())
		}
	}
	reportHops(b)
}

// benchROSDDSEcho times the ROS echo over DDS between nodes of two
// contexts or, local, of one.
func benchROSDDSEcho(b *testing.B, listen, local bool) {
	d := benchDDSDomain()
	var shared *ros.Context
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	open := func(name string) *ros.Node {
		octx, ocancel := context.WithTimeout(ctx, 10*time.Second)
		defer ocancel()
		c := shared
		if c == nil {
			var err error
			c, err = ros.Open(octx, ros.WithMiddleware(ros.DDS(benchDDSConfig(d))), ros.WithDomainID(d),
				ros.WithLogger(slog.New(slog.DiscardHandler)))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = c.Close() })
			if local {
				shared = c
			}
		}
		n, err := c.NewNode(name)
		if err != nil {
			b.Fatal(err)
		}
		return n
	}
	benchROSEcho(b, open("ping"), open("echo"), listen)
}
