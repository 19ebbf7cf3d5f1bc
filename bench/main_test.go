package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/afor-go/afor/bench/internal/scenario"
	"github.com/afor-go/afor/internal/peers"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if handled, err := scenario.RunChild(); handled { // the remote side of zenoh-proc
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// TestSmoke runs every scenario of the harness in its -short mode, so that
// go test ./bench/... fails when the harness breaks. It checks that the
// rows ran and lost nothing where nothing may be lost, never how fast they
// were.
func TestSmoke(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "report.json")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-short", "-json", out}, &stdout, &stderr)
	if code != exitOK {
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
	if rep.Machine.Cores <= 0 || rep.Go.Version == "" || !rep.Config.Short || rep.Config.Repeat != 1 {
		t.Errorf("machine %+v, go %+v, config %+v", rep.Machine, rep.Go, rep.Config)
	}
	count := map[string]int{}
	for _, r := range rep.Results {
		name := r.Name()
		if r.Skipped != "" {
			// The only row skipped by design: mem has no request/reply
			// below afor's Server and Client.
			if name != "request/mem/native/64B" {
				t.Errorf("%s skipped: %s", name, r.Skipped)
			}
			continue
		}
		count[r.Scenario+"/"+string(r.Mode)]++
		if r.Error != "" || r.Ops <= 0 || r.NsPerOp <= 0 {
			t.Errorf("%s: ops %d, ns/op %v, error %q", name, r.Ops, r.NsPerOp, r.Error)
		}
		// Latency rows may drop on a loaded machine (a bounded afor queue,
		// UDP); everything else is lossless by construction.
		if r.Scenario != "latency" && (r.Dropped != 0 || r.Failed != 0) {
			t.Errorf("%s: dropped %d, failed %d", name, r.Dropped, r.Failed)
		}
		if r.Scenario == "latency" && (r.Latency == nil || r.Failed != 0) {
			t.Errorf("%s: latency %+v, failed %d", name, r.Latency, r.Failed)
		}
	}
	for _, k := range []string{"echo/afor", "echo/native", "echo/floor", "latency/afor", "latency/native",
		"latency/floor", "throughput/afor", "throughput/native", "throughput/floor", "request/afor", "request/native",
		"request/floor", "pipeline/afor", "pipeline/floor", "image/afor", "image/floor"} {
		if count[k] == 0 {
			t.Errorf("no %s row", k)
		}
	}
	// The cross-process rows, request/reply's being the headline.
	for _, want := range []string{"echo/zenoh-proc/afor/64B", "request/zenoh-proc/afor/64B", "request/zenoh-proc/native/64B",
		"request/zenoh-tcp/afor/64B", "request/zenoh/native/64B",
		// ROS 2 over rmw_zenoh, and the raw Zenoh under it.
		"echo/ros-zenoh/afor/64B", "echo/ros-zenoh/native/64B", "request/ros-zenoh/afor/64B", "request/ros-zenoh/native/64B",
		"echo/ros-zenoh-tcp/afor/64B", "echo/ros-zenoh-tcp/native/64B", "echo/ros-zenoh-proc/afor/64B", "echo/ros-zenoh-proc/native/64B",
		"request/ros-zenoh-tcp/afor/64B", "request/ros-zenoh-tcp/native/64B", "request/ros-zenoh-proc/afor/64B", "request/ros-zenoh-proc/native/64B"} {
		if !slices.ContainsFunc(rep.Results, func(r scenario.Result) bool { return r.Name() == want && r.Ops > 0 }) {
			t.Errorf("no %s row", want)
		}
	}
	for _, r := range rep.Results {
		if p := r.Pipeline; r.Scenario == "pipeline" && (p == nil || len(p.Nodes) != 5 || p.TotalCPU <= 0 ||
			p.CameraToPerception == nil || p.IMUToControl == nil) {
			t.Errorf("%s: %+v", r.Name(), p)
		}
	}
	// The cross-process floor: its rows ran (checked above for errors and
	// losses), and zenoh-proc is compared with it, the other socket
	// transports with tcp.
	for _, sc := range []string{"echo", "latency", "request"} {
		if !slices.ContainsFunc(rep.Results, func(r scenario.Result) bool {
			return r.Name() == sc+"/tcp-proc/floor/64B" && r.Ops > 0 && r.Error == ""
		}) {
			t.Errorf("no %s/tcp-proc/floor/64B row", sc)
		}
	}
	for _, size := range rep.Config.Sizes {
		if !slices.ContainsFunc(rep.Results, func(r scenario.Result) bool {
			return r.Scenario == "throughput" && r.Transport == "tcp-proc" && r.Size == size && r.Ops > 0 && r.Error == ""
		}) {
			t.Errorf("no throughput/tcp-proc/floor row of %d bytes", size)
		}
	}
	for _, want := range []struct{ row, floor string }{{"echo/zenoh-proc/afor/64B", "tcp-proc"}, {"latency/zenoh-proc/afor/64B", "tcp-proc"},
		{"request/zenoh-proc/afor/64B", "tcp-proc"}, {"throughput/zenoh-proc/afor/16B", "tcp-proc"}, {"echo/zenoh-tcp/afor/64B", "tcp"},
		{"echo/ros-zenoh-tcp/afor/64B", "tcp"}, {"echo/ros-zenoh-proc/afor/64B", "tcp-proc"}, {"request/ros-zenoh-proc/afor/64B", "tcp-proc"}} {
		if !slices.ContainsFunc(rep.Ratios, func(ra Ratio) bool {
			return ra.Row == want.row && ra.Floor == want.floor && ra.OverFloor > 0 && ra.OverNative > 0
		}) {
			t.Errorf("no %s afor/floor ratio against %s: %+v", want.row, want.floor, rep.Ratios)
		}
	}
	// The pipeline's floor: its row ran (checked above) and the afor rows
	// are compared with it.
	if !slices.ContainsFunc(rep.Ratios, func(ra Ratio) bool {
		return ra.Row == "pipeline/zenoh-p2p/afor/921600B" && ra.Floor == "tcp" && ra.CPUOverFloor > 0
	}) {
		t.Errorf("no pipeline afor/floor ratio: %+v", rep.Ratios)
	}
	router := 0
	for _, r := range rep.Results {
		if r.Transport == "zenoh-router" && r.Skipped == "" {
			router++
		}
	}
	// echo, latency and request in two modes, throughput in two modes per
	// size, the pipeline.
	wantRouter := 2*3 + 2*len(rep.Config.Sizes) + 1
	if os.Getenv("CI") != "" && router != wantRouter {
		t.Errorf("CI: %d zenoh-router rows, want %d (is .ci/requirements-zenoh.txt installed?)", router, wantRouter)
	}
	if router != 0 && router != wantRouter {
		t.Errorf("%d zenoh-router rows, want %d", router, wantRouter)
	}
	// The Python afor's own echo rows, and rclpy's next to ros-dds-proc
	// (rclpy on both executors, the Python afor on rclpy) and, in one
	// process and one node, next to ros-dds; each compared with its Go row.
	pyAfor, pyRclpy, pyRclpy1P := 0, 0, 0
	for _, r := range rep.Results {
		if r.Scenario != "echo" || r.Mode != scenario.ModePython || r.Ops <= 0 {
			continue
		}
		switch r.Transport {
		case "python-rclpy", "python-rclpy-events", "python-afor-rclpy":
			pyRclpy++
		case "python-rclpy-1p", "python-rclpy-events-1p", "python-afor-rclpy-1p":
			pyRclpy1P++
		case "python-inproc", "python-zenoh", "python-zenoh-proc":
			pyAfor++
		}
		goTr := scenario.PythonMode(strings.TrimPrefix(r.Transport, "python-")).GoTransport()
		if !slices.ContainsFunc(rep.Ratios, func(ra Ratio) bool {
			return ra.Row == r.Name() && ra.Afor == "echo/"+goTr+"/afor/64B" && ra.PythonOverGo > 0
		}) {
			t.Errorf("%s is not compared with %s's afor row: %+v", r.Name(), goTr, rep.Ratios)
		}
	}
	if os.Getenv("CI") != "" && (pyAfor != 3 || pyRclpy != 3 || pyRclpy1P != 3) {
		t.Errorf("CI: %d python echo rows, %d rclpy ones and %d in one process, want 3, 3 and 3 (is .ci/requirements-bench.txt installed?)",
			pyAfor, pyRclpy, pyRclpy1P)
	}
	if len(rep.Ratios) == 0 {
		t.Error("no ratios")
	}
	if !slices.ContainsFunc(strings.Split(stdout.String(), "\n"), func(l string) bool {
		return strings.HasPrefix(strings.TrimSpace(l), "tcp floor ") && strings.Contains(l, "camera->perception")
	}) {
		t.Errorf("table lacks the floor's end-to-end latencies:\n%s", &stdout)
	}
	for _, want := range []string{"== echo", "== latency", "== throughput", "== request", "== pipeline", "== image", "afor/native", "afor/floor"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, &stdout)
		}
	}
}

