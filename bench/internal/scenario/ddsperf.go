package scenario

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/afor-go/afor/bench/internal/ddsperf"
)

// FloorDDSPerf is the reference of the dds-proc rows: Cyclone DDS's
// ddsperf (Debian's cyclonedds-tools, in C), two processes on 127.0.0.1 in
// the same run: "ddsperf ping"/"pong" for the echo (per hop: the mean
// ddsperf prints, which is already half its round trip), "ddsperf
// pub"/"sub" for the throughput (the best second the subscriber saw). Cyclone is configured like the Go participants: the
// loopback interface, no multicast, 127.0.0.1 as its only peer (see
// ddsperfConfig). Its rows are skipped when ddsperf is not on PATH.
const FloorDDSPerf Floor = "ddsperf"

// ddsperfConfig is the CYCLONEDDS_URI of the ddsperf rows: unicast
// discovery on loopback, so that they run on a plain host.
const ddsperfConfig = `<CycloneDDS><Domain id="any"><General><Interfaces><NetworkInterface address="127.0.0.1"/></Interfaces>` +
	`<AllowMulticast>false</AllowMulticast></General><Discovery><ParticipantIndex>auto</ParticipantIndex>` +
	`<Peers><Peer address="127.0.0.1"/></Peers></Discovery></Domain></CycloneDDS>`

// ddsperfWarmup is how many of ddsperf's one-second lines are skipped
// (discovery).
const ddsperfWarmup = 1

// ddsperfSeconds is how long a ddsperf row runs for d: whole seconds, at
// least two measured ones after the warm-up.
func ddsperfSeconds(d time.Duration) int {
	return max(2, int(math.Ceil(d.Seconds()))) + ddsperfWarmup
}

// RunDDSPerfEcho measures ddsperf ping/pong with cfg.Size-byte samples
// (per hop: the mean of its per-second means; ddsperf's mean is half the
// round trip, (now - ping time) / 2).
func RunDDSPerfEcho(ctx context.Context, cfg EchoConfig) Result {
	r := Result{Scenario: "echo", Transport: string(FloorDDSPerf), Mode: ModeFloor, Size: max(cfg.Size, HeaderSize)}
	secs := ddsperfSeconds(cfg.Duration)
	lines, stop, err := startDDSPerfPair(ctx, secs,
		[]string{"pong"}, []string{"ping", "size", strconv.Itoa(r.Size)})
	if err != nil {
		r.Skipped = err.Error()
		return r
	}
	var sum time.Duration
	var n, count int64
	for l := range lines {
		mean, cnt, ok := ddsperf.ParsePingLine(l)
		if !ok || cnt == 0 {
			continue
		}
		if n++; n <= ddsperfWarmup {
			continue
		}
		sum += mean
		count += cnt
	}
	if err := stop(); err != nil && n <= ddsperfWarmup {
		r.Error, r.Failed = err.Error(), 1
		return r
	}
	if n <= ddsperfWarmup {
		r.Error, r.Failed = "ddsperf ping measured no round trip", 1
		return r
	}
	hop := sum / time.Duration(n-ddsperfWarmup) // ddsperf's mean: half the round trip
	r.Ops, r.Elapsed = 2*count, time.Duration(2*count)*hop
	r.NsPerOp = float64(hop.Nanoseconds())
	r.Rate = 1e9 / r.NsPerOp
	r.Note = "ddsperf ping/pong (Cyclone DDS, C): per hop, half the mean round trip (the mean ddsperf prints)"
	return r
}

// RunDDSPerfThroughput measures ddsperf pub/sub with cfg.Size-byte
// samples: the best per-second rate of the subscriber.
func RunDDSPerfThroughput(ctx context.Context, cfg ThroughputConfig) Result {
	r := Result{Scenario: "throughput", Transport: string(FloorDDSPerf), Mode: ModeFloor, Size: max(cfg.Size, HeaderSize)}
	secs := ddsperfSeconds(cfg.Duration)
	lines, stop, err := startDDSPerfPair(ctx, secs,
		[]string{"sub"}, []string{"pub", "size", strconv.Itoa(r.Size)})
	if err != nil {
		r.Skipped = err.Error()
		return r
	}
	var rates []float64
	var total int64
	for l := range lines {
		rate, tot, _, ok := ddsperf.ParseSubLine(l)
		if ok && rate > 0 {
			rates = append(rates, rate)
			total = tot
		}
	}
	if err := stop(); err != nil && len(rates) == 0 {
		r.Error, r.Failed = err.Error(), 1
		return r
	}
	if len(rates) == 0 {
		r.Error, r.Failed = "ddsperf sub received nothing", 1
		return r
	}
	best := slices.Max(rates)
	r.Ops, r.Rate = total, best
	r.Elapsed = time.Duration(float64(total) / best * 1e9)
	r.NsPerOp = 1e9 / best
	r.BytesPerSec = best * float64(r.Size)
	r.Note = "ddsperf pub/sub (Cyclone DDS, C): the subscriber's best second"
	return r
}

// startDDSPerfPair starts ddsperf with args a (the passive side: pong, sub)
// and then with args b (ping, pub) for secs seconds, in a random domain of
// the DDS rows, and returns the statistics lines of the one that reports
// (b's for ping, a's for sub), closed once b ends, and a function that
// stops both.
func startDDSPerfPair(ctx context.Context, secs int, a, b []string) (lines <-chan string, stop func() error, err error) {
	exe, err := exec.LookPath("ddsperf")
	if err != nil {
		return nil, nil, fmt.Errorf("ddsperf not found (install cyclonedds-tools): %w", err)
	}
	dom := strconv.Itoa(ddsDomainBase + rand.IntN(ddsDomains))
	env := append(os.Environ(), "CYCLONEDDS_URI="+ddsperfConfig)
	cctx, cancel := context.WithTimeout(ctx, time.Duration(secs+10)*time.Second)
	passive := exec.CommandContext(cctx, exe, append([]string{"-i", dom, "-D", strconv.Itoa(secs + 1)}, a...)...)
	active := exec.CommandContext(cctx, exe, append([]string{"-i", dom, "-D", strconv.Itoa(secs)}, b...)...)
	passive.Env, active.Env = env, env
	reporter := active
	if a[0] == "sub" {
		reporter = passive
	}
	out, err := reporter.StdoutPipe()
	if err != nil {
		cancel()
		return nil, nil, err
	}
	if err := passive.Start(); err != nil {
		cancel()
		return nil, nil, err
	}
	if err := active.Start(); err != nil {
		cancel()
		_ = passive.Wait()
		return nil, nil, err
	}
	ch := make(chan string)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(ch)
		readLines(out, ch)
	}()
	// The reporter's output ends when it exits; the active side's -D ends
	// the run, after which the passive side is stopped (its own -D ends it
	// a second later anyway).
	return ch, func() error {
		err := active.Wait()
		_ = passive.Process.Signal(os.Interrupt)
		_ = passive.Wait() // ended by the signal
		wg.Wait()
		cancel()
		return err
	}, nil
}

// readLines sends r's lines to ch until r ends.
func readLines(r io.Reader, ch chan<- string) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		ch <- sc.Text()
	}
	_, _ = io.Copy(io.Discard, r)
}
