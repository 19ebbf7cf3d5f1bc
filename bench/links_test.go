package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/afor-go/afor/bench/internal/scenario"
	"github.com/afor-go/afor/internal/peers"
)

// TestSmokeLinks runs the two-process rows over the other link types in
// one short case: Go on both sides over tls/, Go against the Rust stack
// over quic/ and the Rust stack on both sides over quic/, echo and
// throughput, and checks they ran, lost nothing, and are compared with the
// Go-Go rows where those ran. It says nothing about speed.
func TestSmokeLinks(t *testing.T) {
	py := peers.Python(t, scenario.RouterModules()...)
	out := filepath.Join(t.TempDir(), "report.json")
	var stdout, stderr bytes.Buffer
	args := []string{"-short", "-q", "-json", out, "-python", py, "-scenarios", "echo,throughput", "-sizes", "4096",
		"-transports", "zenoh-proc-tls,zenoh-proc-tls-rust,zenoh-proc-quic-rust", "-modes", "afor,rust"}
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
		for _, row := range []string{"zenoh-proc-tls/afor", "zenoh-proc-tls-rust/afor", "zenoh-proc-tls-rust/rust",
			"zenoh-proc-quic-rust/afor", "zenoh-proc-quic-rust/rust"} {
			want = append(want, strings.Replace(sc, "%s", row, 1))
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
	// tls/: the Rust rows are compared with Go on both sides (mode rust
	// with native, which did not run here: no ratio); quic/ has no Go-Go
	// row in this run.
	for _, r := range []string{"echo/zenoh-proc-tls-rust/afor/64B", "throughput/zenoh-proc-tls-rust/afor/4096B"} {
		if !slices.ContainsFunc(rep.Ratios, func(ra Ratio) bool {
			return ra.Row == r && ra.OverGoGo > 0 && ra.GoGo == strings.Replace(r, "-rust", "", 1)
		}) {
			t.Errorf("%s is not compared with Go on both sides: %+v", r, rep.Ratios)
		}
	}
	if !strings.Contains(stdout.String(), "over go-go") {
		t.Errorf("table lacks the over go-go column:\n%s", &stdout)
	}
}