func TestFlags(t *testing.T) {
	var stderr bytes.Buffer
	if code := run(context.Background(), []string{"-h"}, &bytes.Buffer{}, &stderr); code != exitOK {
		t.Fatalf("-h: exit %d", code)
	}
	for _, f := range []string{"scenarios", "transports", "modes", "duration", "warmup", "count", "period", "size",
		"sizes", "window", "cpu-window", "pipeline-warmup", "node-gomaxprocs", "queue", "repeat", "python", "json", "plot", "fail-on-warning", "short", "q"} {
		if !strings.Contains(stderr.String(), "-"+f) {
			t.Errorf("-h does not explain -%s", f)
		}
	}
	for _, args := range [][]string{{"-scenarios", "nope"}, {"-transports", "carrier-pigeon"}, {"-period", "0s"},
		{"-sizes", "1,x"}, {"-repeat", "0"}, {"-cpu-window", "0s"}, {"extra"}} {
		if code := run(context.Background(), args, &bytes.Buffer{}, &bytes.Buffer{}); code != exitUsage {
			t.Errorf("%q: exit %d, want %d", args, code, exitUsage)
		}
	}
	c, err := parseFlags([]string{"-short", "-count", "7", "-size", "3"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Duration != 100*time.Millisecond || c.Count != 7 || c.Repeat != 1 || c.Size != scenario.HeaderSize || len(c.Sizes) != 3 ||
		c.CPUWindow != 500*time.Millisecond {
		t.Errorf("-short defaults: %+v", c)
	}
}

// TestPlanFloors checks when the floor rows run: the in-process floors
// whenever -modes has floor, tcp-proc only with zenoh-proc in -transports.
func TestPlanFloors(t *testing.T) {
	names := func(args ...string) []string {
		c, err := parseFlags(append([]string{"-short", "-scenarios", "echo,latency,throughput,request"}, args...), &bytes.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range plan(c, newReport(c)) {
			out = append(out, r.name)
		}
		return out
	}
	procRows := func(rows []string) (n int) {
		for _, r := range rows {
			if strings.Contains(r, "/tcp-proc/") {
				n++
			}
		}
		return n
	}
	if rows := names("-transports", "mem,zenoh-tcp", "-modes", "afor,floor"); procRows(rows) != 0 || !slices.Contains(rows, "echo/tcp/floor/64B") {
		t.Errorf("without zenoh-proc: %q", rows)
	}
	if rows := names("-transports", "zenoh-proc", "-modes", "afor"); procRows(rows) != 0 {
		t.Errorf("without -modes floor: %q", rows)
	}
	rows := names("-transports", "zenoh-proc", "-modes", "floor")
	for _, want := range []string{"echo/tcp-proc/floor/64B", "latency/tcp-proc/floor/64B", "throughput/tcp-proc/floor/16B",
		"throughput/tcp-proc/floor/65536B", "request/tcp-proc/floor/64B", "echo/tcp/floor/64B"} {
		if !slices.Contains(rows, want) {
			t.Errorf("with zenoh-proc: no %s in %q", want, rows)
		}
	}
	if n := procRows(rows); n != 3+3 { // echo, latency, request, and throughput's three -short sizes
		t.Errorf("with zenoh-proc: %d tcp-proc rows in %q", n, rows)
	}
}

// TestPlanRclpy checks which rclpy echo rows run next to which ROS over
// DDS transport: in one process with ros-dds, in two with ros-dds-proc,
// none with ros-dds-udp alone.
func TestPlanRclpy(t *testing.T) {
	py := peers.Python(t, append(scenario.RclpyModules(), scenario.PythonModules()...)...)
	names := func(transports string) []string {
		c, err := parseFlags([]string{"-short", "-scenarios", "echo", "-modes", "python", "-transports", transports, "-python", py}, &bytes.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range plan(c, newReport(c)) {
			out = append(out, r.name)
		}
		slices.Sort(out)
		return out
	}
	oneProc := []string{"echo/python-afor-rclpy-1p/python", "echo/python-rclpy-1p/python", "echo/python-rclpy-events-1p/python"}
	twoProc := []string{"echo/python-afor-rclpy/python", "echo/python-rclpy-events/python", "echo/python-rclpy/python"}
	if got := names("ros-dds"); !slices.Equal(got, oneProc) {
		t.Errorf("ros-dds: %q, want %q", got, oneProc)
	}
	if got := names("ros-dds-proc"); !slices.Equal(got, twoProc) {
		t.Errorf("ros-dds-proc: %q, want %q", got, twoProc)
	}
	if got := names("ros-dds-udp"); len(got) != 0 {
		t.Errorf("ros-dds-udp: %q, want no python row", got)
	}
}

// TestPythonRatio checks the python/afor column: every python row is
// compared with the Go afor row of its layout, one process or two.
func TestPythonRatio(t *testing.T) {
	rep := newReport(Config{Scenarios: []string{"echo"}})
	res := func(tr string, mode scenario.Mode, size int, ns float64) scenario.Result {
		return scenario.Result{Scenario: "echo", Transport: tr, Mode: mode, Size: size, NsPerOp: ns}
	}
	rep.Results = []scenario.Result{
		res("ros-dds", scenario.ModeAfor, 64, 10e3), res("ros-dds-proc", scenario.ModeAfor, 64, 40e3),
		res("ros-zenoh", scenario.ModeAfor, 64, 2e3), res("ros-zenoh-proc", scenario.ModeAfor, 64, 50e3),
		res("python-rclpy-1p", scenario.ModePython, 64, 150e3), res("python-rclpy", scenario.ModePython, 0, 200e3),
		res("python-afor-rclpy-zenoh-1p", scenario.ModePython, 64, 400e3), res("python-rclpy-zenoh", scenario.ModePython, 64, 250e3),
		res("python-rclpy-events-1p", scenario.ModePython, 64, 0), // failed: no ratio
	}
	rep.finish()
	want := map[string]Ratio{
		"echo/python-rclpy-1p/python/64B":            {Afor: "echo/ros-dds/afor/64B", PythonOverGo: 15},
		"echo/python-rclpy/python/0B":                {Afor: "echo/ros-dds-proc/afor/64B", PythonOverGo: 5},
		"echo/python-afor-rclpy-zenoh-1p/python/64B": {Afor: "echo/ros-zenoh/afor/64B", PythonOverGo: 200},
		"echo/python-rclpy-zenoh/python/64B":         {Afor: "echo/ros-zenoh-proc/afor/64B", PythonOverGo: 5},
	}
	got := map[string]Ratio{}
	for _, ra := range rep.Ratios {
		if ra.PythonOverGo != 0 {
			got[ra.Row] = Ratio{Afor: ra.Afor, PythonOverGo: ra.PythonOverGo}
		}
	}
	if !maps.Equal(got, want) {
		t.Errorf("python ratios %+v, want %+v", got, want)
	}
	var out bytes.Buffer
	rep.writeTables(&out)
	for _, line := range []string{"15.00x ros-dds", "5.00x ros-dds-proc", "200.00x ros-zenoh", "5.00x ros-zenoh-proc"} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("table lacks %q:\n%s", line, &out)
		}
	}
}

func TestFailOnWarning(t *testing.T) {
	rep := newReport(Config{})
	rep.Results = []scenario.Result{
		{Scenario: "latency", Transport: "mem", Mode: scenario.ModeAfor, Size: 16, NsPerOp: 1, Late: 3},
		{Scenario: "request", Transport: "zenoh", Mode: scenario.ModeAfor, Size: 16, Skipped: "no"},
	}
	rep.finish()
	if n := rep.failing(); n != 0 {
		t.Fatalf("late and skipped rows must not fail: %d (%+v)", n, rep.Warnings)
	}
	results := append(rep.Results, scenario.Result{Scenario: "latency", Transport: "mem", Mode: scenario.ModeNative, Size: 16, NsPerOp: 1, Dropped: 1, Sent: 9})
	rep = newReport(Config{})
	rep.Results = results
	rep.finish()
	if n := rep.failing(); n != 1 {
		t.Fatalf("a drop must fail: %d (%+v)", n, rep.Warnings)
	}
	if len(rep.Ratios) != 1 || rep.Ratios[0].OverNative != 1 {
		t.Fatalf("ratios %+v", rep.Ratios)
	}
	// The run's exit status: a one-row run whose rows cannot drop passes.
	args := []string{"-short", "-q", "-fail-on-warning", "-scenarios", "echo", "-transports", "mem", "-modes", "afor"}
	if code := run(context.Background(), args, &bytes.Buffer{}, &bytes.Buffer{}); code != exitOK {
		t.Fatalf("exit %d", code)
	}
}

func TestCountCPUList(t *testing.T) {
	for list, want := range map[string]int{
		"0": 1, "0-1": 2, "0-3,6": 5, "0,2,4-5": 4,
		"": 0, "x": 0, "3-1": 0, "0-": 0, "-1": 0,
	} {
		if got := countCPUList(list); got != want {
			t.Errorf("countCPUList(%q) = %d, want %d", list, got, want)
		}
	}
}
