package dds

import (
	"bytes"
	"testing"
)

// TestReaderLoan: a loaning reader gets every sample intact, small ones
// (lent from the datagram) and fragmented ones (reassembled in the buffer
// of the previous sample), as long as fn copies what it keeps.
func TestReaderLoan(t *testing.T) {
	a, b := localhostPair(t)
	ctx := waitCtx(t)
	topic := Topic{Name: "loan", TypeName: "Bytes"}
	q := QoS{History: KeepAll}
	got := make(chan []byte, 16)
	r, err := NewReaderLoan(b, topic, q, func(s Sample) { got <- bytes.Clone(s.Payload) })
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w, err := NewWriter(a, topic, q)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	sample := func(i, n int) []byte {
		p := append([]byte{0, 1, 0, 0}, make([]byte, n)...)
		for j := 4; j < len(p); j++ {
			p[j] = byte(i + j)
		}
		return p
	}
	sizes := []int{60, 4096, 3 * fragSize, 3*fragSize - 100, 100, 2 * fragSize, 3 * fragSize}
	for i, n := range sizes {
		if err := w.Write(ctx, sample(i, n)); err != nil {
			t.Fatal(err)
		}
	}
	for i, n := range sizes {
		select {
		case p := <-got:
			if want := sample(i, n); !bytes.Equal(p, want) {
				t.Fatalf("sample %d (%d bytes): got %d bytes, differing", i, n, len(p))
			}
		case <-ctx.Done():
			t.Fatalf("sample %d: %v", i, ctx.Err())
		}
	}
	if _, err := NewReaderLoan(b, topic, q, nil); err == nil {
		t.Error("nil fn accepted")
	}
}
