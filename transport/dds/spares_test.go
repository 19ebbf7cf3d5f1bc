package dds

import (
	"context"
	"slices"
	"testing"
)

// Spare changes are kept up to sparesMax bytes, at least one whatever its
// size, and handed out most recent first.
func TestSparesBound(t *testing.T) {
	var s spares
	big := &change{payload: make([]byte, 2*sparesMax)}
	s.put(big)
	if s.get() != big {
		t.Fatal("a spare larger than the bound was not kept alone")
	}
	n := 0
	for range 2 * sparesMax / 4096 {
		s.put(&change{payload: make([]byte, 4096)})
	}
	for s.get() != nil {
		n++
	}
	if n != sparesMax/4096 {
		t.Fatalf("%d spares of 4 KiB kept, want %d", n, sparesMax/4096)
	}
	if s.bytes != 0 {
		t.Fatalf("%d bytes counted in an empty list", s.bytes)
	}
	// The changes of a full history of 4,100-byte samples (an
	// encapsulation header and 4 KiB, in buffers of Go's 4,864-byte size
	// class) all fit.
	sample := make([]byte, 4100)
	full := sparesMax / len(sample)
	for range full {
		s.put(&change{payload: slices.Clone(sample)})
	}
	if len(s.cs) != full {
		t.Fatalf("%d of the %d changes of a full history kept", len(s.cs), full)
	}
}

// A writer whose history drops samples copies the next ones into the
// dropped ones: a steady stream of 4 KiB samples allocates nothing.
func TestWriteReusesDroppedChanges(t *testing.T) {
	p := newTestParticipant(t, Config{DomainID: nextDomain(), Range: RangeLocalhost})
	w, err := NewWriter(p, chatter, QoS{Reliability: Reliable, History: KeepLast, Depth: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	payload := append(cdrString("x"), make([]byte, 4096)...)
	ctx := context.Background()
	for range 8 {
		if err := w.Write(ctx, payload); err != nil {
			t.Fatal(err)
		}
	}
	allocs := testing.AllocsPerRun(100, func() {
		if err := w.Write(ctx, payload); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per write, want 0", allocs)
	}
}
