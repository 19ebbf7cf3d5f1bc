//go:build linux

package dds

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/netns"
)

// BenchmarkIdleParticipant measures the CPU an idle participant costs: one
// reliable reader and one writer on the same topic, matched, nothing
// written, for 10 s (run it with -benchtime 1x). It reports the process's
// CPU time (getrusage) per second and its voluntary context switches per
// second, most of which are the participant's timer wake-ups.
func BenchmarkIdleParticipant(b *testing.B) {
	netns.Require(b)
	p := newTestParticipant(b, Config{DomainID: nextDomain(), Range: RangeSubnet})
	t := Topic{Name: "bench/idle", TypeName: "Bytes"}
	w, err := NewWriter(p, t, QoS{})
	if err != nil {
		b.Fatal(err)
	}
	r, err := NewReader(p, t, QoS{})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w.WaitMatched(ctx, 1); err != nil {
		b.Fatal(err)
	}
	if err := r.WaitMatched(ctx, 1); err != nil {
		b.Fatal(err)
	}
	// Let the start-up announcements and the first HEARTBEATs pass.
	time.Sleep(2 * time.Second)
	const span = 10 * time.Second
	var u0, u1 syscall.Rusage
	b.ResetTimer()
	for range b.N {
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &u0)
		time.Sleep(span)
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &u1)
	}
	b.StopTimer()
	cpu := time.Duration(syscall.TimevalToNsec(u1.Utime) - syscall.TimevalToNsec(u0.Utime) +
		syscall.TimevalToNsec(u1.Stime) - syscall.TimevalToNsec(u0.Stime))
	b.ReportMetric(float64(cpu.Microseconds())/span.Seconds(), "cpu-us/s")
	b.ReportMetric(float64(u1.Nvcsw-u0.Nvcsw)/span.Seconds(), "vcsw/s")
}
