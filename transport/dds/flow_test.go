package dds

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// A reader that stops answering (its participant crashed, its lease not
// yet over) must not grow a writer's history beyond its limits.
func TestDeadReaderBoundsHistory(t *testing.T) {
	for _, q := range []QoS{
		{History: KeepAll, MaxSamples: 10, MaxBlocking: 50 * time.Millisecond},
		{History: KeepLast, Depth: 10},
	} {
		t.Run(q.History.String(), func(t *testing.T) {
			a, b := localhostPair(t)
			ctx := waitCtx(t)
			w, err := NewWriter(a, chatter, q)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := NewReader(b, chatter, QoS{}); err != nil {
				t.Fatal(err)
			}
			if err := w.WaitMatched(ctx, 1); err != nil {
				t.Fatal(err)
			}
			b.close(false)
			var timeouts int
			for i := range 30 {
				err := w.Write(ctx, cdrString("x"))
				switch {
				case errors.Is(err, ErrTimeout) && q.History == KeepAll && i >= 10:
					timeouts++
				case err != nil:
					t.Fatalf("write %d: %v", i, err)
				}
				w.mu.Lock()
				n := w.hist.len()
				w.mu.Unlock()
				if n > 10 {
					t.Fatalf("history of %d samples after write %d", n, i)
				}
			}
			if q.History == KeepAll && timeouts != 20 {
				t.Fatalf("%d writes timed out, want 20", timeouts)
			}
		})
	}
}

// A reader callback that writes more samples than a reliable KEEP_ALL
// history holds to a remote reader (an echo, an acknowledgment of each
// sample, as the bench's dds-proc sink does) must wait for that reader's
// ACKNACKs, not for MaxBlocking: the callback runs in the goroutine that
// reads the participant's user socket, so the ACKNACKs must arrive
// elsewhere. Each request is answered with more replies than the history
// holds, so every answer blocks at least once; none may fail, and every
// reply must arrive, also when the sockets drop datagrams.
func TestCallbackWriteWaitsForRemoteAcks(t *testing.T) {
	t.Run("clean", func(t *testing.T) { testCallbackWrites(t, nil) })
	t.Run("lossy", func(t *testing.T) {
		var n atomic.Int64
		testCallbackWrites(t, func([]byte) bool { return n.Add(1)%8 == 0 })
	})
}

func testCallbackWrites(t *testing.T, drop func([]byte) bool) {
	const (
		requests = 20
		replies  = 16 // per request, four times the history
	)
	d := nextDomain()
	a := newTestParticipant(t, Config{DomainID: d, Range: RangeLocalhost, dropIn: drop})
	b := newTestParticipant(t, Config{DomainID: d, Range: RangeLocalhost, dropIn: drop})
	ctx := waitCtx(t)
	qos := QoS{Reliability: Reliable, History: KeepAll, MaxSamples: replies / 4, MaxBlocking: 5 * time.Second}
	reqTopic := Topic{Name: "flow/requests", TypeName: chatter.TypeName}
	repTopic := Topic{Name: "flow/replies", TypeName: chatter.TypeName}

	var got atomic.Int64
	all := make(chan struct{})
	repR, err := NewReaderFunc(a, repTopic, qos, func(Sample) {
		if got.Add(1) == requests*replies {
			close(all)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	repW, err := NewWriter(b, repTopic, qos)
	if err != nil {
		t.Fatal(err)
	}
	failed := make(chan error, 1)
	if _, err := NewReaderFunc(b, reqTopic, qos, func(s Sample) {
		for range replies {
			if err := repW.Write(ctx, s.Payload); err != nil {
				select {
				case failed <- err:
				default:
				}
				return
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	reqW, err := NewWriter(a, reqTopic, qos)
	if err != nil {
		t.Fatal(err)
	}
	for _, wait := range []func(context.Context, int) error{reqW.WaitMatched, repW.WaitMatched, repR.WaitMatched} {
		if err := wait(ctx, 1); err != nil {
			t.Fatal(err)
		}
	}
	for i := range requests {
		if err := reqW.Write(ctx, cdrString(fmt.Sprint(i))); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	select {
	case <-all:
	case err := <-failed:
		t.Fatalf("a reply written from the request callback failed: %v", err)
	case <-ctx.Done():
	}
	if n := got.Load(); n != requests*replies {
		t.Fatalf("%d replies arrived, want %d", n, requests*replies)
	}
}

// A reader's callback that waits (for room in a KEEP_ALL history, say)
// must not hold up the participant's timers: their HEARTBEATs are what
// asks the remote readers for the acknowledgments it waits for.
func TestReaderTickWhileCallbackWaits(t *testing.T) {
	a, b := localhostPair(t)
	ctx := waitCtx(t)
	in, release := make(chan struct{}, 1), make(chan struct{})
	defer close(release)
	r, err := NewReaderFunc(b, chatter, QoS{}, func(Sample) {
		select {
		case in <- struct{}{}:
		default:
		}
		<-release
	})
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWriter(a, chatter, QoS{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, cdrString("wait")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-in:
	case <-ctx.Done():
		t.Fatal("the callback did not run")
	}
	ticked := make(chan struct{})
	go func() {
		r.tick(time.Now())
		close(ticked)
	}()
	select {
	case <-ticked:
	case <-ctx.Done():
		t.Fatal("the reader's tick waited for its callback")
	}
}

// A volatile KEEP_ALL writer holds at most unackedBytes that its reliable
// readers have not acknowledged (plus one sample): with a reader that
// stopped answering, writes of large samples wait and time out once that
// much is in flight, far below MaxSamples; a single sample larger than
// the bound still goes out.
func TestUnackedBytesBoundKeepAll(t *testing.T) {
	a, b := localhostPair(t)
	ctx := waitCtx(t)
	w, err := NewWriter(a, chatter, QoS{History: KeepAll, MaxBlocking: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewReader(b, chatter, QoS{History: KeepAll}); err != nil {
		t.Fatal(err)
	}
	if err := w.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	b.close(false)
	big := make([]byte, unackedBytes+1)
	if err := w.Write(ctx, big); err != nil {
		t.Fatalf("one sample above the bound: %v", err)
	}
	if err := w.Write(ctx, make([]byte, 8)); !errors.Is(err, ErrTimeout) {
		t.Fatalf("a write beyond the bound: %v, want ErrTimeout", err)
	}
}

// With a live reader the bound only paces the writer: a burst of large
// samples, more than the bound holds, all arrive in order.
func TestUnackedBytesBoundPaces(t *testing.T) {
	a, b := localhostPair(t)
	ctx := waitCtx(t)
	q := QoS{History: KeepAll, MaxBlocking: 5 * time.Second}
	got := make(chan int, 64)
	if _, err := NewReaderFunc(b, chatter, q, func(s Sample) {
		got <- int(s.Payload[4])
	}); err != nil {
		t.Fatal(err)
	}
	w, err := NewWriter(a, chatter, q)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	const n = 64 // 4 MiB of 64 KiB samples
	for i := range n {
		p := append([]byte{0, 1, 0, 0, byte(i)}, make([]byte, 64<<10)...)
		if err := w.Write(ctx, p); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		w.mu.Lock()
		held := w.hist.bytes
		w.mu.Unlock()
		if held > unackedBytes+len(p) {
			t.Fatalf("after write %d the history holds %d bytes", i, held)
		}
	}
	for i := range n {
		select {
		case v := <-got:
			if v != i {
				t.Fatalf("sample %d arrived as %d", i, v)
			}
		case <-ctx.Done():
			t.Fatalf("%d of %d samples arrived", i, n)
		}
	}
}
