package zenoh

import (
	"bufio"
	"context"
	"io"
	"net"
	"os/exec"
	"sync/atomic"
	"testing"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/internal/peers"
)

const benchSize = 64

// echoPings makes responder answer every "bench/ping" with a "bench/pong"
// from its subscriber callback, and returns the pong publisher.
func echoPings(b *testing.B, responder *Session) *Publisher {
	ctx := context.Background()
	pong, err := responder.DeclarePublisher("bench/pong")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := responder.DeclareSubscriber("bench/ping", func(s Sample) {
		_ = pong.Put(ctx, s.Payload)
	}); err != nil {
		b.Fatal(err)
	}
	return pong
}

// waitMatching waits until every publisher has a matching subscriber.
func waitMatching(b *testing.B, pubs ...*Publisher) {
	for _, p := range pubs {
		if err := p.WaitMatching(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
}

// pingPong answers every "bench/ping" on responder with a "bench/pong" and
// measures round trips from initiator.
func pingPong(b *testing.B, initiator, responder *Session) {
	ctx := context.Background()
	pong := echoPings(b, responder)
	back := make(chan struct{}, 1)
	if _, err := initiator.DeclareSubscriber("bench/pong", func(Sample) { back <- struct{}{} }); err != nil {
		b.Fatal(err)
	}
	ping, err := initiator.DeclarePublisher("bench/ping")
	if err != nil {
		b.Fatal(err)
	}
	waitMatching(b, ping, pong)
	payload := make([]byte, benchSize)
	b.ReportAllocs()
	b.SetBytes(benchSize)
	for b.Loop() {
		if err := ping.Put(ctx, payload); err != nil {
			b.Fatal(err)
		}
		<-back
	}
}

// callbackPingPong runs b.N round trips between initiator and responder
// where each side publishes the next message from its subscriber callback.
func callbackPingPong(b *testing.B, initiator, responder *Session) {
	ctx := context.Background()
	pong := echoPings(b, responder)
	ping, err := initiator.DeclarePublisher("bench/ping")
	if err != nil {
		b.Fatal(err)
	}
	var left int
	done := make(chan struct{}, 1)
	if _, err := initiator.DeclareSubscriber("bench/pong", func(s Sample) {
		if left--; left <= 0 {
			done <- struct{}{}
			return
		}
		_ = ping.Put(ctx, s.Payload)
	}); err != nil {
		b.Fatal(err)
	}
	waitMatching(b, ping, pong)
	payload := make([]byte, benchSize)
	b.ReportAllocs()
	b.SetBytes(benchSize)
	b.ResetTimer()
	left = b.N // written before the first Put, read only in the callback after it
	if err := ping.Put(ctx, payload); err != nil {
		b.Fatal(err)
	}
	<-done
}

// rawEcho returns a TCP connection to a goroutine that echoes every
// benchSize bytes it reads.
func rawEcho(b *testing.B) net.Conn {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		buf := make([]byte, benchSize)
		for {
			if _, err := io.ReadFull(c, buf); err != nil {
				return
			}
			if _, err := c.Write(buf); err != nil {
				return
			}
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c
}

// BenchmarkPingPong compares a Zenoh round trip between two sessions over
// TCP loopback, within one session, and a raw TCP echo of the same size.
func BenchmarkPingPong(b *testing.B) {
	b.Run("raw-tcp", func(b *testing.B) {
		c := rawEcho(b)
		buf := make([]byte, benchSize)
		b.ReportAllocs()
		b.SetBytes(benchSize)
		for b.Loop() {
			if _, err := c.Write(buf); err != nil {
				b.Fatal(err)
			}
			if _, err := io.ReadFull(c, buf); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw-tcp-handoff", func(b *testing.B) {
		// As raw-tcp, but a reader goroutine hands each reply to the
		// benchmark goroutine over a channel, as a transport's receive
		// loop hands a message to a goroutine waiting for it.
		c := rawEcho(b)
		back := make(chan struct{}, 1)
		go func() {
			buf := make([]byte, benchSize)
			for {
				if _, err := io.ReadFull(c, buf); err != nil {
					close(back)
					return
				}
				back <- struct{}{}
			}
		}()
		buf := make([]byte, benchSize)
		b.ReportAllocs()
		b.SetBytes(benchSize)
		for b.Loop() {
			if _, err := c.Write(buf); err != nil {
				b.Fatal(err)
			}
			<-back
		}
	})
	b.Run("zenoh-tcp", func(b *testing.B) {
		a := openT(b, Config{Listen: []string{"tcp/127.0.0.1:0"}})
		c := openT(b, Config{Connect: a.ListenAddrs()})
		pingPong(b, c, a)
	})
	b.Run("zenoh-tcp-afor", func(b *testing.B) {
		// The initiator waits on an afor.Sub instead of a channel.
		a := openT(b, Config{Listen: []string{"tcp/127.0.0.1:0"}})
		c := openT(b, Config{Connect: a.ListenAddrs()})
		ctx := context.Background()
		pong := echoPings(b, a)
		sub, err := SubscribeCodec(c, "bench/pong", afor.BytesCodec{})
		if err != nil {
			b.Fatal(err)
		}
		defer sub.Close()
		ping, _ := c.DeclarePublisher("bench/ping")
		waitMatching(b, ping, pong)
		payload := make([]byte, benchSize)
		b.ReportAllocs()
		b.SetBytes(benchSize)
		for b.Loop() {
			w := sub.ArmNext(ctx)
			if err := ping.Put(ctx, payload); err != nil {
				b.Fatal(err)
			}
			if _, err := w.Wait(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("zenoh-tcp-callback", func(b *testing.B) {
		// Both sides answer in their subscriber callbacks, as the raw TCP
		// loop answers in the goroutine that read: the transport's round
		// trip without a hand-off to another goroutine.
		a := openT(b, Config{Listen: []string{"tcp/127.0.0.1:0"}})
		c := openT(b, Config{Connect: a.ListenAddrs()})
		callbackPingPong(b, c, a)
	})
	b.Run("zenoh-local", func(b *testing.B) {
		s := openT(b, Config{})
		pingPong(b, s, s)
	})
	b.Run("chan", func(b *testing.B) {
		ping, pong := make(chan []byte), make(chan []byte)
		go func() {
			for p := range ping {
				pong <- p
			}
		}()
		defer close(ping)
		payload := make([]byte, benchSize)
		b.ReportAllocs()
		for b.Loop() {
			ping <- payload
			<-pong
		}
	})
}

// flood publishes size-byte samples one way between two sessions over TCP
// loopback, b.N of them, waits until all arrived (check sees each) and
// returns how many it sent.
func flood(b *testing.B, size int, check func(dataMsg)) int64 {
	return floodOn(b, Config{Listen: []string{"tcp/127.0.0.1:0"}}, Config{}, size, check)
}

// floodOn is flood between a session listening with listen and one
// connecting to it with dial (whose Connect it sets).
func floodOn(b *testing.B, listen, dial Config, size int, check func(dataMsg)) int64 {
	a := openT(b, listen)
	dial.Connect = a.ListenAddrs()
	c := openT(b, dial)
	var got, want atomic.Int64
	want.Store(-1)
	all := make(chan struct{})
	if _, err := a.declareSubscriber("bench/flood", func(_ string, d dataMsg) {
		if check != nil {
			check(d)
		}
		if got.Add(1) == want.Load() {
			close(all)
		}
	}, nil); err != nil {
		b.Fatal(err)
	}
	p, err := c.DeclarePublisher("bench/flood")
	if err != nil {
		b.Fatal(err)
	}
	waitMatching(b, p)
	ctx := context.Background()
	payload := make([]byte, size)
	b.ReportAllocs()
	n := int64(0)
	for b.Loop() {
		if err := p.Put(ctx, payload); err != nil {
			b.Fatal(err)
		}
		n++
	}
	want.Store(n)
	if got.Load() < n {
		<-all
	}
	return n
}

// BenchmarkThroughput8B publishes 8-byte samples one way between two
// sessions over TCP loopback (the writer batches them), next to raw TCP
// writes of 8-byte records through a buffered writer.
func BenchmarkThroughput8B(b *testing.B) {
	b.Run("raw-tcp-bufio", func(b *testing.B) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		defer ln.Close()
		done := make(chan int64)
		go func() {
			c, err := ln.Accept()
			if err != nil {
				done <- 0
				return
			}
			defer c.Close()
			n, _ := io.Copy(io.Discard, c)
			done <- n
		}()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			b.Fatal(err)
		}
		w := bufio.NewWriterSize(c, 65536)
		rec := make([]byte, 8)
		b.ReportAllocs()
		for b.Loop() {
			_, _ = w.Write(rec)
		}
		_ = w.Flush()
		c.Close()
		<-done
	})
	b.Run("zenoh-tcp", func(b *testing.B) {
		n := flood(b, 8, nil)
		b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "msg/s")
	})
}

// BenchmarkPicoPong measures a round trip from a Go peer to zenoh-pico's
// z_pong (which echoes test/ping on test/pong), skipping unless
// ZENOH_PICO_EXAMPLES is set. Compare with pico's own z_ping against the
// same z_pong.
func BenchmarkPicoPong(b *testing.B) {
	bin := peers.Pico(b, "z_pong")
	s := openT(b, Config{Listen: []string{"tcp/127.0.0.1:0"}})
	cmd := exec.Command(bin, "-m", "peer", "-e", s.ListenAddrs()[0])
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	back := make(chan struct{}, 1)
	sub, err := s.declareSubscriber("test/pong", func(string, dataMsg) { back <- struct{}{} }, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer sub.Undeclare()
	ping, err := s.DeclarePublisher("test/ping")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if err := ping.WaitMatching(ctx); err != nil {
		b.Fatal(err)
	}
	payload := make([]byte, benchSize)
	b.ReportAllocs()
	for b.Loop() {
		if err := ping.Put(ctx, payload); err != nil {
			b.Fatal(err)
		}
		<-back
	}
}

// BenchmarkThroughput1MiB publishes 1 MiB samples one way between two
// sessions over TCP loopback (each one fragmented into 64 KiB batches and
// reassembled), next to raw TCP writes of 1 MiB.
func BenchmarkThroughput1MiB(b *testing.B) {
	const size = 1 << 20
	b.Run("raw-tcp", func(b *testing.B) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		defer ln.Close()
		done := make(chan struct{})
		go func() {
			defer close(done)
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
			_, _ = io.Copy(io.Discard, c)
		}()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			b.Fatal(err)
		}
		buf := make([]byte, size)
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.Write(buf); err != nil {
				b.Fatal(err)
			}
		}
		c.Close()
		<-done
	})
	b.Run("zenoh-tcp", func(b *testing.B) {
		b.SetBytes(size)
		flood(b, size, func(d dataMsg) {
			if len(d.payload) != size {
				panic("short sample")
			}
		})
	})
}
