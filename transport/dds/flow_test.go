package dds

import (
	"errors"
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
