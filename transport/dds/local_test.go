package dds

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/afor-go/afor"
)

// loneParticipant starts a participant that discovers nothing (RangeOff),
// so that every datagram it sends or receives is its own user traffic.
func loneParticipant(t testing.TB) *Participant {
	return newTestParticipant(t, Config{DomainID: nextDomain(), Range: RangeOff})
}

// numbered is a payload carrying i (CDR_LE header, then i), padded to size.
func numbered(i, size int) []byte {
	b := make([]byte, max(size, 12))
	b[1] = 1
	binary.LittleEndian.PutUint64(b[4:], uint64(i))
	return b
}

func numberOf(b []byte) int { return int(binary.LittleEndian.Uint64(b[4:])) }

// collector gathers the samples of a callback reader.
type collector struct {
	mu      sync.Mutex
	samples []Sample
	changed chan struct{}
}

func newCollector() *collector { return &collector{changed: make(chan struct{}, 1)} }

func (c *collector) add(s Sample) {
	c.mu.Lock()
	c.samples = append(c.samples, s)
	c.mu.Unlock()
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

// wait waits for n samples and returns them.
func (c *collector) wait(t *testing.T, ctx context.Context, n int) []Sample {
	t.Helper()
	for {
		c.mu.Lock()
		got := slices.Clone(c.samples)
		c.mu.Unlock()
		if len(got) >= n {
			return got
		}
		select {
		case <-c.changed:
		case <-ctx.Done():
			t.Fatalf("%d of %d samples: %v", len(got), n, ctx.Err())
		}
	}
}

func (c *collector) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.samples)
}

