package dds

import (
	"context"
	"errors"
	"testing"
	"time"
)

// WaitAcknowledged returns once the readers have everything written before
// it, on another participant (over UDP, a KEEP_LAST writer that rarely
// asks for acknowledgments) and on the writer's own (in memory), so that
// the writer may close at once.
func TestWaitAcknowledged(t *testing.T) {
	for _, remote := range []bool{true, false} {
		name := map[bool]string{true: "remote", false: "local"}[remote]
		t.Run(name, func(t *testing.T) {
			a, b := localhostPair(t)
			ctx := waitCtx(t)
			topic := Topic{Name: "acked/" + name, TypeName: "Bytes"}
			rp := b
			if !remote {
				rp = a
			}
			c := newCollector()
			r, err := NewReaderFunc(rp, topic, QoS{Depth: 100}, c.add)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			w, err := NewWriter(a, topic, QoS{Depth: 100})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if err := w.WaitMatched(ctx, 1); err != nil {
				t.Fatal(err)
			}
			const n = 50
			for i := 1; i <= n; i++ {
				if err := w.Write(ctx, numbered(i, 100)); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.WaitAcknowledged(ctx); err != nil {
				t.Fatal(err)
			}
			// Everything is the reader's now: closing the writer at once
			// loses nothing.
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if got := c.wait(t, ctx, n); len(got) != n {
				t.Fatalf("%d samples, want %d", len(got), n)
			}
		})
	}
}

func TestWaitAcknowledgedNoReaderClosedAndCancelled(t *testing.T) {
	a, b := localhostPair(t)
	ctx := waitCtx(t)
	topic := Topic{Name: "acked/edges", TypeName: "Bytes"}
	w, err := NewWriter(a, topic, QoS{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, numbered(1, 10)); err != nil {
		t.Fatal(err)
	}
	if err := w.WaitAcknowledged(ctx); err != nil {
		t.Fatalf("without readers: %v", err)
	}
	// A best-effort reader acknowledges nothing and is not waited for.
	be, err := NewReader(b, topic, QoS{Reliability: BestEffort})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	if err := w.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, numbered(2, 10)); err != nil {
		t.Fatal(err)
	}
	if err := w.WaitAcknowledged(ctx); err != nil {
		t.Fatalf("with a best-effort reader: %v", err)
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	// A reliable reader that has not acknowledged yet, and a ctx that
	// ended: its error.
	r, err := NewReader(b, topic, QoS{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := w.WaitMatched(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, numbered(3, 10)); err != nil {
		t.Fatal(err)
	}
	if err := w.WaitAcknowledged(done); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("with an ended ctx: %v", err)
	}
	_ = w.Close()
	short, stop := context.WithTimeout(ctx, time.Second)
	defer stop()
	if err := w.WaitAcknowledged(short); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v, want ErrClosed", err)
	}
}
