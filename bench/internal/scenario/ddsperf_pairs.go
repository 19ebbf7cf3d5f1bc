package scenario

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"sync"
	"time"

	"github.com/afor-go/afor/bench/internal/ddsperf"
)

// The ddsperf scenario runs Cyclone DDS's own benchmark pattern on both
// sides of every comparison: ddsperf's ping/pong (one ping in flight,
// each pong answered from the receiving callback) and its pub/sub (a
// reliable KEEP_ALL writer writing as fast as it may, one way, no
// application acknowledgment), between two processes, each side either
// Cyclone's ddsperf (C, Debian's cyclonedds-tools) or package
// bench/internal/ddsperf on the pure-Go DDS (the bench's executable
// started again as a child), speaking ddsperf's topics and types to each
// other. A row names the active side first (ping, pub) and the passive
// one second (pong, sub).

// DDSPerfSide is one side of a ddsperf pair.
type DDSPerfSide string

// The sides.
const (
	SideGo      DDSPerfSide = "go"
	SideCyclone DDSPerfSide = "cyclone"
)

// The patterns of the ddsperf scenario, as its rows' Mode.
const (
	ModePingPong Mode = "ping-pong"
	ModePubSub   Mode = "pub-sub"
)

// DDSPerfPair is one row's pair of sides.
type DDSPerfPair struct{ Active, Passive DDSPerfSide }

// Name is the row's transport column: "go-cyclone" is a Go ping (pub) and
// a Cyclone pong (sub).
func (p DDSPerfPair) Name() string { return string(p.Active) + "-" + string(p.Passive) }

// DDSPerfPairs are the four pairs, pure ones first.
func DDSPerfPairs() []DDSPerfPair {
	return []DDSPerfPair{{SideGo, SideGo}, {SideCyclone, SideCyclone}, {SideGo, SideCyclone}, {SideCyclone, SideGo}}
}

// RunDDSPerfPair runs pattern (ModePingPong or ModePubSub) with size-byte
// samples (ddsperf's size: the KeyedSeq's 12 fixed bytes and the baggage)
// between the pair's two processes for d (whole seconds, at least two
// measured after a warm-up second). Ping/pong reports the round trip (the
// pinger's mean over the measured seconds); pub/sub the subscriber's
// mean rate over them. CPU is both processes' CPU time over their whole
// life (start-up and warm-up included), per operation.
func RunDDSPerfPair(ctx context.Context, pair DDSPerfPair, pattern Mode, size int, d time.Duration) Result {
	r := Result{Scenario: "ddsperf", Transport: pair.Name(), Mode: pattern, Size: max(size, ddsperf.FixedSize)}
	secs := ddsperfSeconds(d)
	sz := strconv.Itoa(r.Size)
	passive, active := []string{"pong"}, []string{"ping", "size", sz}
	if pattern == ModePubSub {
		passive, active = []string{"sub"}, []string{"pub", "size", sz}
	}
	lines, stop, err := startDDSPerfSides(ctx, secs, pair, passive, active)
	switch {
	case errors.Is(err, exec.ErrNotFound):
		r.Skipped = err.Error()
		return r
	case err != nil:
		r.Error, r.Failed = err.Error(), 1
		return r
	}
	n := 0
	var sum time.Duration
	var count, total, lost int64
	var rates []float64
	for l := range lines {
		if pattern == ModePingPong {
			mean, cnt, ok := ddsperf.ParsePingLine(l)
			if !ok || cnt == 0 {
				continue
			}
			if n++; n <= ddsperfWarmup {
				continue
			}
			sum += 2 * mean * time.Duration(cnt) // ddsperf reports half the round trip
			count += cnt
			continue
		}
		rate, tot, lo, ok := ddsperf.ParseSubLine(l)
		if !ok || rate == 0 {
			continue
		}
		total, lost = tot, lo
		if n++; measuredSubLine(n, secs) {
			rates = append(rates, rate)
		}
	}
	cpu, err := stop()
	switch {
	case pattern == ModePingPong && count == 0:
		r.Error, r.Failed = fmt.Sprintf("no round trip measured (%v)", err), 1
		return r
	case pattern == ModePubSub && len(rates) == 0:
		r.Error, r.Failed = fmt.Sprintf("the subscriber received nothing (%v)", err), 1
		return r
	}
	if pattern == ModePingPong {
		rt := sum / time.Duration(count)
		r.finish(count, time.Duration(count)*rt, 0)
		r.Note = "round trip: ping, pong answered in the receive callback, next ping from the pong's callback"
	} else {
		var s float64
		for _, v := range rates {
			s += v
		}
		rate := s / float64(len(rates))
		r.Ops, r.Rate, r.NsPerOp = total, rate, 1e9/rate
		r.Elapsed = time.Duration(float64(total) / rate * 1e9)
		r.BytesPerSec = rate * float64(r.Size)
		r.Dropped = lost
		r.Note = "one way, reliable KEEP_ALL, no application acknowledgment"
	}
	r.Sent = r.Ops
	if r.Ops > 0 {
		// CPU per operation, in % of one core at the row's rate: both
		// processes' CPU time over the whole run, per operation.
		r.CPU = 100 * cpu.Seconds() / float64(r.Ops) * r.Rate
	}
	return r
}

