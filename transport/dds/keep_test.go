package dds

import (
	"bytes"
	"context"
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
