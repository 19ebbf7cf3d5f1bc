package ddspeer_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/netns"
	"github.com/afor-go/afor/transport/dds/internal/ddspeer"
	"go.uber.org/goleak"
)

// TestMain runs the tests in a loopback-only network namespace and fails
// them if they leave goroutines behind.
func TestMain(m *testing.M) {
	if code, done := netns.Exec(); done {
		os.Exit(code)
	}
	goleak.VerifyTestMain(m)
}

// starter starts one kind of reference peer.
type starter struct {
	name  string
	start func(testing.TB, ddspeer.Options) *ddspeer.Peer
}

var (
	cyclonePy = starter{"cyclone-py", ddspeer.Cyclone}
	cycloneC  = starter{"cyclone-c", ddspeer.C}
	rclpy     = starter{"rclpy", ddspeer.Rclpy}
)

// timeout bounds every wait: discovery takes seconds on a loaded machine.
const timeout = 90 * time.Second

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	return ctx
}

// checkInOrder asserts that samples are 0..n-1, in order, of size bytes
// (0: unpadded), their padding intact.
func checkInOrder(t *testing.T, got []ddspeer.Event, size int) {
	t.Helper()
	for k, ev := range got {
		want := len(ddspeer.Payload(k, size))
		if ev.I != k || ev.Len != want || !ev.OK {
			t.Fatalf("sample %d: %+v, want i=%d len=%d ok", k, ev, k, want)
		}
	}
}

