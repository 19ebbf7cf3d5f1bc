package dds

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/netns"
)

// BenchmarkRoundTripProcessesCallback measures the 64-byte round trip to a
// Go pong process the way ddsperf ping does: each ping is written from the
// callback that receives the previous pong, so no goroutine hand-off sits
// on the path. Compare with BenchmarkRoundTripProcesses, which waits in
// the benchmark goroutine (one hand-off per round trip).
func BenchmarkRoundTripProcessesCallback(b *testing.B) {
	netns.Require(b)
	d := nextDomain()
	startHelper(b, "pong", d)
	p := newTestParticipant(b, Config{DomainID: d, Range: RangeSubnet})
	ctx := context.Background()
	w, err := NewWriter(p, benchPing, QoS{})
	if err != nil {
		b.Fatal(err)
	}
	backR, err := NewReader(p, benchPong, QoS{})
	if err != nil {
		b.Fatal(err)
	}
	defer backR.Close()
	payload := append([]byte{0, 1, 0, 0}, make([]byte, 60)...)
	var left atomic.Int64
	done := make(chan struct{}, 1)
	backR.Sub().OnInput(func(Sample) {
		if left.Add(-1) > 0 {
			_ = w.Write(ctx, payload)
			return
		}
		done <- struct{}{}
	})
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := w.WaitMatched(wctx, 1); err != nil {
		b.Fatal(err)
	}
	if err := backR.WaitMatched(wctx, 1); err != nil {
		b.Fatal(err)
	}
	run := func(n int) time.Duration {
		left.Store(int64(n))
		t0 := time.Now()
		if err := w.Write(ctx, payload); err != nil {
			b.Fatal(err)
		}
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			b.Fatal("round trips lost")
		}
		return time.Since(t0) / time.Duration(n)
	}
	run(200)
	b.ResetTimer()
	rt := run(b.N)
	b.StopTimer()
	b.ReportMetric(float64(rt.Nanoseconds()), "go-ns/rt")
}
