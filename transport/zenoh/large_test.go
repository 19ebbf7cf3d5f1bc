package zenoh

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"

	"github.com/afor-go/afor"
)

// seeded returns n bytes that differ with seed.
func seeded(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7) ^ seed
	}
	return b
}

// TestLargePutCallerMayReuse overwrites a large payload as soon as Put
// returns, with the receiver stalled (so the socket does not take it all
// and the rest is left to the writer) and not: every sample arrives as it
// was when Put was called.
func TestLargePutCallerMayReuse(t *testing.T) {
	for _, stall := range []bool{false, true} {
		t.Run(fmt.Sprintf("stalled=%v", stall), func(t *testing.T) {
			a, b := pair(t, ModePeer)
			release := make(chan struct{})
			var once sync.Once
			got := make(chan Sample, 16)
			if _, err := b.DeclareSubscriber("big", func(s Sample) {
				if stall {
					once.Do(func() { <-release })
				}
				got <- s
			}); err != nil {
				t.Fatal(err)
			}
			p := publisher(t, a, "big")
			ctx := testCtx(t)
			sizes := []int{40 << 10, 1 << 20, 3 << 20, 100, 6 << 20}
			buf := make([]byte, 6<<20)
			for i, n := range sizes {
				copy(buf, seeded(n, byte(i)))
				if err := p.Put(ctx, buf[:n]); err != nil {
					t.Fatal(err)
				}
				clear(buf) // the caller's again
			}
			close(release)
			// A stalled subscriber makes the link's queue fill up: a
			// CongestionDrop publication may drop a sample then (counted),
			// but what arrives is what was put.
			dropped := int(p.Dropped())
			if !stall && dropped > 0 {
				t.Fatalf("%d samples dropped with a subscriber that keeps up", dropped)
			}
			bySize := make(map[int]int)
			for i, n := range sizes {
				bySize[n] = i
			}
			for range len(sizes) - dropped {
				s := recv(t, got)
				i, ok := bySize[len(s.Payload)]
				if !ok || !bytes.Equal(s.Payload, seeded(len(s.Payload), byte(i))) {
					t.Fatalf("sample of %d bytes: changed after Put returned", len(s.Payload))
				}
				delete(bySize, len(s.Payload))
			}
			if dropped > 0 {
				t.Logf("%d of %d samples dropped behind the stalled subscriber", dropped, len(sizes))
			}
		})
	}
}

// TestLargeSampleOwnsPayload keeps every Sample of two subscribers and
// modifies one subscriber's: the other's and the later samples are
// untouched (under -race, a buffer reused by the link would also be
// reported as a race).
func TestLargeSampleOwnsPayload(t *testing.T) {
	a, b := pair(t, ModePeer)
	var mu sync.Mutex
	var kept [2][]Sample
	done := make(chan struct{}, 64)
	for i := range kept {
		if _, err := b.DeclareSubscriber("big", func(s Sample) {
			mu.Lock()
			kept[i] = append(kept[i], s)
			if i == 0 {
				clear(s.Payload) // the handler's own
			}
			mu.Unlock()
			done <- struct{}{}
		}); err != nil {
			t.Fatal(err)
		}
	}
	p := publisher(t, a, "big")
	ctx := testCtx(t)
	const n = 8
	for i := range n {
		if err := p.Put(ctx, seeded(1<<20, byte(i))); err != nil {
			t.Fatal(err)
		}
		<-done
		<-done
	}
	mu.Lock()
	defer mu.Unlock()
	for i, s := range kept[1] {
		if !bytes.Equal(s.Payload, seeded(1<<20, byte(i))) {
			t.Errorf("sample %d of the second subscriber changed", i)
		}
	}
	for i, s := range kept[0] {
		if len(s.Payload) != 1<<20 || bytes.ContainsFunc(s.Payload, func(r rune) bool { return r != 0 }) {
			t.Errorf("sample %d of the first subscriber: not as its handler left it", i)
		}
	}
}

// keepCodec decodes a payload into itself (it aliases its input), and
// says so.
type keepCodec struct{ afor.BytesCodec }

func (keepCodec) Decode(b []byte) ([]byte, error) { return b, nil }
func (keepCodec) KeepsPayload() bool              { return true }

// TestLargeCodecKeepsPayload: a PayloadKeeper codec's values keep their
// bytes while later samples arrive; a borrowing codec sees the right
// bytes during Decode.
func TestLargeCodecKeepsPayload(t *testing.T) {
	a, b := pair(t, ModePeer)
	keep, err := SubscribeCodec(b, "big", afor.Codec[[]byte](keepCodec{}))
	if err != nil {
		t.Fatal(err)
	}
	defer keep.Close()
	var borrowErr error
	var bmu sync.Mutex
	seq := 0
	borrow, err := SubscribeCodec(b, "big", afor.Codec[int](checkCodec{check: func(p []byte) {
		bmu.Lock()
		defer bmu.Unlock()
		if !bytes.Equal(p, seeded(2<<20, byte(seq))) && borrowErr == nil {
			borrowErr = fmt.Errorf("sample %d: Decode got other bytes", seq)
		}
		seq++
	}}))
	if err != nil {
		t.Fatal(err)
	}
	defer borrow.Close()
	ctx := testCtx(t)
	l := keep.Listener(ctx, afor.QueueSize(0))
	defer l.Stop()
	p := publisher(t, a, "big")
	const n = 6
	for i := range n {
		if err := p.Put(ctx, seeded(2<<20, byte(i))); err != nil {
			t.Fatal(err)
		}
	}
	var vals [][]byte
	for range n {
		v, err := l.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		vals = append(vals, v)
	}
	for i, v := range vals {
		if !bytes.Equal(v, seeded(2<<20, byte(i))) {
			t.Errorf("value %d changed after later samples", i)
		}
	}
	bmu.Lock()
	defer bmu.Unlock()
	if borrowErr != nil {
		t.Error(borrowErr)
	}
}

