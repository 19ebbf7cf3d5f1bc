package main

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/afor-go/afor/bench/internal/scenario"
	"github.com/afor-go/afor/internal/peers"
)

// TestSmokeLinks runs the two-process rows over another link type in one
// short case: over quic/ (whose set-up has the most parts: a certificate,
// a UDP port read back from the Rust side), Go on both sides, Go against
// the Rust stack and the Rust stack on both sides, echo and throughput;
// it checks that they ran, lost nothing, and that the Rust rows are
// compared with the Go ones. It says nothing about speed.
func TestSmokeLinks(t *testing.T) {
	py := peers.Python(t, scenario.RouterModules()...)
	out := filepath.Join(t.TempDir(), "report.json")
	var stdout, stderr bytes.Buffer
	args := []string{"-short", "-q", "-json", out, "-python", py, "-scenarios", "echo,throughput", "-sizes", "4096",
		"-transports", "zenoh-proc-quic,zenoh-proc-quic-rust", "-modes", "afor,rust"}
	if code := run(context.Background(), args, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, &stdout, &stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rep.Results {
		got = append(got, r.Name())
		if r.Skipped != "" || r.Error != "" || r.Ops <= 0 || r.Dropped != 0 || r.Failed != 0 {
			t.Errorf("%s: skipped %q, error %q, ops %d, dropped %d, failed %d", r.Name(), r.Skipped, r.Error, r.Ops, r.Dropped, r.Failed)
		}
	}
	var want []string
	for _, sc := range []string{"echo/%s/64B", "throughput/%s/4096B"} {
		for _, row := range []string{"zenoh-proc-quic/afor", "zenoh-proc-quic-rust/afor", "zenoh-proc-quic-rust/rust"} {
			want = append(want, strings.Replace(sc, "%s", row, 1))
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
	// The Rust rows are compared with Go on both sides (mode rust with
	// native, which did not run here: TestGoGoRatio).
	for _, r := range []string{"echo/zenoh-proc-quic-rust/afor/64B", "throughput/zenoh-proc-quic-rust/afor/4096B"} {
		goGo := strings.Replace(r, "-rust", "", 1)
		if !slices.ContainsFunc(rep.Ratios, func(ra Ratio) bool { return ra.Row == r && ra.OverGoGo > 0 && ra.GoGo == goGo }) {
			t.Errorf("%s is not compared with %s: %+v", r, goGo, rep.Ratios)
		}
	}
	if !strings.Contains(stdout.String(), "over go-go") {
		t.Errorf("table lacks the over go-go column:\n%s", &stdout)
	}
}

// TestGoGoRatio checks the over go-go column: every row of a transport
// with the Rust stack is compared with the row of the same link, size and
// mode with Go on both sides, mode rust with native.
func TestGoGoRatio(t *testing.T) {
	rep := newReport(Config{Scenarios: []string{"echo", "throughput"}})
	res := func(sc, tr string, mode scenario.Mode, size int, ns float64) scenario.Result {
		return scenario.Result{Scenario: sc, Transport: tr, Mode: mode, Size: size, NsPerOp: ns, Ops: 1}
	}
	rep.Results = []scenario.Result{
		res("echo", "zenoh-proc", scenario.ModeAfor, 64, 10e3), res("echo", "zenoh-proc", scenario.ModeNative, 64, 8e3),
		res("echo", "zenoh-proc-rust", scenario.ModeAfor, 64, 20e3), res("echo", "zenoh-proc-rust", scenario.ModeRust, 64, 32e3),
		res("throughput", "zenoh-proc-tls", scenario.ModeNative, 4096, 4e3),
		res("throughput", "zenoh-proc-tls-rust", scenario.ModeRust, 4096, 6e3),
		res("throughput", "zenoh-proc-tls-rust", scenario.ModeRust, 65536, 6e3), // no Go row of its size
		res("throughput", "zenoh-proc-quic-rust", scenario.ModeRust, 4096, 6e3), // no Go row of its link
	}
	rep.finish()
	want := map[string]Ratio{
		"echo/zenoh-proc-rust/afor/64B":             {GoGo: "echo/zenoh-proc/afor/64B", OverGoGo: 2},
		"echo/zenoh-proc-rust/rust/64B":             {GoGo: "echo/zenoh-proc/native/64B", OverGoGo: 4},
		"throughput/zenoh-proc-tls-rust/rust/4096B": {GoGo: "throughput/zenoh-proc-tls/native/4096B", OverGoGo: 1.5},
	}
	got := map[string]Ratio{}
	for _, ra := range rep.Ratios {
		if ra.OverGoGo != 0 {
			got[ra.Row] = Ratio{GoGo: ra.GoGo, OverGoGo: ra.OverGoGo}
		}
	}
	if !maps.Equal(got, want) {
		t.Errorf("go-go ratios %+v, want %+v", got, want)
	}
	var out bytes.Buffer
	rep.writeTables(&out)
	for _, line := range []string{"over go-go", "2.00x zenoh-proc/afor", "4.00x zenoh-proc/native", "1.50x zenoh-proc-tls/native"} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("table lacks %q:\n%s", line, &out)
		}
	}
}
