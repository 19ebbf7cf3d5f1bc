package ddsperf

import (
	"bufio"
	"context"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/peers"
)

// cycloneConfig is the CYCLONEDDS_URI of the Cyclone peers: unicast
// discovery on 127.0.0.1, as the Go side's dds.RangeLocalhost.
const cycloneConfig = `<CycloneDDS><Domain id="any"><General><Interfaces><NetworkInterface address="127.0.0.1"/></Interfaces>` +
	`<AllowMulticast>false</AllowMulticast></General><Discovery><ParticipantIndex>auto</ParticipantIndex>` +
	`<Peers><Peer address="127.0.0.1"/></Peers></Discovery></Domain></CycloneDDS>`

// runSecs is how long each side of an interop test runs.
const runSecs = 3

func domain() int { return 100 + rand.IntN(100) }

// cyclone runs Cyclone's ddsperf with args and returns its output lines
// once it ends.
func cyclone(t *testing.T, args ...string) (wait func() []string) {
	t.Helper()
	exe := peers.Command(t, "ddsperf")
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "CYCLONEDDS_URI="+cycloneConfig)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var lines []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		lines = readAll(out)
	}()
	var once sync.Once
	wait = func() []string {
		once.Do(func() {
			<-done
			if err := cmd.Wait(); err != nil {
				t.Logf("ddsperf %v: %v", args, err) // exit 1: a peer "failed to match" all endpoints
			}
		})
		return lines
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		wait()
	})
	return wait
}

func readAll(r io.Reader) []string {
	var lines []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

// goSide runs this package with args and returns its output lines once
// it ends.
func goSide(t *testing.T, ctx context.Context, args ...string) (wait func() []string) {
	t.Helper()
	cfg, err := ParseArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	cfg.Out = pw
	var lines []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		lines = readAll(pr)
	}()
	errc := make(chan error, 1)
	go func() {
		err := Run(ctx, cfg)
		pw.Close()
		errc <- err
	}()
	return func() []string {
		if err := <-errc; err != nil {
			t.Errorf("go ddsperf %v: %v", args, err)
		}
		<-done
		return lines
	}
}

// pings sums the round trips of ping lines and fails unless there are at
// least min: a pinger that gets no answer to a ping only pings again after
// a second, so a few a second means the protocol is broken.
func pings(t *testing.T, who string, lines []string, min int64) {
	t.Helper()
	var n int64
	for _, l := range lines {
		if _, c, ok := ParsePingLine(l); ok {
			n += c
		}
	}
	t.Logf("%s: %d round trips in %d s", who, n, runSecs)
	if n < min {
		t.Errorf("%s: %d round trips, want at least %d; output:\n%q", who, n, min, lines)
	}
}

// received checks sub lines: something arrived, nothing was lost.
func received(t *testing.T, who string, lines []string) {
	t.Helper()
	var total, lost int64
	for _, l := range lines {
		if _, tot, lo, ok := ParseSubLine(l); ok {
			total, lost = tot, lo
		}
	}
	t.Logf("%s: %d samples received, %d lost", who, total, lost)
	if total == 0 || lost != 0 {
		t.Errorf("%s: %d samples received, %d lost; output:\n%q", who, total, lost, lines)
	}
}

func secs(n int) string { return strconv.Itoa(n) }

func TestGoPingCyclonePong(t *testing.T) {
	d := strconv.Itoa(domain())
	pong := cyclone(t, "-i", d, "-D", secs(runSecs+1), "pong")
	// 64 KiB: Cyclone's pongs come in fragments, with the timestamp that
	// marks them as pongs of a ping before the first fragment only.
	lines := goSide(t, t.Context(), "-i", d, "-D", secs(runSecs), "ping", "size", "65536")()
	pong()
	pings(t, "go ping, cyclone pong", lines, 100)
}

func TestCyclonePingGoPong(t *testing.T) {
	d := strconv.Itoa(domain())
	ctx, cancel := context.WithCancel(t.Context())
	pong := goSide(t, ctx, "-i", d, "pong")
	lines := cyclone(t, "-i", d, "-D", secs(runSecs), "ping", "size", "4096")()
	cancel()
	pong()
	pings(t, "cyclone ping, go pong", lines, 100)
}

func TestGoPingGoPong(t *testing.T) {
	d := strconv.Itoa(domain())
	ctx, cancel := context.WithCancel(t.Context())
	pong := goSide(t, ctx, "-i", d, "pong")
	lines := goSide(t, t.Context(), "-i", d, "-D", secs(runSecs), "ping", "size", "64")()
	cancel()
	pong()
	pings(t, "go ping, go pong", lines, 100)
}

func TestGoPubCycloneSub(t *testing.T) {
	d := strconv.Itoa(domain())
	sub := cyclone(t, "-i", d, "-D", secs(runSecs+1), "sub")
	goSide(t, t.Context(), "-i", d, "-D", secs(runSecs), "pub", "size", "65536")()
	received(t, "go pub, cyclone sub", sub())
}

func TestCyclonePubGoSub(t *testing.T) {
	d := strconv.Itoa(domain())
	ctx, cancel := context.WithTimeout(t.Context(), (runSecs+1)*time.Second)
	defer cancel()
	sub := goSide(t, ctx, "-i", d, "sub")
	cyclone(t, "-i", d, "-D", secs(runSecs), "pub", "size", "65536")()
	received(t, "cyclone pub, go sub", sub())
}
