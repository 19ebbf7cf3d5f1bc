package dds

import (
	"context"
	"net"
	"net/netip"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// benchPair starts two participants and, on ping and pong topics, a writer
// on a and an echo on b. It returns a round-trip function.
func benchPair(b *testing.B, q QoS) (rt func(payload []byte)) {
	pa, pb := localhostPair(b)
	ctx := context.Background()
	ping := Topic{Name: "bench/ping", TypeName: "Bytes"}
	pong := Topic{Name: "bench/pong", TypeName: "Bytes"}
	pongW, err := NewWriter(pb, pong, q)
	if err != nil {
		b.Fatal(err)
	}
	echo, err := Subscribe(pb, ping, q)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(echo.Close)
	echo.OnInput(func(s Sample) { _ = pongW.Write(ctx, s.Payload) })
	back, err := Subscribe(pa, pong, q)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(back.Close)
	got := make(chan struct{}, 1)
	back.OnInput(func(Sample) { got <- struct{}{} })
	pingW, err := NewWriter(pa, ping, q)
	if err != nil {
		b.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pingW.WaitMatched(wctx, 1); err != nil {
		b.Fatal(err)
	}
	if err := pongW.WaitMatched(wctx, 1); err != nil {
		b.Fatal(err)
	}
	return func(payload []byte) {
		if err := pingW.Write(ctx, payload); err != nil {
			b.Fatal(err)
		}
		select {
		case <-got:
		case <-time.After(5 * time.Second):
			b.Fatal("round trip lost")
		}
	}
}

// udpFloor returns a raw UDP ping-pong over loopback, the floor under DDS.
func udpFloor(b *testing.B) (rt func(payload []byte)) {
	lo := &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)}
	a, err := net.ListenUDP("udp4", lo)
	if err != nil {
		b.Fatal(err)
	}
	e, err := net.ListenUDP("udp4", lo)
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 65536)
		for {
			n, from, err := e.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			_, _ = e.WriteToUDPAddrPort(buf[:n], from)
		}
	}()
	b.Cleanup(func() { a.Close(); e.Close(); <-done })
	to := e.LocalAddr().(*net.UDPAddr).AddrPort()
	to = netip.AddrPortFrom(to.Addr().Unmap(), to.Port())
	buf := make([]byte, 65536)
	return func(payload []byte) {
		if _, err := a.WriteToUDPAddrPort(payload, to); err != nil {
			b.Fatal(err)
		}
		if _, _, err := a.ReadFromUDPAddrPort(buf); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRoundTrip64 measures a 64-byte reliable round trip between two
// participants (writer, reader with echo, reader), and the raw UDP
// ping-pong under it in the same run; it reports both and their ratio.
func BenchmarkRoundTrip64(b *testing.B) {
	payload := append([]byte{0, 1, 0, 0}, make([]byte, 60)...)
	dds := benchPair(b, QoS{})
	udp := udpFloor(b)
	for range 100 {
		dds(payload)
		udp(payload)
	}
	b.ResetTimer()
	var tDDS, tUDP time.Duration
	for range b.N {
		t0 := time.Now()
		dds(payload)
		t1 := time.Now()
		udp(payload)
		tDDS += t1.Sub(t0)
		tUDP += time.Since(t1)
	}
	b.ReportMetric(float64(tDDS.Nanoseconds())/float64(b.N), "dds-ns/rt")
	b.ReportMetric(float64(tUDP.Nanoseconds())/float64(b.N), "udp-ns/rt")
	b.ReportMetric(float64(tDDS)/float64(tUDP), "x-udp")
}

// BenchmarkThroughput64 measures one-way reliable KEEP_ALL throughput of
// 64-byte samples between two participants.
func BenchmarkThroughput64(b *testing.B) {
	benchThroughput(b, 64, QoS{History: KeepAll})
}

// BenchmarkThroughputKeepAll measures one-way reliable KEEP_ALL
// throughput of 4 KiB and 64 KiB samples between two participants of this
// process, over UDP on 127.0.0.1: what the writer's window of
// unacknowledged bytes (window.go) and the batching of samples (batch.go)
// are tuned for.
func BenchmarkThroughputKeepAll(b *testing.B) {
	for _, size := range []int{4 << 10, 64 << 10} {
		b.Run(strconv.Itoa(size>>10)+"KiB", func(b *testing.B) { benchThroughput(b, size, QoS{History: KeepAll}) })
	}
}

// BenchmarkThroughputLarge measures one-way reliable throughput of camera
// frames: 1280x720 mono8 (0.9 MB) and 1920x1080 rgb8 (6.2 MB).
func BenchmarkThroughputLarge(b *testing.B) {
	for _, c := range []struct {
		name string
		size int
	}{{"1MB", 1 << 20}, {"6MB", 6 << 20}} {
		b.Run(c.name, func(b *testing.B) { benchThroughput(b, c.size, QoS{History: KeepLast, Depth: 2}) })
	}
}

func benchThroughput(b *testing.B, size int, q QoS) {
	pa, pb := localhostPair(b)
	ctx := context.Background()
	topic := Topic{Name: "bench/tp", TypeName: "Bytes"}
	var n atomic.Int64
	all := make(chan struct{}, 1)
	sub, err := Subscribe(pb, topic, q)
	if err != nil {
		b.Fatal(err)
	}
	defer sub.Close()
	want := atomic.Int64{}
	sub.OnInput(func(Sample) {
		if n.Add(1) == want.Load() {
			all <- struct{}{}
		}
	})
	w, err := NewWriter(pa, topic, q)
	if err != nil {
		b.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := w.WaitMatched(wctx, 1); err != nil {
		b.Fatal(err)
	}
	payload := append([]byte{0, 1, 0, 0}, make([]byte, size-4)...)
	want.Store(int64(b.N))
	b.SetBytes(int64(size))
	b.ResetTimer()
	for range b.N {
		if q.History == KeepLast {
			// Large samples: one in flight at a time, so that KEEP_LAST
			// drops nothing and the rate is the transport's.
			before := n.Load()
			if err := w.Write(ctx, payload); err != nil {
				b.Fatal(err)
			}
			for n.Load() == before {
				time.Sleep(50 * time.Microsecond)
			}
			continue
		}
		if err := w.Write(ctx, payload); err != nil {
			b.Fatal(err)
		}
	}
	if q.History == KeepAll {
		select {
		case <-all:
		case <-time.After(30 * time.Second):
			b.Fatalf("%d of %d samples received", n.Load(), b.N)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}