// measuredSubLine reports whether a subscriber's n-th statistics line (from
// 1) is measured in a row of secs seconds: not the warm-up ones, and none
// after the publisher's secs seconds. The subscriber runs a second longer
// than the publisher, and its line for that second, when it prints one
// before it ends, counts only the samples of the publisher's last moments:
// averaged in, it made a row up to a third slower, depending on which side
// happened to print it.
func measuredSubLine(n, secs int) bool { return n > ddsperfWarmup && n <= secs }

// startDDSPerfSides starts the passive side with args passive and then
// the active one with args active, each for secs seconds, in a random
// domain of the DDS rows, and returns the statistics lines of the side
// that reports (the pinger, the subscriber), closed once the active side
// ends, and a function that stops both and returns their CPU time.
func startDDSPerfSides(ctx context.Context, secs int, pair DDSPerfPair, passive, active []string) (lines <-chan string, stop func() (time.Duration, error), err error) {
	dom := strconv.Itoa(ddsDomainBase + rand.IntN(ddsDomains))
	cctx, cancel := context.WithTimeout(ctx, time.Duration(secs+10)*time.Second)
	pcmd, err := ddsperfCommand(cctx, pair.Passive, append([]string{"-i", dom, "-D", strconv.Itoa(secs + 1)}, passive...))
	if err != nil {
		cancel()
		return nil, nil, err
	}
	acmd, err := ddsperfCommand(cctx, pair.Active, append([]string{"-i", dom, "-D", strconv.Itoa(secs)}, active...))
	if err != nil {
		cancel()
		return nil, nil, err
	}
	reporter := acmd
	if passive[0] == "sub" {
		reporter = pcmd
	}
	out, err := reporter.StdoutPipe()
	if err != nil {
		cancel()
		return nil, nil, err
	}
	// A Go passive side starts more slowly than Cyclone's (a race-built
	// test binary on a loaded machine: seconds), and the active side's
	// duration is fixed: it starts once the passive side's endpoints exist.
	var perr io.Reader
	if pair.Passive == SideGo {
		if perr, err = pcmd.StderrPipe(); err != nil {
			cancel()
			return nil, nil, err
		}
	}
	if err := pcmd.Start(); err != nil {
		cancel()
		return nil, nil, err
	}
	if perr != nil && !waitReady(cctx, perr) {
		cancel()
		_ = pcmd.Process.Kill()
		_ = pcmd.Wait()
		return nil, nil, fmt.Errorf("the Go ddsperf side %v did not start", passive)
	}
	if err := acmd.Start(); err != nil {
		cancel()
		_ = pcmd.Process.Kill()
		_ = pcmd.Wait()
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
	return ch, func() (time.Duration, error) {
		err := acmd.Wait()
		_ = pcmd.Process.Signal(os.Interrupt)
		_ = pcmd.Wait() // ended by the signal
		wg.Wait()
		cancel()
		var cpu time.Duration
		for _, c := range []*exec.Cmd{acmd, pcmd} {
			if ps := c.ProcessState; ps != nil {
				cpu += ps.UserTime() + ps.SystemTime()
			}
		}
		return cpu, err
	}, nil
}

// ddsperfCommand is the command of one side: Cyclone's ddsperf with the
// bench's configuration, or this executable as a Go ddsperf child.
func ddsperfCommand(ctx context.Context, side DDSPerfSide, args []string) (*exec.Cmd, error) {
	switch side {
	case SideCyclone:
		exe, err := exec.LookPath("ddsperf")
		if err != nil {
			return nil, fmt.Errorf("ddsperf not found (install cyclonedds-tools): %w", err)
		}
		cmd := exec.CommandContext(ctx, exe, args...)
		cmd.Env = append(os.Environ(), "CYCLONEDDS_URI="+ddsperfConfig)
		return cmd, nil
	case SideGo:
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("%w: cannot find the running executable: %v", ErrUnsupported, err)
		}
		conf, err := json.Marshal(childConfig{Role: "ddsperf", Args: args})
		if err != nil {
			return nil, err
		}
		cmd := exec.CommandContext(ctx, exe)
		cmd.Env = append(os.Environ(), EnvChild+"="+string(conf))
		return cmd, nil
	}
	return nil, fmt.Errorf("%w: ddsperf side %q", ErrBadConfig, side)
}

// runDDSPerfChild is a Go ddsperf side (see [RunDDSPerfPair]): it runs
// until its -D ends or it is interrupted.
func runDDSPerfChild(cfg childConfig, stdout io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	c, err := ddsperf.ParseArgs(cfg.Args)
	if err != nil {
		return err
	}
	c.Out = stdout
	c.Ready = func() { fmt.Fprintln(os.Stderr, ddsperfReadyLine) }
	return ddsperf.Run(ctx, c)
}

// ddsperfReadyLine is what a Go ddsperf child writes on its stderr once
// its endpoints exist (see waitReady).
const ddsperfReadyLine = "afor-ddsperf: ready"

// waitReady reads r (a Go passive side's stderr) until the ready line, and
// then discards the rest in the background. It reports false when r ends
// first (the child failed) or ctx ends.
func waitReady(ctx context.Context, r io.Reader) bool {
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if sc.Text() == ddsperfReadyLine {
				ready <- true
				_, _ = io.Copy(io.Discard, r)
				return
			}
		}
		ready <- false
	}()
	select {
	case ok := <-ready:
		return ok
	case <-ctx.Done():
		return false
	}
}
