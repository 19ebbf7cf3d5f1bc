//go:build unix

package dds

import (
	"context"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/netns"
)

// BenchmarkRoundTripProcessesCallback measures the 64-byte round trip to a
// Go pong process the way ddsperf ping does: each ping is written from the
// callback that receives the previous pong, so no goroutine hand-off sits
// on the path. Compare with BenchmarkRoundTripProcesses, which waits in
// the benchmark goroutine (one hand-off per round trip). It also reports
// this process's CPU time and context switches per round trip.
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
		switch n := left.Add(-1); {
		case n > 0:
			_ = w.Write(ctx, payload)
		case n == 0:
			done <- struct{}{}
		}
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
	// The pong answers once its reader and writer have matched ours,
	// which can be after ours matched theirs: retry the first ping.
	for answered := false; !answered; {
		left.Store(1)
		if err := w.Write(ctx, payload); err != nil {
			b.Fatal(err)
		}
		select {
		case <-done:
			answered = true
		case <-time.After(100 * time.Millisecond):
		}
	}
	run(200)
	var u0, u1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &u0)
	b.ResetTimer()
	rt := run(b.N)
	b.StopTimer()
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &u1)
	b.ReportMetric(float64(rt.Nanoseconds()), "go-ns/rt")
	b.ReportMetric(float64(u1.Nvcsw-u0.Nvcsw)/float64(b.N), "vcsw/rt")
	b.ReportMetric(float64(u1.Nivcsw-u0.Nivcsw)/float64(b.N), "ivcsw/rt")
	cpu := syscall.TimevalToNsec(u1.Utime) - syscall.TimevalToNsec(u0.Utime) + syscall.TimevalToNsec(u1.Stime) - syscall.TimevalToNsec(u0.Stime)
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/rt")
}
