package dds

import (
	"bytes"
	"context"
	"errors"
	"testing"
)

// A KEEP_LAST history copies each sample into the buffer of the sample it
// dropped last, keeps what it holds intact while the caller reuses its
// own buffer, and allocates again for a sample that does not fit.
func TestKeepLastReusesDroppedPayload(t *testing.T) {
	p := newTestParticipant(t, Config{DomainID: nextDomain(), Range: RangeLocalhost})
	w, err := NewWriter(p, Topic{Name: "keep/reuse", TypeName: "Bytes"},
		QoS{Reliability: Reliable, Durability: TransientLocal, History: KeepLast, Depth: 2})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	buf := make([]byte, 4096)
	write := func(b byte, n int) {
		t.Helper()
		for i := range buf[:n] {
			buf[i] = b
		}
		if err := w.Write(ctx, buf[:n]); err != nil {
			t.Fatal(err)
		}
	}
	held := func() [][]byte {
		w.mu.Lock()
		defer w.mu.Unlock()
		var ps [][]byte
		for _, c := range w.hist.changes {
			ps = append(ps, c.payload)
		}
		return ps
	}
	write(1, 4096)
	write(2, 4096)
	first := &held()[0][0]
	write(3, 4096) // drops sample 1, whose buffer sample 4 takes
	write(4, 4096)
	got := held()
	if len(got) != 2 || &got[1][0] != first {
		t.Fatalf("history %d samples, last one in a new buffer: want it in the dropped one's", len(got))
	}
	for i, want := range []byte{3, 4} {
		if !bytes.Equal(got[i], bytes.Repeat([]byte{want}, 4096)) {
			t.Fatalf("history sample %d: not the bytes written", i)
		}
	}
	if &got[0][0] == &buf[0] || &got[1][0] == &buf[0] {
		t.Fatal("history refers to the caller's buffer")
	}
	write(5, 64) // far smaller than the spare: a buffer of its own size
	if p := held()[1]; cap(p) >= 4096 || !bytes.Equal(p, bytes.Repeat([]byte{5}, 64)) {
		t.Fatalf("small sample kept in a buffer of %d bytes", cap(p))
	}
	if err := w.Write(ctx, []byte{}); err != nil {
		t.Fatal(err)
	}
	if p := held()[1]; p == nil {
		t.Fatal("an empty sample became a nil payload (a dispose)")
	}
}

// WriteBuffer keeps the payload it is handed in the history without a
// copy, and hands back the buffer of the sample the history dropped; a
// writer that keeps nothing hands the payload itself back, and so does a
// write that fails.
func TestWriteBufferKeepsAndReturnsDropped(t *testing.T) {
	p := newTestParticipant(t, Config{DomainID: nextDomain(), Range: RangeLocalhost})
	w, err := NewWriter(p, Topic{Name: "keep/buffer", TypeName: "Bytes"},
		QoS{Reliability: Reliable, Durability: TransientLocal, History: KeepLast, Depth: 2})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var bufs [][]byte
	for i := range 3 {
		b := bytes.Repeat([]byte{byte(i + 1)}, 100)
		bufs = append(bufs, b)
		spare, err := w.WriteBuffer(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case i < 2 && spare != nil:
			t.Fatalf("write %d: got a spare buffer before the history dropped anything", i)
		case i == 2 && (len(spare) == 0 || &spare[0] != &bufs[0][0]):
			t.Fatal("write 2: want the dropped sample's buffer back")
		}
	}
	w.mu.Lock()
	for i, c := range w.hist.changes {
		if &c.payload[0] != &bufs[i+1][0] {
			t.Errorf("history sample %d is a copy: want the buffer handed over", i)
		}
	}
	w.mu.Unlock()

	be, err := NewWriter(p, Topic{Name: "keep/buffer-be", TypeName: "Bytes"},
		QoS{Reliability: BestEffort, History: KeepLast, Depth: 2})
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 10)
	if spare, err := be.WriteBuffer(ctx, b); err != nil || &spare[0] != &b[0] {
		t.Fatalf("best-effort volatile writer: spare %p, err %v: want the payload back", spare, err)
	}
	big := make([]byte, p.cfg.maxSample+1)
	if spare, err := be.WriteBuffer(ctx, big); !errors.Is(err, ErrTooLarge) || &spare[0] != &big[0] {
		t.Fatalf("too large: err %v, want ErrTooLarge and the payload back", err)
	}
	_ = be.Close()
	if spare, err := be.WriteBuffer(ctx, b); !errors.Is(err, ErrClosed) || &spare[0] != &b[0] {
		t.Fatalf("closed: err %v, want ErrClosed and the payload back", err)
	}
}
