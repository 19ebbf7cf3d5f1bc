package dds

import (
	"fmt"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/transport/dds/internal/rtps"
)

// TestBatchBurst writes a burst of samples from a writer that never counts
// as idle: they travel several to a datagram, and every one arrives, in
// order, best-effort and reliable.
func TestBatchBurst(t *testing.T) {
	for _, q := range []QoS{{History: KeepAll}, {Reliability: BestEffort, History: KeepAll}} {
		t.Run(fmt.Sprint(q.Reliability), func(t *testing.T) {
			const n = 300
			d := nextDomain()
			a := newTestParticipant(t, Config{DomainID: d, Range: RangeLocalhost, directGap: time.Hour})
			b := newTestParticipant(t, Config{DomainID: d, Range: RangeLocalhost})
			ctx := waitCtx(t)
			r, w := matchedPair(t, ctx, a, b, q, afor.WithDefaultQueueSize(0))
			l := r.Sub().Listener(ctx, afor.Fresh(), afor.QueueSize(0))
			defer l.Stop()
			sent0 := a.Stats().Sent
			for i := range n {
				if err := w.Write(ctx, cdrString(fmt.Sprint("hello ", i))); err != nil {
					t.Fatal(err)
				}
			}
			for i := range n {
				s, err := l.Next(ctx)
				if err != nil {
					t.Fatalf("sample %d: %v", i, err)
				}
				if got, ok := cdrStringDecode(s.Payload); !ok || got != fmt.Sprint("hello ", i) {
					t.Fatalf("sample %d: got %q", i, got)
				}
			}
			// Every datagram a sent since: the data, SPDP announcements,
			// heartbeats and answers to acknacks. Without batching the
			// data alone would take n.
			if sent := a.Stats().Sent - sent0; sent >= n/2 {
				t.Errorf("%d datagrams for %d samples: not batched", sent, n)
			}
		})
	}
}

// TestBatchLoneSampleDirect checks that a sample written while the writer
// is idle leaves at once, without the flusher: it is in flight before
// Write returns.
func TestBatchLoneSampleDirect(t *testing.T) {
	a, b := localhostPair(t)
	ctx := waitCtx(t)
	r, err := NewReader(b, chatter, QoS{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w, err := NewWriter(a, chatter, QoS{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := r.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		w.mu.Lock()
		w.lastSend = time.Time{} // idle: the last send is long past
		w.mu.Unlock()
		sent0 := a.Stats().Sent
		if err := w.Write(ctx, cdrString(fmt.Sprint("lone ", i))); err != nil {
			t.Fatal(err)
		}
		if a.Stats().Sent == sent0 {
			t.Fatalf("write %d: nothing sent before Write returned", i)
		}
		w.mu.Lock()
		pending := w.proxies[0].batch.n
		w.mu.Unlock()
		if pending != 0 {
			t.Fatalf("write %d: %d samples left pending", i, pending)
		}
	}
}

// A writer counts as idle again once a sample arrives (it may be
// answering it), not when an acknowledgment does: the ACKNACKs of a
// reliable reader would otherwise send a stream one datagram per sample.
func TestBatchIdleAfterSamplesNotAcknowledgments(t *testing.T) {
	a := newTestParticipant(t, Config{DomainID: nextDomain(), Range: RangeLocalhost, directGap: time.Hour})
	w, err := NewWriter(a, chatter, QoS{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	h := &rx{p: a}
	h.rcv.Self = a.prefix
	peer := rtps.GuidPrefix{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	var b rtps.Builder
	idle := func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.idle(time.Now())
	}
	w.mu.Lock()
	w.sentNow()
	w.mu.Unlock()
	if idle() {
		t.Fatal("idle right after a send")
	}
	b.Reset(rtps.Header{Version: rtps.ProtocolVersion24, Vendor: rtps.VendorAfor, Prefix: peer})
	b.AckNack(&rtps.AckNack{ReaderID: rtps.NewUserEntityID(1, rtps.KindReaderNoKey), WriterID: w.guid.Entity, State: rtps.SNSet{Base: 1}, Count: 1})
	h.input(b.Bytes())
	if idle() {
		t.Fatal("an ACKNACK made the writer idle")
	}
	b.Reset(rtps.Header{Version: rtps.ProtocolVersion24, Vendor: rtps.VendorAfor, Prefix: peer})
	b.Data(&rtps.Data{ReaderID: rtps.EntityUnknown, WriterID: rtps.NewUserEntityID(1, rtps.KindWriterNoKey), SN: 1, Payload: cdrString("request")})
	h.input(b.Bytes())
	if !idle() {
		t.Fatal("a sample received did not make the writer idle")
	}
}