// startPair starts a reader and a gated writer with the options of each and
// lets the writer write once both sides report the match: a VOLATILE
// reader would drop samples written before it matched the writer.
func startPair(t *testing.T, ctx context.Context, w, r starter, wo, ro ddspeer.Options) (writer, reader *ddspeer.Peer) {
	t.Helper()
	ro.Role = ddspeer.Reader
	wo.Role, wo.WaitMatch, wo.WaitGo = ddspeer.Writer, 1, true
	reader = r.start(t, ro)
	writer = w.start(t, wo)
	for _, p := range []*ddspeer.Peer{writer, reader} {
		if err := p.WaitMatched(ctx, 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := writer.Go(); err != nil {
		t.Fatal(err)
	}
	return writer, reader
}

// TestReliableInOrder runs each pair of different peers, writer to reader,
// reliable: every sample arrives, in order.
func TestReliableInOrder(t *testing.T) {
	netns.Require(t)
	pairs := []struct {
		w, r   starter
		domain int
	}{
		{cyclonePy, cycloneC, 1},
		{cycloneC, rclpy, 2},
		{rclpy, cyclonePy, 3},
	}
	const n = 50
	for _, p := range pairs {
		t.Run(p.w.name+"_to_"+p.r.name, func(t *testing.T) {
			ctx := ctxFor(t)
			o := ddspeer.Options{Count: n, KeepAll: true, Domain: p.domain}
			w, r := startPair(t, ctx, p.w, p.r, o, o)
			if _, err := w.WaitEvent(ctx, ddspeer.EvDone); err != nil {
				t.Fatal(err)
			}
			got, err := r.Samples(ctx, n)
			if err != nil {
				t.Fatal(err)
			}
			checkInOrder(t, got, 0)
			if ev, err := r.WaitEvent(ctx, ddspeer.EvDone); err != nil || ev.Count != n {
				t.Fatalf("reader done: %+v, %v", ev, err)
			}
			if err := r.Wait(ctx); err != nil {
				t.Errorf("reader exit: %v", err)
			}
		})
	}
}

// TestLargePayloads sends 1 MB and 6 MB samples (fragmented) between the
// peers, reliable, every one in order.
func TestLargePayloads(t *testing.T) {
	netns.Require(t)
	cases := []struct {
		w, r           starter
		size           int
		transientLocal bool
	}{
		{cyclonePy, cycloneC, 1 << 20, false},
		{cyclonePy, cycloneC, 6 << 20, false},
		{cycloneC, rclpy, 6 << 20, false},
		// Fast DDS to a VOLATILE Cyclone reader loses the first fragmented
		// sample (seen at 1 MB and 6 MB, every run; unfragmented ones all
		// arrive); TRANSIENT_LOCAL on both sides delivers them all.
		{rclpy, cycloneC, 1 << 20, true},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s_to_%s_%dB", c.w.name, c.r.name, c.size), func(t *testing.T) {
			ctx := ctxFor(t)
			const n = 3
			o := ddspeer.Options{Count: n, KeepAll: true, TransientLocal: c.transientLocal, Domain: 4}
			wo := o
			wo.Size = c.size
			w, r := startPair(t, ctx, c.w, c.r, wo, o)
			got, err := r.Samples(ctx, n)
			if err != nil {
				t.Fatal(err)
			}
			checkInOrder(t, got, c.size)
			if _, err := w.WaitEvent(ctx, ddspeer.EvDone); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestTransientLocalLateJoiner has a TRANSIENT_LOCAL writer write its
// samples before any reader exists; a TRANSIENT_LOCAL reader that joins
// later still gets the writer's history, up to its depth.
func TestTransientLocalLateJoiner(t *testing.T) {
	netns.Require(t)
	pairs := []struct {
		w, r   starter
		domain int
	}{
		{cycloneC, cyclonePy, 5},
		{rclpy, cycloneC, 6},
	}
	const written, depth = 8, 5
	for _, p := range pairs {
		t.Run(p.w.name+"_to_"+p.r.name, func(t *testing.T) {
			ctx := ctxFor(t)
			opts := ddspeer.Options{TransientLocal: true, Depth: depth, Domain: p.domain}
			wo := opts
			wo.Role, wo.Count = ddspeer.Writer, written
			w := p.w.start(t, wo)
			if _, err := w.WaitEvent(ctx, ddspeer.EvDone); err != nil {
				t.Fatal(err)
			}
			ro := opts
			ro.Role, ro.Count = ddspeer.Reader, depth
			r := p.r.start(t, ro)
			got, err := r.Samples(ctx, depth)
			if err != nil {
				t.Fatal(err)
			}
			for k, ev := range got {
				if want := written - depth + k; ev.I != want || !ev.OK {
					t.Fatalf("history sample %d: %+v, want i=%d", k, ev, want)
				}
			}
		})
	}
}

// TestIncompatibleQoS pairs a BEST_EFFORT writer with a RELIABLE reader:
// both sides report the RELIABILITY mismatch and no sample crosses.
func TestIncompatibleQoS(t *testing.T) {
	netns.Require(t)
	pairs := []struct {
		w, r   starter
		domain int
	}{
		{cyclonePy, cycloneC, 7},
		{rclpy, cycloneC, 8},
	}
	for _, p := range pairs {
		t.Run(p.w.name+"_to_"+p.r.name, func(t *testing.T) {
			ctx := ctxFor(t)
			r := p.r.start(t, ddspeer.Options{Role: ddspeer.Reader, Domain: p.domain})
			w := p.w.start(t, ddspeer.Options{Role: ddspeer.Writer, BestEffort: true, Period: 50 * time.Millisecond, Domain: p.domain})
			for _, peer := range []*ddspeer.Peer{w, r} {
				ev, err := peer.WaitEvent(ctx, ddspeer.EvIncompatible)
				if err != nil {
					t.Fatal(err)
				}
				if ev.Policy != "RELIABILITY" {
					t.Errorf("%v: incompatible policy %q, want RELIABILITY", peer, ev.Policy)
				}
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			if n := r.Count(ddspeer.EvSample); n != 0 {
				t.Errorf("%d samples crossed an incompatible pair", n)
			}
			if n := r.Count(ddspeer.EvMatched); n != 0 {
				t.Errorf("an incompatible pair matched (%d matched lines)", n)
			}
		})
	}
}

// TestKillAndRestart kills a writer: the reader loses the match once the
// writer's lease expires, and matches again, with fresh samples, when the
// writer restarts.
func TestKillAndRestart(t *testing.T) {
	netns.Require(t)
	ctx := ctxFor(t)
	const domain = 9
	r := cyclonePy.start(t, ddspeer.Options{Role: ddspeer.Reader, Domain: domain})
	wo := ddspeer.Options{Role: ddspeer.Writer, Period: 20 * time.Millisecond, Domain: domain}
	w := cycloneC.start(t, wo)
	if err := r.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Samples(ctx, 3); err != nil {
		t.Fatal(err)
	}
	w.Kill()
	if err := w.Wait(ctx); err == nil {
		t.Fatal("killed writer exited cleanly")
	}
	for {
		ev, err := r.WaitEvent(ctx, ddspeer.EvMatched)
		if err != nil {
			t.Fatalf("the killed writer was never unmatched: %v", err)
		}
		if ev.Count == 0 {
			break
		}
	}
	// The new writer pads its samples: they tell themselves from the old.
	wo.Size = 100
	cycloneC.start(t, wo)
	if err := r.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	ev, err := r.WaitEvent(ctx, ddspeer.EvSample)
	if err != nil {
		t.Fatal(err)
	}
	if !ev.OK || ev.Len != wo.Size {
		t.Errorf("first sample after the restart: %+v, want one of the new writer's (%d bytes)", ev, wo.Size)
	}
}

// TestBestEffort has a best-effort writer write until closed and a
// best-effort reader count samples: loss is allowed, disorder and
// duplicates are not.
func TestBestEffort(t *testing.T) {
	netns.Require(t)
	ctx := ctxFor(t)
	const n, domain = 20, 10
	r := rclpy.start(t, ddspeer.Options{Role: ddspeer.Reader, BestEffort: true, Count: n, Domain: domain})
	cycloneC.start(t, ddspeer.Options{Role: ddspeer.Writer, BestEffort: true, Period: 5 * time.Millisecond, Domain: domain})
	got, err := r.Samples(ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	for k, ev := range got {
		if !ev.OK || (k > 0 && ev.I <= got[k-1].I) {
			t.Fatalf("sample %d: %+v after %+v", k, ev, got[max(k-1, 0)])
		}
	}
}

// TestDDSPerfPingPong runs Cyclone's benchmark peers against each other for
// a few seconds: ping reports round trips of 64 bytes.
func TestDDSPerfPingPong(t *testing.T) {
	netns.Require(t)
	ctx := ctxFor(t)
	pong := ddspeer.StartDDSPerf(t, "-i", "11", "pong")
	ping := ddspeer.StartDDSPerf(t, "-i", "11", "-D", "4", "ping", "size", "64")
	line, err := ping.WaitLine(ctx, func(line string) bool {
		s, ok := ddspeer.ParsePingLine(line)
		return ok && s.Count > 0
	})
	if err != nil {
		t.Fatalf("no round trips: %v", err)
	}
	s, _ := ddspeer.ParsePingLine(line)
	if s.Size != 64 || s.Median <= 0 || s.Median > s.P99 {
		t.Errorf("ping stats %+v from %q", s, line)
	}
	t.Logf("ddsperf ping/pong 64 B (one second, not a benchmark): median %v, mean %v, %d round trips", s.Median, s.Mean, s.Count)
	if err := ping.Wait(ctx); err != nil {
		t.Errorf("ping: %v", err)
	}
	pong.Kill()
}