// localPair creates a callback reader and a writer of one topic on p, and
// waits until they match.
func localPair(t *testing.T, p *Participant, rq, wq QoS, fn func(Sample)) (*Reader, *Writer) {
	t.Helper()
	topic := Topic{Name: "local/" + t.Name(), TypeName: "Bytes"}
	r, err := NewReaderFunc(p, topic, rq, fn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	w, err := NewWriter(p, topic, wq)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	ctx := waitCtx(t)
	if err := w.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := r.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	return r, w
}

// checkInOrder checks that samples are first..first+len-1 of w, in order.
func checkInOrder(t *testing.T, samples []Sample, w *Writer, first int) {
	t.Helper()
	for i, s := range samples {
		want := first + i
		if s.Writer != w.GUID() || s.SN != int64(want) || numberOf(s.Payload) != want {
			t.Fatalf("sample %d: writer %v SN %d payload %d, want %v SN %d", i, s.Writer, s.SN, numberOf(s.Payload), w.GUID(), want)
		}
		if s.SourceTime.IsZero() {
			t.Fatalf("sample %d: no source time", i)
		}
	}
}

func TestLocalReliableInOrder(t *testing.T) {
	p := loneParticipant(t)
	c := newCollector()
	_, w := localPair(t, p, QoS{}, QoS{}, c.add)
	ctx := waitCtx(t)
	const n = 10000
	for i := 1; i <= n; i++ {
		if err := w.Write(ctx, numbered(i, 16)); err != nil {
			t.Fatal(err)
		}
	}
	checkInOrder(t, c.wait(t, ctx, n), w, 1)
}

// TestLocalNoDatagrams checks that samples between a writer and a reader
// of one participant, reliable or not, never reach a socket (the old path
// sent each of these 8 KB samples in a datagram of its own).
func TestLocalNoDatagrams(t *testing.T) {
	for _, q := range []QoS{{}, {Reliability: BestEffort}, {History: KeepAll}, {Durability: TransientLocal}} {
		t.Run(fmt.Sprint(q.Reliability, q.History, q.Durability), func(t *testing.T) {
			p := loneParticipant(t)
			c := newCollector()
			_, w := localPair(t, p, q, q, c.add)
			ctx := waitCtx(t)
			before := p.Stats()
			const n = 300
			for i := 1; i <= n; i++ {
				if err := w.Write(ctx, numbered(i, 8000)); err != nil {
					t.Fatal(err)
				}
			}
			checkInOrder(t, c.wait(t, ctx, n), w, 1)
			after := p.Stats()
			if after.Sent != before.Sent || after.Received != before.Received {
				t.Errorf("datagrams for local samples: sent %d, received %d", after.Sent-before.Sent, after.Received-before.Received)
			}
			if got := after.Local - before.Local; got != n {
				t.Errorf("Stats.Local grew by %d, want %d", got, n)
			}
		})
	}
}

func TestLocalBestEffort(t *testing.T) {
	p := loneParticipant(t)
	c := newCollector()
	q := QoS{Reliability: BestEffort}
	_, w := localPair(t, p, q, q, c.add)
	ctx := waitCtx(t)
	for i := 1; i <= 1000; i++ {
		if err := w.Write(ctx, numbered(i, 16)); err != nil {
			t.Fatal(err)
		}
	}
	checkInOrder(t, c.wait(t, ctx, 1000), w, 1)
}

// stuckLocalPair makes a local writer and callback reader of QoS q on a
// lone participant, and writes sample 1 (of size bytes) from a goroutine
// whose delivery the callback holds up: it returns once that goroutine is
// stuck in the callback. release lets it go and returns its Write's error.
func stuckLocalPair(t *testing.T, q QoS, size int) (p *Participant, w *Writer, c *collector, release func() error) {
	t.Helper()
	p = loneParticipant(t)
	c = newCollector()
	gate := make(chan struct{})
	entered := make(chan struct{})
	_, w = localPair(t, p, q, q, func(s Sample) {
		if s.SN == 1 {
			close(entered)
			<-gate
		}
		c.add(s)
	})
	first := make(chan error, 1)
	go func() { first <- w.Write(waitCtx(t), numbered(1, size)) }()
	<-entered
	return p, w, c, func() error {
		close(gate)
		return <-first
	}
}

// TestLocalKeepAllSlowReader checks that a reliable KEEP_ALL writer holds
// at most MaxSamples samples queued for a local reader whose callback is
// stuck: the next write waits MaxBlocking and fails with ErrTimeout, and
// everything queued arrives, in order, once the callback returns.
func TestLocalKeepAllSlowReader(t *testing.T) {
	const size = 1 << 20 // ten of them are over localQueueBytes
	q := QoS{History: KeepAll, MaxSamples: 10, MaxBlocking: 50 * time.Millisecond}
	_, w, c, release := stuckLocalPair(t, q, size)
	ctx := waitCtx(t)
	for i := 2; i <= 10; i++ {
		if err := w.Write(ctx, numbered(i, size)); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	if err := w.Write(ctx, numbered(11, size)); !errors.Is(err, ErrTimeout) {
		t.Fatalf("write 11 with MaxSamples queued for a stuck reader: %v, want ErrTimeout", err)
	}
	if got := c.len(); got != 0 {
		t.Fatalf("%d samples delivered past a stuck callback", got)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, numbered(11, size)); err != nil {
		t.Fatalf("write 11 once the reader caught up: %v", err)
	}
	checkInOrder(t, c.wait(t, ctx, 11), w, 1)
}

// TestLocalKeepLastSlowReader checks that a KEEP_LAST writer never blocks
// on a local reader whose callback is stuck, and bounds what it queues for
// it (Depth samples or localQueueBytes, whichever holds more): the oldest
// queued samples are dropped and counted, and the reader gets the newest
// ones, in order. A burst of small samples under the byte bound is kept
// whole.
func TestLocalKeepLastSlowReader(t *testing.T) {
	const size = 256 << 10 // sixteen of them make localQueueBytes
	p, w, c, release := stuckLocalPair(t, QoS{History: KeepLast, Depth: 5}, size)
	ctx := waitCtx(t)
	const n = 100
	for i := 2; i <= n; i++ {
		if err := w.Write(ctx, numbered(i, size)); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	const kept = localQueueBytes / size // the one in delivery and 15 queued
	if st := p.Stats(); st.LocalDropped != n-kept {
		t.Errorf("LocalDropped %d, want %d", st.LocalDropped, n-kept)
	}
	// Small ones: the first makes room by dropping one more large one,
	// then the burst stays under the byte bound and is kept whole.
	for i := 1; i <= 100; i++ {
		if err := w.Write(ctx, numbered(n+i, 16)); err != nil {
			t.Fatal(err)
		}
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	got := c.wait(t, ctx, kept-1+100)
	want := []int64{1}
	for sn := int64(n - kept + 3); sn <= n+100; sn++ {
		want = append(want, sn)
	}
	if !slices.Equal(sns(got), want) {
		t.Fatalf("got SNs %v, want %v", sns(got), want)
	}
}

// sns returns the sequence numbers of samples.
func sns(samples []Sample) []int64 {
	out := make([]int64, len(samples))
	for i, s := range samples {
		out[i] = s.SN
	}
	return out
}

func TestLocalTransientLocalLateJoiner(t *testing.T) {
	p := loneParticipant(t)
	ctx := waitCtx(t)
	topic := Topic{Name: "local/tl", TypeName: "Bytes"}
	q := QoS{Durability: TransientLocal, Depth: 5}
	w, err := NewWriter(p, topic, q)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i := 1; i <= 8; i++ {
		if err := w.Write(ctx, numbered(i, 16)); err != nil {
			t.Fatal(err)
		}
	}
	c := newCollector()
	r, err := NewReaderFunc(p, topic, q, c.add)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	checkInOrder(t, c.wait(t, ctx, 5), w, 4)
	if err := w.Write(ctx, numbered(9, 16)); err != nil {
		t.Fatal(err)
	}
	checkInOrder(t, c.wait(t, ctx, 6), w, 4)

	// A volatile reader gets no history.
	cv := newCollector()
	rv, err := NewReaderFunc(p, topic, QoS{}, cv.add)
	if err != nil {
		t.Fatal(err)
	}
	defer rv.Close()
	if err := rv.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, numbered(10, 16)); err != nil {
		t.Fatal(err)
	}
	checkInOrder(t, cv.wait(t, ctx, 1), w, 10)
}

// TestLocalLifespan checks that a late local joiner does not get the
// samples whose lifespan ended.
func TestLocalLifespan(t *testing.T) {
	p := loneParticipant(t)
	ctx := waitCtx(t)
	topic := Topic{Name: "local/lifespan", TypeName: "Bytes"}
	const life = 50 * time.Millisecond
	w, err := NewWriter(p, topic, QoS{Durability: TransientLocal, Lifespan: life})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Write(ctx, numbered(1, 16)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * life) // the lifespan itself, not synchronisation
	if err := w.Write(ctx, numbered(2, 16)); err != nil {
		t.Fatal(err)
	}
	c := newCollector()
	r, err := NewReaderFunc(p, topic, QoS{Durability: TransientLocal}, c.add)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c.wait(t, ctx, 1)
	if err := w.Write(ctx, numbered(3, 16)); err != nil {
		t.Fatal(err)
	}
	got := c.wait(t, ctx, 2)
	if len(got) != 2 || got[0].SN != 2 || got[1].SN != 3 {
		t.Fatalf("got SNs %v, want [2 3]", sns(got))
	}
}

func TestLocalWriteRelated(t *testing.T) {
	p := loneParticipant(t)
	c := newCollector()
	_, w := localPair(t, p, QoS{}, QoS{}, c.add)
	ctx := waitCtx(t)
	rel := SampleIdentity{Writer: GUID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0, 0, 1, 3}, SN: 42}
	id, err := w.WriteRelated(ctx, numbered(1, 16), rel)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, numbered(2, 16)); err != nil {
		t.Fatal(err)
	}
	got := c.wait(t, ctx, 2)
	if got[0].Related != rel || id != (SampleIdentity{Writer: w.GUID(), SN: got[0].SN}) {
		t.Fatalf("related %+v (want %+v), identity %+v of SN %d", got[0].Related, rel, id, got[0].SN)
	}
	if !got[1].Related.IsZero() {
		t.Fatalf("plain sample has related %+v", got[1].Related)
	}
}

// TestLocalLargeSample checks a 3 MB sample, and that the reader owns its
// payload: neither the writer's caller nor the writer's history share it.
func TestLocalLargeSample(t *testing.T) {
	p := newTestParticipant(t, Config{DomainID: nextDomain(), Range: RangeOff, MaxSampleSize: 4 << 20})
	c := newCollector()
	q := QoS{Durability: TransientLocal, Depth: 1}
	_, w := localPair(t, p, q, q, c.add)
	ctx := waitCtx(t)
	big := numbered(7, 3<<20)
	for i := 12; i < len(big); i++ {
		big[i] = byte(i * 7)
	}
	want := slices.Clone(big)
	if err := w.Write(ctx, big); err != nil {
		t.Fatal(err)
	}
	clear(big)
	got := c.wait(t, ctx, 1)
	if !bytes.Equal(got[0].Payload, want) {
		t.Fatal("3 MB payload differs")
	}
	clear(got[0].Payload) // the reader's to change
	w.mu.Lock()
	kept := w.hist.changes[0].payload
	w.mu.Unlock()
	if !bytes.Equal(kept, want) {
		t.Fatal("the writer's history shares the reader's payload")
	}
}

// TestLocalAndRemoteReaders checks a writer with a reader on its own
// participant and one on another: both get everything, the remote one
// over UDP.
func TestLocalAndRemoteReaders(t *testing.T) {
	a, b := localhostPair(t)
	ctx := waitCtx(t)
	topic := Topic{Name: "local/both", TypeName: "Bytes"}
	cl, cr := newCollector(), newCollector()
	rl, err := NewReaderFunc(a, topic, QoS{}, cl.add)
	if err != nil {
		t.Fatal(err)
	}
	defer rl.Close()
	rr, err := NewReaderFunc(b, topic, QoS{}, cr.add)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	w, err := NewWriter(a, topic, QoS{History: KeepAll})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.WaitMatched(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if err := rr.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	const n = 500
	before := a.Stats()
	for i := 1; i <= n; i++ {
		if err := w.Write(ctx, numbered(i, 100)); err != nil {
			t.Fatal(err)
		}
	}
	checkInOrder(t, cl.wait(t, ctx, n), w, 1)
	checkInOrder(t, cr.wait(t, ctx, n), w, 1)
	if got := a.Stats().Local - before.Local; got != n {
		t.Errorf("Stats.Local grew by %d, want %d", got, n)
	}
	if a.Stats().Sent == before.Sent {
		t.Error("nothing sent to the remote reader")
	}
}

// TestLocalCallbackPingPong bounces a sample 200,000 times between two
// callback readers of one participant, each answering on the other's
// topic from its callback: the hops run in a loop, not a recursion, so the
// delivering goroutine's stack stays as it was.
func TestLocalCallbackPingPong(t *testing.T) {
	p := loneParticipant(t)
	ctx := waitCtx(t)
	const hops = 200000
	ping := Topic{Name: "local/ping", TypeName: "Bytes"}
	pong := Topic{Name: "local/pong", TypeName: "Bytes"}
	pingW, err := NewWriter(p, ping, QoS{})
	if err != nil {
		t.Fatal(err)
	}
	defer pingW.Close()
	pongW, err := NewWriter(p, pong, QoS{})
	if err != nil {
		t.Fatal(err)
	}
	defer pongW.Close()
	var count atomic.Int64
	var stackEarly, stackLate atomic.Int64
	done := make(chan struct{})
	buf := make([]byte, 64<<10)
	hop := func(next *Writer) func(Sample) {
		return func(s Sample) {
			n := count.Add(1)
			switch n {
			case 10:
				stackEarly.Store(int64(bytes.Count(buf[:runtime.Stack(buf, false)], []byte("\n"))))
			case hops - 10:
				stackLate.Store(int64(bytes.Count(buf[:runtime.Stack(buf, false)], []byte("\n"))))
			case hops:
				close(done)
				return
			}
			if err := next.Write(ctx, s.Payload); err != nil {
				t.Errorf("hop %d: %v", n, err)
			}
		}
	}
	rPing, err := NewReaderFunc(p, ping, QoS{}, hop(pongW))
	if err != nil {
		t.Fatal(err)
	}
	defer rPing.Close()
	rPong, err := NewReaderFunc(p, pong, QoS{}, hop(pingW))
	if err != nil {
		t.Fatal(err)
	}
	defer rPong.Close()
	for _, w := range []*Writer{pingW, pongW} {
		if err := w.WaitMatched(ctx, 1); err != nil {
			t.Fatal(err)
		}
	}
	before := p.Stats()
	if err := pingW.Write(ctx, numbered(0, 16)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatalf("ping-pong stuck after %d hops", count.Load())
	}
	if e, l := stackEarly.Load(), stackLate.Load(); e == 0 || l != e {
		t.Errorf("delivering stack grew from %d to %d lines of trace", e, l)
	}
	if s := p.Stats(); s.Sent != before.Sent {
		t.Errorf("%d datagrams sent", s.Sent-before.Sent)
	}
}

// TestLocalCallbackWritesOwnTopic has a callback write to the topic it
// reads (until a count): no deadlock on its own reader.
func TestLocalCallbackWritesOwnTopic(t *testing.T) {
	p := loneParticipant(t)
	ctx := waitCtx(t)
	var w *Writer
	done := make(chan struct{})
	var n atomic.Int64
	_, w = localPair(t, p, QoS{}, QoS{}, func(s Sample) {
		if n.Add(1) == 1000 {
			close(done)
			return
		}
		_ = w.Write(ctx, s.Payload)
	})
	if err := w.Write(ctx, numbered(1, 16)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatalf("stuck after %d samples", n.Load())
	}
}

// TestLocalEchoFromRemoteCallback has a reader fed by a remote writer
// (delivered on the receive goroutine) write, from its callback, to a
// local writer whose reader is the same reader: the callback must not
// re-enter it.
func TestLocalEchoFromRemoteCallback(t *testing.T) {
	a, b := localhostPair(t)
	ctx := waitCtx(t)
	topic := Topic{Name: "local/mixed", TypeName: "Bytes"}
	var local atomic.Pointer[Writer]
	var fromA, fromB atomic.Int64
	all := make(chan struct{})
	const n = 50
	r, err := NewReaderFunc(a, topic, QoS{}, func(s Sample) {
		if s.Writer == local.Load().GUID() {
			if fromA.Add(1) == n {
				close(all)
			}
			return
		}
		fromB.Add(1)
		if err := local.Load().Write(ctx, s.Payload); err != nil {
			t.Error(err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	lw, err := NewWriter(a, topic, QoS{})
	if err != nil {
		t.Fatal(err)
	}
	defer lw.Close()
	local.Store(lw)
	remote, err := NewWriter(b, topic, QoS{})
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	if err := r.WaitMatched(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if err := remote.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		if err := remote.Write(ctx, numbered(i, 16)); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-all:
	case <-ctx.Done():
		t.Fatalf("%d from b, %d echoed locally", fromB.Load(), fromA.Load())
	}
}

// TestLocalConcurrentWriters writes from several goroutines, on one writer
// and on several: each writer's samples arrive in sequence order.
func TestLocalConcurrentWriters(t *testing.T) {
	p := loneParticipant(t)
	ctx := waitCtx(t)
	topic := Topic{Name: "local/concurrent", TypeName: "Bytes"}
	c := newCollector()
	r, err := Subscribe(p, topic, QoS{History: KeepAll})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.OnInput(func(s Sample) { c.add(s) })
	const writers, goroutines, each = 3, 4, 500
	var ws []*Writer
	for range writers {
		w, err := NewWriter(p, topic, QoS{History: KeepAll})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if err := w.WaitMatched(ctx, 1); err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	var wg sync.WaitGroup
	for _, w := range ws {
		for range goroutines {
			wg.Go(func() {
				for i := range each {
					if err := w.Write(ctx, numbered(i, 16)); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
	}
	wg.Wait()
	got := c.wait(t, ctx, writers*goroutines*each)
	last := map[GUID]int64{}
	for _, s := range got {
		if s.SN != last[s.Writer]+1 {
			t.Fatalf("writer %v: SN %d after %d", s.Writer, s.SN, last[s.Writer])
		}
		last[s.Writer] = s.SN
	}
}

// TestLocalCloseReaderMidStream closes a reader while a writer streams to
// it: the writer goes on, and nothing is delivered after Close returns.
func TestLocalCloseReaderMidStream(t *testing.T) {
	p := loneParticipant(t)
	ctx := waitCtx(t)
	var n atomic.Int64
	half := make(chan struct{})
	r, w := localPair(t, p, QoS{}, QoS{}, func(s Sample) {
		if n.Add(1) == 100 {
			close(half)
		}
	})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 1; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if err := w.Write(ctx, numbered(i, 16)); err != nil {
				t.Errorf("write after the reader closed: %v", err)
				return
			}
		}
	})
	<-half
	r.Close()
	after := n.Load()
	if err := w.WaitStatus(ctx, func(s MatchStatus) bool { return s.Matched == 0 }); err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if err := w.Write(ctx, numbered(i, 16)); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	if got := n.Load(); got != after {
		t.Fatalf("%d samples delivered after Close", got-after)
	}
}

// TestLocalCloseWriterMidStream closes a writer while it streams to a
// local reader: the reader got a prefix, in order, and is unmatched.
func TestLocalCloseWriterMidStream(t *testing.T) {
	p := loneParticipant(t)
	ctx := waitCtx(t)
	c := newCollector()
	r, w := localPair(t, p, QoS{}, QoS{}, c.add)
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 1; ; i++ {
			err := w.Write(ctx, numbered(i, 16))
			if errors.Is(err, ErrClosed) {
				return
			}
			if err != nil {
				t.Error(err)
				return
			}
		}
	})
	c.wait(t, ctx, 100)
	w.Close()
	wg.Wait()
	if err := r.WaitStatus(ctx, func(s MatchStatus) bool { return s.Matched == 0 }); err != nil {
		t.Fatal(err)
	}
	got := c.wait(t, ctx, 100)
	checkInOrder(t, got, w, 1)
}

// TestLocalSubReader checks a Sub reader (NewReader) of the writer's own
// participant, with the afor.Sub machinery in between.
func TestLocalSubReader(t *testing.T) {
	p := loneParticipant(t)
	ctx := waitCtx(t)
	topic := Topic{Name: "local/sub", TypeName: "Bytes"}
	r, err := NewReader(p, topic, QoS{}, afor.WithDefaultQueueSize(0))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w, err := NewWriter(p, topic, QoS{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	l := r.Sub().Listener(ctx, afor.Fresh(), afor.QueueSize(0))
	defer l.Stop()
	for i := 1; i <= 100; i++ {
		if err := w.Write(ctx, numbered(i, 16)); err != nil {
			t.Fatal(err)
		}
	}
	var got []Sample
	for range 100 {
		s, err := l.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	checkInOrder(t, got, w, 1)
}

// BenchmarkLocalRoundTrip is BenchmarkRoundTrip64 within one participant:
// a writer's ping reaches a reader whose callback answers with a pong,
// which reaches the first side's reader, all in memory.
func BenchmarkLocalRoundTrip(b *testing.B) {
	p := newTestParticipant(b, Config{DomainID: nextDomain(), Range: RangeOff})
	ctx := context.Background()
	ping := Topic{Name: "bench/ping", TypeName: "Bytes"}
	pong := Topic{Name: "bench/pong", TypeName: "Bytes"}
	pongW, err := NewWriter(p, pong, QoS{})
	if err != nil {
		b.Fatal(err)
	}
	echo, err := NewReaderFunc(p, ping, QoS{}, func(s Sample) { _ = pongW.Write(ctx, s.Payload) })
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { echo.Close() })
	got := make(chan struct{}, 1)
	back, err := NewReaderFunc(p, pong, QoS{}, func(Sample) { got <- struct{}{} })
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { back.Close() })
	pingW, err := NewWriter(p, ping, QoS{})
	if err != nil {
		b.Fatal(err)
	}
	payload := append([]byte{0, 1, 0, 0}, make([]byte, 60)...)
	b.ReportAllocs()
	for b.Loop() {
		if err := pingW.Write(ctx, payload); err != nil {
			b.Fatal(err)
		}
		<-got // delivered within Write, by this goroutine
	}
}

// TestLocalTypedWriterReentrant has a SubscribeCodec callback write through
// the TypedWriter whose sample it handles: Write runs the callback, which
// writes again, without deadlocking on the TypedWriter.
func TestLocalTypedWriterReentrant(t *testing.T) {
	p := loneParticipant(t)
	ctx := waitCtx(t)
	topic := Topic{Name: "local/typed", TypeName: "std_msgs::msg::dds_::String_"}
	codec := afor.Codec[string](stringCodec{})
	tw, err := NewTypedWriter(p, topic, QoS{}, codec)
	if err != nil {
		t.Fatal(err)
	}
	defer tw.Close()
	r, sub, err := NewCodecReader(p, topic, QoS{}, codec)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []string
	sub.OnInput(func(s string) {
		got = append(got, s)
		if len(s) < 5 {
			if err := tw.Write(ctx, s+"x"); err != nil {
				t.Error(err)
			}
		}
	})
	if err := tw.Writer().WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := tw.Write(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	// One participant, nothing else delivering: the chain ran within Write.
	if want := []string{"x", "xx", "xxx", "xxxx", "xxxxx"}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestLocalWriteAllocs checks the hot path: a write delivered in memory to
// a callback reader allocates the reader's payload copy, nothing else.
func TestLocalWriteAllocs(t *testing.T) {
	p := loneParticipant(t)
	var n int
	_, w := localPair(t, p, QoS{}, QoS{}, func(Sample) { n++ })
	ctx := context.Background()
	payload := numbered(1, 64)
	_ = w.Write(ctx, payload) // grows the queue
	if a := testing.AllocsPerRun(1000, func() { _ = w.Write(ctx, payload) }); a != 1 {
		t.Errorf("a local write allocates %v times, want 1 (the payload copy)", a)
	}
	if n != 1002 {
		t.Errorf("%d samples delivered, want 1002", n)
	}
}

// TestLocalAndRemoteWritersInterleave streams to one reader from a local
// writer and a remote one at once: the receive goroutine and the writing
// goroutine take turns delivering, and each writer's samples arrive in
// order.
func TestLocalAndRemoteWritersInterleave(t *testing.T) {
	a, b := localhostPair(t)
	ctx := waitCtx(t)
	topic := Topic{Name: "local/interleave", TypeName: "Bytes"}
	c := newCollector()
	r, err := NewReaderFunc(a, topic, QoS{History: KeepAll}, c.add)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var ws []*Writer
	for _, p := range []*Participant{a, b} {
		// Writes wait for room as long as the test's ctx allows: the
		// default 100 ms ran out on a loaded machine (ErrTimeout).
		w, err := NewWriter(p, topic, QoS{History: KeepAll, MaxBlocking: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if err := w.WaitMatched(ctx, 1); err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	if err := r.WaitMatched(ctx, 2); err != nil {
		t.Fatal(err)
	}
	const n = 2000
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Go(func() {
			for i := 1; i <= n; i++ {
				if err := w.Write(ctx, numbered(i, 16)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	got := c.wait(t, ctx, 2*n)
	next := map[GUID]int{}
	for _, s := range got {
		next[s.Writer]++
		if s.SN != int64(next[s.Writer]) || numberOf(s.Payload) != next[s.Writer] {
			t.Fatalf("writer %v: SN %d, want %d", s.Writer, s.SN, next[s.Writer])
		}
	}
	if next[ws[0].GUID()] != n || next[ws[1].GUID()] != n {
		t.Fatalf("got %v", next)
	}
}
