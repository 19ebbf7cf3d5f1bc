package zenoh

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"testing"

	"github.com/afor-go/afor"
)

// Camera image payloads: a 1280x720 mono8 and a 1920x1080 rgb8
// sensor_msgs/Image, their pixels and some CDR header bytes.
var largeSizes = []struct {
	name string
	size int
}{
	{"0.9MB", 1280*720 + 64},
	{"6.2MB", 1920*1080*3 + 64},
}

// lenCodec decodes a payload into its length without keeping it: the
// afor consumer of BenchmarkLargePut, which must not add a copy of its own.
type lenCodec struct{}

func (lenCodec) Append(dst []byte, n int) ([]byte, error) {
	return append(dst, make([]byte, n)...), nil
}
func (lenCodec) Decode(b []byte) (int, error) { return len(b), nil }

// BenchmarkLargePut measures one large sample put and received between two
// sessions over TCP loopback, one in flight (the next Put waits until the
// subscriber had the previous one): the one-way time per sample and, with
// -benchmem, what both sides allocate per sample. raw-tcp is the floor that
// moves the same bytes: a 4-byte length and the payload written to a
// TCPConn, read into a reused buffer by a goroutine that hands it over.
// zenoh-borrow delivers to the session's internal callback (the payload only
// valid during the call), zenoh-sample to DeclareSubscriber (a Sample the
// handler may keep), zenoh-afor to an afor.Sub fed by SubscribeCodec.
func BenchmarkLargePut(b *testing.B) {
	for _, sz := range largeSizes {
		b.Run(sz.name, func(b *testing.B) {
			b.Run("raw-tcp", func(b *testing.B) { rawLargeOneWay(b, sz.size) })
			b.Run("zenoh-borrow", func(b *testing.B) {
				a, c := largePair(b)
				got := make(chan int, 1)
				sub, err := a.declareSubscriber("bench/large", func(_ string, d dataMsg) { got <- len(d.payload) }, nil)
				if err != nil {
					b.Fatal(err)
				}
				defer sub.Undeclare()
				largeOneWay(b, c, sz.size, func() int { return <-got })
			})
			b.Run("zenoh-sample", func(b *testing.B) {
				a, c := largePair(b)
				got := make(chan Sample, 1)
				sub, err := a.DeclareSubscriber("bench/large", func(s Sample) { got <- s })
				if err != nil {
					b.Fatal(err)
				}
				defer sub.Undeclare()
				largeOneWay(b, c, sz.size, func() int { return len((<-got).Payload) })
			})
			b.Run("zenoh-afor", func(b *testing.B) {
				a, c := largePair(b)
				sub, err := SubscribeCodec(a, "bench/large", afor.Codec[int](lenCodec{}))
				if err != nil {
					b.Fatal(err)
				}
				defer sub.Close()
				l := sub.Listener(context.Background(), afor.QueueSize(4))
				defer l.Stop()
				largeOneWay(b, c, sz.size, func() int {
					n, err := l.Next(context.Background())
					if err != nil {
						b.Fatal(err)
					}
					return n
				})
			})
		})
	}
}

// largePair opens two sessions linked over TCP loopback.
func largePair(b *testing.B) (listener, dialer *Session) {
	a := openT(b, Config{Listen: []string{"tcp/127.0.0.1:0"}})
	c := openT(b, Config{Connect: a.ListenAddrs()})
	return a, c
}

// largeOneWay puts size-byte samples on bench/large from c, each after
// the previous one was received (wait returns its length).
func largeOneWay(b *testing.B, c *Session, size int, wait func() int) {
	p, err := c.DeclarePublisher("bench/large")
	if err != nil {
		b.Fatal(err)
	}
	waitMatching(b, p)
	ctx := context.Background()
	payload := make([]byte, size)
	for i := range payload {
		payload[i] = byte(i)
	}
	// One sample first, so that steady-state buffers exist.
	if err := p.Put(ctx, payload); err != nil {
		b.Fatal(err)
	}
	wait()
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		if err := p.Put(ctx, payload); err != nil {
			b.Fatal(err)
		}
		if n := wait(); n != size {
			b.Fatalf("received %d bytes, want %d", n, size)
		}
	}
}

// rawLargeOneWay is the floor of BenchmarkLargePut: length-prefixed
// frames over a TCPConn, read by a goroutine into one reused buffer.
func rawLargeOneWay(b *testing.B, size int) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	got := make(chan int, 1)
	go func() {
		defer close(got)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		var hdr [4]byte
		buf := make([]byte, size)
		for {
			if _, err := io.ReadFull(c, hdr[:]); err != nil {
				return
			}
			n := int(binary.LittleEndian.Uint32(hdr[:]))
			if n > len(buf) {
				return
			}
			if _, err := io.ReadFull(c, buf[:n]); err != nil {
				return
			}
			got <- n
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	payload := make([]byte, size)
	var hdr [4]byte
	binary.LittleEndian.PutUint32(hdr[:], uint32(size))
	bufs := make(net.Buffers, 0, 2)
	send := func() {
		bufs = append(bufs[:0], hdr[:], payload)
		if _, err := bufs.WriteTo(c); err != nil {
			b.Fatal(err)
		}
	}
	send()
	<-got
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		send()
		if n := <-got; n != size {
			b.Fatalf("received %d bytes, want %d", n, size)
		}
	}
	c.Close()
	for range got {
	}
}
