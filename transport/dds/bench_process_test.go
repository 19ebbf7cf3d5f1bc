//go:build unix

package dds

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/netns"
	"github.com/afor-go/afor/transport/dds/internal/ddspeer"
)

var (
	benchPing = Topic{Name: "bench/ping", TypeName: "Bytes"}
	benchPong = Topic{Name: "bench/pong", TypeName: "Bytes"}
	benchTP   = Topic{Name: "bench/tp", TypeName: "Bytes"}
)

// TestHelperProcess is the other process of the process benchmarks: with
// DDS_HELPER=pong it echoes bench/ping to bench/pong, with DDS_HELPER=sub
// it counts bench/tp samples and prints "got N" when it has
// DDS_HELPER_COUNT of them, with DDS_HELPER=udpecho it echoes UDP
// datagrams (see udpEchoHelper). It runs until its stdin closes.
func TestHelperProcess(t *testing.T) {
	role := os.Getenv("DDS_HELPER")
	if role == "" {
		t.Skip("helper process for the benchmarks")
	}
	if role == "udpecho" {
		udpEchoHelper(t)
		return
	}
	d, _ := strconv.Atoi(os.Getenv("DDS_HELPER_DOMAIN"))
	p := newTestParticipant(t, Config{DomainID: d, Range: RangeSubnet})
	ctx := context.Background()
	switch role {
	case "pong":
		w, err := NewWriter(p, benchPong, QoS{})
		if err != nil {
			t.Fatal(err)
		}
		sub, err := Subscribe(p, benchPing, QoS{})
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Close()
		sub.OnInput(func(s Sample) { _ = w.Write(ctx, s.Payload) })
	case "sub":
		want, _ := strconv.ParseInt(os.Getenv("DDS_HELPER_COUNT"), 10, 64)
		var n atomic.Int64
		sub, err := Subscribe(p, benchTP, QoS{History: KeepAll})
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Close()
		sub.OnInput(func(Sample) {
			if n.Add(1) == want {
				fmt.Println("got", want)
			}
		})
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
}

// startHelper runs TestHelperProcess in a child process (in the same
// network namespace) and returns its output lines.
func startHelper(b *testing.B, role string, domain int, env ...string) *bufio.Scanner {
	sc := helperOutput(b, role, domain, env...)
	waitLine(b, sc, "ready")
	return sc
}

// helperOutput runs TestHelperProcess in a child process in role, ended
// when the benchmark ends, and returns its output lines.
func helperOutput(b *testing.B, role string, domain int, env ...string) *bufio.Scanner {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), "DDS_HELPER="+role, "DDS_HELPER_DOMAIN="+strconv.Itoa(domain))
	cmd.Env = append(cmd.Env, env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		stdin.Close()
		_ = cmd.Wait()
	})
	return bufio.NewScanner(out)
}

func waitLine(b *testing.B, sc *bufio.Scanner, want string) {
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), want) {
			return
		}
	}
	b.Fatalf("helper ended before %q", want)
}

// ddsperfPing runs Cyclone's ddsperf ping/pong with 64-byte samples for a
// few seconds and returns the mean of its per-second mean round trips
// (twice the mean ddsperf prints: its latency is (now - ping time) / 2).
func ddsperfPing(b *testing.B, domain int) time.Duration {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dom := strconv.Itoa(domain)
	pong := ddspeer.StartDDSPerf(b, "-i", dom, "pong")
	defer pong.Kill()
	ping := ddspeer.StartDDSPerf(b, "-i", dom, "-D", "4", "ping", "size", "64")
	var means []time.Duration
	for {
		line, err := ping.WaitLine(ctx, func(l string) bool { s, ok := ddspeer.ParsePingLine(l); return ok && s.Count > 0 })
		if err != nil {
			break
		}
		s, _ := ddspeer.ParsePingLine(line)
		means = append(means, s.Mean)
	}
	if len(means) < 2 {
		b.Fatalf("ddsperf ping gave %d seconds of round trips", len(means))
	}
	var sum time.Duration
	for _, m := range means[1:] { // skip the first second (discovery)
		sum += m
	}
	return 2 * sum / time.Duration(len(means)-1)
}

// ddsperfThroughput runs ddsperf pub/sub with 64-byte samples and returns
// the best per-second rate the subscriber saw.
func ddsperfThroughput(b *testing.B, domain int) float64 {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dom := strconv.Itoa(domain)
	sub := ddspeer.StartDDSPerf(b, "-i", dom, "-D", "5", "sub")
	defer sub.Kill()
	pub := ddspeer.StartDDSPerf(b, "-i", dom, "-D", "4", "pub", "size", "64")
	defer pub.Kill()
	var rates []float64
	for {
		line, err := sub.WaitLine(ctx, func(l string) bool { s, ok := ddspeer.ParseSubLine(l); return ok && s.Rate > 0 })
		if err != nil {
			break
		}
		s, _ := ddspeer.ParseSubLine(line)
		rates = append(rates, s.Rate)
	}
	if len(rates) == 0 {
		b.Fatal("ddsperf sub received nothing")
	}
	return slices.Max(rates)
}

