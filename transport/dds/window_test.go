package dds

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/afor-go/afor/transport/dds/internal/rtps"
)

// The window halves once per loss (NACKs of samples written before the
// cut are the same loss), never below windowMin, and grows one step per
// acknowledgment that passes the last change, never above unackedBytes.
func TestWindowHalvesOnLossGrowsOnCleanAcks(t *testing.T) {
	w := &Writer{win: flowWindow{size: unackedBytes}}
	w.lastSN = 100
	w.lost(50)
	if w.win.size != unackedBytes/2 {
		t.Fatalf("after a loss: window %d, want %d", w.win.size, unackedBytes/2)
	}
	w.lastSN = 120
	w.lost(90) // written before the cut: the same loss
	if w.win.size != unackedBytes/2 {
		t.Fatalf("a second NACK of the same loss halved the window again: %d", w.win.size)
	}
	w.ackedClean(100) // does not pass the cut at 100
	if w.win.size != unackedBytes/2 {
		t.Fatalf("an acknowledgment up to the cut grew the window: %d", w.win.size)
	}
	w.ackedClean(101)
	if w.win.size != unackedBytes/2+windowStep {
		t.Fatalf("a clean acknowledgment past the cut: window %d, want %d", w.win.size, unackedBytes/2+windowStep)
	}
	w.ackedClean(110) // before the last change (at 120)
	if w.win.size != unackedBytes/2+windowStep {
		t.Fatalf("two steps in one round trip: %d", w.win.size)
	}
	for i := range 100 {
		w.lastSN += 10
		w.lost(w.lastSN)
		if i > 10 && w.win.size != windowMin {
			t.Fatalf("window %d after many losses, want the floor %d", w.win.size, windowMin)
		}
	}
	for range 1000 {
		w.lastSN += 10
		w.ackedClean(w.lastSN)
	}
	if w.win.size != unackedBytes {
		t.Fatalf("window %d after many clean acknowledgments, want %d", w.win.size, unackedBytes)
	}
}

// A reader that loses datagrams makes a streaming writer halve its window;
// every sample still arrives.
func TestWindowShrinksForALossyReader(t *testing.T) {
	const n = 2000
	d := nextDomain()
	var mu sync.Mutex
	k := 0
	drop := func(b []byte) bool {
		mu.Lock()
		defer mu.Unlock()
		k++
		return len(b) > 1000 && k%50 == 0 // data only, one datagram in 50
	}
	a := newTestParticipant(t, Config{DomainID: d, Range: RangeLocalhost, directGap: time.Hour})
	b := newTestParticipant(t, Config{DomainID: d, Range: RangeLocalhost, dropIn: drop})
	ctx := waitCtx(t)
	q := QoS{History: KeepAll}
	got := make(chan struct{})
	count := 0
	r, err := NewReaderFunc(b, chatter, q, func(Sample) {
		if count++; count == n {
			close(got)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w, err := NewWriter(a, chatter, q)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	payload := append(cdrString("x"), make([]byte, 4096)...)
	for range n {
		if err := w.Write(ctx, payload); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-got:
	case <-ctx.Done():
		t.Fatalf("%d of %d samples arrived", count, n)
	}
	w.mu.Lock()
	size := w.win.size
	w.mu.Unlock()
	if size >= unackedBytes {
		t.Errorf("window %d after losses, want it below %d", size, unackedBytes)
	}
}

// hbCheck records, from the datagrams a participant receives, whether a
// HEARTBEAT of a user writer ever announced a sample that had not arrived
// before it (and was not lost).
type hbCheck struct {
	rtps.NopHandler
	mu      sync.Mutex
	maxData rtps.SequenceNumber
	hbs     int
	ahead   []string
}

func (h *hbCheck) Data(_ *rtps.Context, d *rtps.Data) {
	if !d.WriterID.IsBuiltin() {
		h.maxData = max(h.maxData, d.SN)
	}
}

func (h *hbCheck) Heartbeat(_ *rtps.Context, hb *rtps.Heartbeat) {
	if hb.WriterID.IsBuiltin() {
		return
	}
	h.hbs++
	if hb.Last > h.maxData {
		h.ahead = append(h.ahead, fmt.Sprintf("HEARTBEAT last %d after DATA up to %d", hb.Last, h.maxData))
	}
}

// A writer streaming samples in batches closes each batch with a HEARTBEAT
// that announces no sample beyond it: one announcing the sample that
// overflowed the batch (still unsent) had every reader ask for it at once,
// and a third of a 4 KiB stream was sent twice.
func TestBatchHeartbeatAnnouncesOnlySent(t *testing.T) {
	const n = 300
	d := nextDomain()
	check := &hbCheck{}
	var rcv rtps.Receiver
	inspect := func(b []byte) bool {
		check.mu.Lock()
		defer check.mu.Unlock()
		_ = rcv.Parse(b, check)
		return false
	}
	a := newTestParticipant(t, Config{DomainID: d, Range: RangeLocalhost, directGap: time.Hour})
	b := newTestParticipant(t, Config{DomainID: d, Range: RangeLocalhost, dropIn: inspect})
	ctx := waitCtx(t)
	streamKeepAll(t, ctx, a, b, append(cdrString("4 KiB"), bytes.Repeat([]byte{7}, 4096)...), n)
	check.mu.Lock()
	defer check.mu.Unlock()
	if check.hbs == 0 {
		t.Fatal("no HEARTBEAT seen")
	}
	if len(check.ahead) > 0 {
		t.Errorf("%d of %d HEARTBEATs announced unsent samples, first: %s", len(check.ahead), check.hbs, check.ahead[0])
	}
}