// checkCodec hands what it decodes to check, and keeps nothing.
type checkCodec struct{ check func([]byte) }

func (checkCodec) Append(dst []byte, _ int) ([]byte, error) { return dst, nil }
func (c checkCodec) Decode(b []byte) (int, error)           { c.check(b); return len(b), nil }

// TestReassemblyLinkLimit: a message over MaxLinkReassembly is dropped,
// counted, and the link carries the next one.
func TestReassemblyLinkLimit(t *testing.T) {
	a := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}, MaxLinkReassembly: 256 << 10})
	b := openT(t, Config{Connect: a.ListenAddrs()})
	got := collector(t, a, "big")
	p := publisher(t, b, "big")
	ctx := testCtx(t)
	for _, n := range []int{300 << 10, 200 << 10} {
		if err := p.Put(ctx, seeded(n, 1)); err != nil {
			t.Fatal(err)
		}
	}
	if s := recv(t, got); len(s.Payload) != 200<<10 {
		t.Fatalf("got %d bytes, want the second message", len(s.Payload))
	}
	if c := a.Stats().ByLimit[LimitReassembly]; c != 1 {
		t.Errorf("Stats.ByLimit[%s] = %d, want 1", LimitReassembly, c)
	}
	if len(a.Links()) != 1 {
		t.Error("link lost")
	}
}

func TestReassemblyConfig(t *testing.T) {
	for _, c := range []Config{{MaxLinkReassembly: -1}, {MaxSessionReassembly: -1}} {
		if _, err := Open(context.Background(), c); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("Open(%+v) = %v, want ErrInvalidConfig", c, err)
		}
	}
	r, err := Config{MaxMessageSize: 1 << 20}.resolve()
	if err != nil {
		t.Fatal(err)
	}
	if r.MaxLinkReassembly != 1<<20 || r.MaxSessionReassembly != 2<<20 {
		t.Errorf("defaults: link %d, session %d", r.MaxLinkReassembly, r.MaxSessionReassembly)
	}
}

// TestReassemblyBufferReused: a subscriber that keeps nothing lets the
// link reassemble the next message in the same buffer, which the session
// does not count while idle.
func TestReassemblyBufferReused(t *testing.T) {
	a, b := pair(t, ModePeer)
	got := make(chan *byte, 4)
	sub, err := b.declareSubscriber("big", func(_ string, d dataMsg) { got <- &d.payload[0] }, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Undeclare()
	p := publisher(t, a, "big")
	ctx := testCtx(t)
	var first *byte
	for i := range 4 {
		if err := p.Put(ctx, seeded(1<<20, byte(i))); err != nil {
			t.Fatal(err)
		}
		ptr := <-got
		if i == 0 {
			first = ptr
		} else if ptr != first {
			t.Errorf("message %d reassembled in another buffer", i)
		}
	}
	// The link releases a message's reassembly count after the handlers
	// return: a small message read after it on the same link proves the
	// release happened.
	marker := make(chan struct{}, 1)
	msub, err := b.declareSubscriber("marker", func(string, dataMsg) { marker <- struct{}{} }, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer msub.Undeclare()
	mp := publisher(t, a, "marker") // waits until a routes "marker" to b
	if err := mp.Put(ctx, []byte("m")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-marker:
	case <-ctx.Done():
		t.Fatal("marker never arrived")
	}
	if n := b.reassembly.Load(); n != 0 {
		t.Errorf("idle buffers count %d bytes", n)
	}
}

// TestSpillReader reads a TCP stream through a link's reader: bufio reads
// and vectored reads past their destination (into spill) alternate, and
// every byte arrives once, in order.
func TestSpillReader(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	want := seeded(3<<20, 9)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		for b := want; len(b) > 0; { // in pieces, so that reads see partial data
			n := min(len(b), 70001)
			if _, err := c.Write(b[:n]); err != nil {
				return
			}
			b = b[n:]
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rx := newSpillReader(c)
	if rx.v == nil {
		t.Log("no vectored reads on this platform")
	}
	br := bufio.NewReaderSize(rx, linkReadBuffer)
	got := make([]byte, 0, len(want))
	for i := 0; len(got) < len(want); i++ {
		n := min(len(want)-len(got), []int{2, 65500, 17, 100000, 4096, 3}[i%6])
		dst := make([]byte, n)
		if i%2 == 0 {
			if _, err := io.ReadFull(br, dst); err != nil {
				t.Fatal(err)
			}
		} else {
			k, _ := io.ReadFull(br, dst[:min(br.Buffered(), n)])
			if err := rx.readInto(dst[k:]); err != nil {
				t.Fatal(err)
			}
		}
		got = append(got, dst...)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("the stream came out different")
	}
}