// BenchmarkRoundTripProcesses measures a 64-byte round trip between this
// process and a Go pong process, and in the same run Cyclone's ddsperf
// ping/pong and the raw UDP floor; it reports the ratios.
func BenchmarkRoundTripProcesses(b *testing.B) {
	netns.Require(b)
	d := nextDomain()
	startHelper(b, "pong", d)
	p := newTestParticipant(b, Config{DomainID: d, Range: RangeSubnet})
	ctx := context.Background()
	got := make(chan struct{}, 1)
	backR, err := NewReader(p, benchPong, QoS{})
	if err != nil {
		b.Fatal(err)
	}
	defer backR.Close()
	backR.Sub().OnInput(func(Sample) { got <- struct{}{} })
	w, err := NewWriter(p, benchPing, QoS{})
	if err != nil {
		b.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := w.WaitMatched(wctx, 1); err != nil {
		b.Fatal(err)
	}
	if err := backR.WaitMatched(wctx, 1); err != nil {
		b.Fatal(err)
	}
	payload := append([]byte{0, 1, 0, 0}, make([]byte, 60)...)
	rt := func() {
		if err := w.Write(ctx, payload); err != nil {
			b.Fatal(err)
		}
		select {
		case <-got:
		case <-time.After(5 * time.Second):
			b.Fatal("round trip lost")
		}
	}
	// The pong answers once its reader and writer have matched ours,
	// which can be after ours matched theirs: retry the first ping.
	for answered := false; !answered; {
		if err := w.Write(ctx, payload); err != nil {
			b.Fatal(err)
		}
		select {
		case <-got:
			answered = true
		case <-time.After(100 * time.Millisecond):
		}
	}
	for range 200 {
		rt()
	}
	udp := udpFloor(b)
	b.ResetTimer()
	var tGo, tUDP time.Duration
	st0 := p.Stats()
	for range b.N {
		t0 := time.Now()
		rt()
		t1 := time.Now()
		udp(payload)
		tGo += t1.Sub(t0)
		tUDP += time.Since(t1)
	}
	b.StopTimer()
	st1 := p.Stats()
	b.ReportMetric(float64(st1.Sent-st0.Sent)/float64(b.N), "sent/rt")
	b.ReportMetric(float64(st1.Received-st0.Received)/float64(b.N), "recv/rt")
	goRT := tGo / time.Duration(b.N)
	b.ReportMetric(float64(goRT.Nanoseconds()), "go-ns/rt")
	b.ReportMetric(float64(tUDP.Nanoseconds())/float64(b.N), "udp-ns/rt")
	if os.Getenv("DDS_BENCH_NO_DDSPERF") != "" {
		return // for quick A/B runs of the Go path alone
	}
	cyc := ddsperfPing(b, nextDomain())
	b.ReportMetric(float64(cyc.Nanoseconds()), "ddsperf-ns/rt")
	b.ReportMetric(float64(goRT)/float64(cyc), "x-ddsperf")
}

// BenchmarkThroughputProcesses measures one-way reliable KEEP_ALL
// throughput of 64-byte samples from this process to a Go subscriber
// process, and Cyclone's ddsperf pub/sub in the same run.
func BenchmarkThroughputProcesses(b *testing.B) {
	netns.Require(b)
	d := nextDomain()
	n := max(b.N, 1000)
	sc := startHelper(b, "sub", d, "DDS_HELPER_COUNT="+strconv.Itoa(n))
	p := newTestParticipant(b, Config{DomainID: d, Range: RangeSubnet})
	ctx := context.Background()
	w, err := NewWriter(p, benchTP, QoS{History: KeepAll})
	if err != nil {
		b.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := w.WaitMatched(wctx, 1); err != nil {
		b.Fatal(err)
	}
	payload := append([]byte{0, 1, 0, 0}, make([]byte, 60)...)
	b.ResetTimer()
	t0 := time.Now()
	for range n {
		if err := w.Write(ctx, payload); err != nil {
			b.Fatal(err)
		}
	}
	waitLine(b, sc, "got")
	rate := float64(n) / time.Since(t0).Seconds()
	b.StopTimer()
	cyc := ddsperfThroughput(b, nextDomain())
	b.ReportMetric(rate, "go-msgs/s")
	b.ReportMetric(cyc, "ddsperf-msgs/s")
	b.ReportMetric(rate/cyc, "x-ddsperf")
}
