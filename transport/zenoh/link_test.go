package zenoh

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// TestWritesKeepOrderUnderBackpressure publishes while the receiver is
// stalled, so that direct writes fill the socket, leave partial batches to
// the writer, and alternate with queued and fragmented messages. Every
// message must arrive intact and, per publisher, in order.
func TestWritesKeepOrderUnderBackpressure(t *testing.T) {
	a, b := pair(t, ModePeer)
	ctx := testCtx(t)
	const (
		publishers = 2
		perPub     = 3000
		// The reader stays stalled until this many messages (about 2 MB)
		// were sent: enough to fill the loopback socket buffers, fewer
		// than the transmit queue and the buffers hold together.
		stallFor = 1800
	)
	release := make(chan struct{})
	var (
		mu      sync.Mutex
		next    [publishers]uint32
		bad     []string
		count   int
		gotAll  = make(chan struct{})
		stalled sync.Once
	)
	if _, err := b.DeclareSubscriber("order/*", func(s Sample) {
		stalled.Do(func() { <-release }) // stall the link's reader once
		mu.Lock()
		defer mu.Unlock()
		pub, seq := int(s.Payload[0]), binary.LittleEndian.Uint32(s.Payload[1:])
		if seq != next[pub] {
			bad = append(bad, fmt.Sprintf("publisher %d: got %d, want %d", pub, seq, next[pub]))
		}
		next[pub] = seq + 1
		if !bytes.Equal(s.Payload[5:], fill(len(s.Payload)-5, byte(seq))) {
			bad = append(bad, fmt.Sprintf("publisher %d: message %d of %d bytes corrupted", pub, seq, len(s.Payload)))
		}
		if count++; count == publishers*perPub {
			close(gotAll)
		}
	}); err != nil {
		t.Fatal(err)
	}
	var (
		wg      sync.WaitGroup
		puts    atomic.Int64
		unstall sync.Once
	)
	errs := make(chan error, publishers)
	for pub := range publishers {
		p := publisher(t, a, fmt.Sprintf("order/%d", pub))
		if err := p.WaitMatching(ctx); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			for seq := range uint32(perPub) {
				size := 16 + int(seq%7)*400 // mostly small, some over the batch
				if seq%500 == 499 {
					size = 200 << 10 // fragmented
				}
				msg := make([]byte, 5, 5+size)
				msg[0] = byte(pub)
				binary.LittleEndian.PutUint32(msg[1:], seq)
				if err := p.Put(ctx, append(msg, fill(size, byte(seq))...)); err != nil {
					errs <- err
					return
				}
				if puts.Add(1) == stallFor {
					unstall.Do(func() { close(release) })
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	select {
	case <-gotAll:
	case <-ctx.Done():
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("received %d of %d messages", count, publishers*perPub)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, m := range bad {
		t.Error(m)
	}
}

// fill returns n bytes derived from seed.
func fill(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i)
	}
	return b
}

// TestDirectWriteLeavesRestToWriter fills a socket nobody reads until a
// direct write (the link has no gap: it writes directly whenever it can)
// goes out only in part, queues more behind it, and then
// checks that the other end reads every frame whole, with consecutive
// sequence numbers and the messages in order.
func TestDirectWriteLeavesRestToWriter(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	peer, ok := <-accepted
	if !ok {
		t.Fatal("accept failed")
	}
	defer peer.Close()
	rc, err := Config{}.resolve()
	if err != nil {
		t.Fatal(err)
	}
	s := &Session{cfg: rc}
	s.table.Store(&table{})
	l := &link{
		s:         s,
		conn:      conn,
		raw:       newDirectWriter(conn),
		log:       testLogger(t),
		kick:      make(chan struct{}, 1),
		space:     make(chan struct{}, 1),
		done:      make(chan struct{}),
		batch:     DefaultBatchSize,
		snMask:    1<<28 - 1,
		keepAlive: time.Hour,
		reason:    -1,
	}
	if l.raw == nil {
		t.Skip("no direct writes on this platform")
	}
	l.s.wg.Add(1)
	go l.writeLoop()

	const size = 1000
	ctx := testCtx(t)
	sent, extra := uint32(0), 0
	for extra < 200 {
		msg := fill(size, byte(sent))
		binary.LittleEndian.PutUint32(msg, sent)
		if err := l.queue(ctx, msg); err != nil {
			t.Fatal(err)
		}
		sent++
		// Until the socket fills, every message goes out directly and the
		// writer never holds the write lock; after that, a message was
		// carried over to the writer.
		carried := true
		if l.wmu.TryLock() {
			carried = len(l.carry) > 0
			l.wmu.Unlock()
		}
		if carried || extra > 0 {
			extra++ // messages behind the partial write
		}
		if sent > 1<<16 {
			t.Fatal("the socket never filled")
		}
	}

	// Read it all back while the writer drains, then end the link.
	var (
		got    []byte
		wantSN uint64
		br     = bufio.NewReader(peer)
		buf    = make([]byte, 65535)
	)
	for len(got) < int(sent)*size {
		b, err := readBatch(br, buf)
		if err != nil {
			t.Fatalf("after %d bytes: %v", len(got), err)
		}
		if b[0] != wire.IDFrame|wire.FlagReliable {
			t.Fatalf("header %#x, want a reliable FRAME", b[0])
		}
		sn, n, err := wire.ReadZint(b[1:])
		if err != nil || sn != wantSN {
			t.Fatalf("SN %d (%v), want %d", sn, err, wantSN)
		}
		wantSN++
		got = append(got, b[1+n:]...)
	}
	for i := range sent {
		rec := got[int(i)*size : int(i+1)*size]
		want := fill(size, byte(i))
		binary.LittleEndian.PutUint32(want, i)
		if !bytes.Equal(rec, want) {
			t.Fatalf("message %d out of order or corrupted", i)
		}
	}
	l.close(-1, errLinkClosed)
	l.s.wg.Wait()
}

// TestStreamIsBatched publishes small messages back to back: after the
// first, they come too soon to be written directly, so the writer sends
// them many to a batch.
func TestStreamIsBatched(t *testing.T) {
	a, b := pair(t, ModePeer)
	ctx := testCtx(t)
	const n = 5000
	got := make(chan struct{})
	count := 0
	if _, err := b.DeclareSubscriber("stream/x", func(Sample) {
		if count++; count == n {
			close(got)
		}
	}); err != nil {
		t.Fatal(err)
	}
	p := publisher(t, a, "stream/x")
	if err := p.WaitMatching(ctx); err != nil {
		t.Fatal(err)
	}
	links := b.table.Load().all
	if len(links) != 1 {
		t.Fatalf("%d links", len(links))
	}
	before := links[0].rxBatches.Load()
	msg := make([]byte, 8)
	for range n {
		if err := p.Put(ctx, msg); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-got:
	case <-ctx.Done():
		t.Fatalf("received %d of %d", count, n)
	}
	if batches := links[0].rxBatches.Load() - before; batches > n/2 {
		t.Fatalf("%d messages came in %d batches: not batched", n, batches)
	} else {
		t.Logf("%d messages in %d batches", n, batches)
	}
}
