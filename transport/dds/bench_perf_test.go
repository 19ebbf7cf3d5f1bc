//go:build unix

package dds

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/netns"
)

// BenchmarkRoundTripProcessesCallback measures the 64-byte round trip to a
// Go pong process the way ddsperf ping does: each ping is written from the
// callback that receives the previous pong (ddsperf's default listener
// mode), so no goroutine hand-off sits on the path. Compare with
// BenchmarkRoundTripProcesses, which waits in the benchmark goroutine (one
// hand-off per round trip).
//
// The Go round trips run in three rounds, each followed by a round of
// Cyclone's ddsperf ping/pong (64-byte samples) and one of the raw UDP
// floor between two processes (a Go ping-pong with a child process, the
// floor under both), so that the three share the machine's state; each
// is reported as the median of its rounds, with the ratios. It also
// reports this process's CPU time and context switches per Go round trip.
// DDS_BENCH_NO_DDSPERF=1 leaves ddsperf and the floor out.
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
	others := os.Getenv("DDS_BENCH_NO_DDSPERF") == ""
	var udp func(n int) time.Duration
	if others {
		udp = udpProcFloor(b, payload)
	}
	const rounds = 3
	var goRT, cycRT, udpRT []time.Duration
	var u0, u1 syscall.Rusage
	var cpu, vcsw, ivcsw int64
	b.ResetTimer()
	for i := range rounds {
		n := b.N / rounds
		if i == rounds-1 {
			n = b.N - n*(rounds-1)
		}
		if n == 0 {
			continue
		}
		b.StartTimer()
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &u0)
		goRT = append(goRT, run(n))
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &u1)
		b.StopTimer()
		cpu += syscall.TimevalToNsec(u1.Utime) - syscall.TimevalToNsec(u0.Utime) + syscall.TimevalToNsec(u1.Stime) - syscall.TimevalToNsec(u0.Stime)
		vcsw += u1.Nvcsw - u0.Nvcsw
		ivcsw += u1.Nivcsw - u0.Nivcsw
		if others {
			cycRT = append(cycRT, ddsperfPing(b, nextDomain()))
			udpRT = append(udpRT, udp(max(n, 2000)))
		}
	}
	med := func(ds []time.Duration) time.Duration { return slices.Sorted(slices.Values(ds))[len(ds)/2] }
	g := med(goRT)
	b.ReportMetric(float64(g.Nanoseconds()), "go-ns/rt")
	b.ReportMetric(float64(vcsw)/float64(b.N), "vcsw/rt")
	b.ReportMetric(float64(ivcsw)/float64(b.N), "ivcsw/rt")
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/rt")
	if !others {
		return
	}
	c, u := med(cycRT), med(udpRT)
	b.ReportMetric(float64(c.Nanoseconds()), "ddsperf-ns/rt")
	b.ReportMetric(float64(u.Nanoseconds()), "udp-proc-ns/rt")
	b.ReportMetric(float64(g)/float64(c), "x-ddsperf")
	b.ReportMetric(float64(c)/float64(u), "ddsperf-x-udp")
	b.Logf("round trips per round: go %v, ddsperf %v, udp between processes %v", goRT, cycRT, udpRT)
}

// udpEchoHelper is the udpecho role of TestHelperProcess: it echoes every
// datagram to its sender on a UDP socket of 127.0.0.1, whose port it
// prints as "port N" before "ready", until its stdin closes.
func udpEchoHelper(t *testing.T) {
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		buf := make([]byte, 65536)
		for {
			n, from, err := c.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			_, _ = c.WriteToUDPAddrPort(buf[:n], from)
		}
	}()
	fmt.Println("port", c.LocalAddr().(*net.UDPAddr).Port)
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	c.Close()
}

// udpProcFloor starts a UDP echo child process and returns a function that
// makes n ping-pongs of payload with it from this goroutine and returns
// their mean round trip: the floor under any protocol over UDP between two
// processes.
func udpProcFloor(b *testing.B, payload []byte) func(n int) time.Duration {
	out := helperOutput(b, "udpecho", 0)
	var port int
	for out.Scan() {
		if _, err := fmt.Sscanf(out.Text(), "port %d", &port); err == nil {
			break
		}
	}
	if port == 0 {
		b.Fatal("udp echo helper printed no port")
	}
	waitLine(b, out, "ready")
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	to := netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), uint16(port))
	buf := make([]byte, 65536)
	return func(n int) time.Duration {
		t0 := time.Now()
		for range n {
			if _, err := c.WriteToUDPAddrPort(payload, to); err != nil {
				b.Fatal(err)
			}
			if _, _, err := c.ReadFromUDPAddrPort(buf); err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(t0) / time.Duration(n)
	}
}
