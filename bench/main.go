// Command bench measures what afor costs: the same scenarios run over each
// transport in two modes, afor (a Sub and its iterators) and native (the
// transport's own callback), next to floor rows measured in the same run (a
// raw Go channel, TCP and UDP loopback ping-pong of the same size, and TCP
// to a child process for the cross-process rows) and the Python afor's own
// echo.
//
// Scenarios:
//
//   - echo: the Python library's pattern, two topics and one message in
//     flight, each side answering the other; hops per second and time per hop.
//   - latency: time-stamped messages at a fixed -period; p50, p90, p99,
//     p99.9 and max of the one-way latency, with dropped, late and failed
//     counts.
//   - throughput: one-way messages and bytes per second over the -sizes
//     sweep, with a flow-control window so no queue overflows.
//   - request: round trips through afor's Server and Client (native: the
//     transport's own queryable and query), one call outstanding.
//   - image: camera images (sensor_msgs/Image, 1280x720 mono8 and
//     1920x1080 rgb8) at 30 Hz from one process to another over Zenoh, next
//     to the same bytes over a bare TCP connection; one-way latency, CPU and
//     bytes allocated per image of each process.
//   - pipeline: the robot pipeline (camera, IMU, perception, planning,
//     control), one process per node over Zenoh; each node's CPU use over
//     -cpu-window and the camera to perception and IMU to control latency.
//     Its floor row runs the same nodes in bare Go (time.Ticker, TCP).
//
// The ROS 2 transports (ros-zenoh, ros-zenoh-tcp, ros-zenoh-proc) run the echo and
// request/reply through package ros over rmw_zenoh's conventions; their
// native rows are the raw Zenoh underneath, on the same keys with the same
// bytes, so afor/native is what the ROS layer costs.
//
// The ROS 2 over DDS transports (ros-dds: one ROS context, one DDS
// participant; ros-dds-udp: two contexts over UDP; ros-dds-proc: two
// processes) run the echo through package ros on its DDS middleware (mode
// afor) and on the bare transport/dds underneath, on the same topics, type
// and QoS (native). ros-dds is compared with rclpy's echo in one process
// and one node, the Python library's own layout (python-*-1p rows: rclpy's
// SingleThreadedExecutor and EventsExecutor, the Python afor on rclpy), on
// Fast DDS; ros-dds-proc with the same three in two processes, and with it
// the pipeline also runs as five Go ROS nodes over DDS and as the same five
// nodes in rclpy. A run that selects them enters a loopback-only network
// namespace first (internal/netns). With $AFOR_RMW_ZENOH_PYTHON set, the
// same rclpy rows run on a real rmw_zenoh_cpp next to ros-zenoh (one
// process) and ros-zenoh-proc (two).
//
// zenoh-proc-tls and zenoh-proc-quic are zenoh-proc over a tls/ or quic/
// link (a certificate made for the row); zenoh-proc-rust,
// zenoh-proc-tls-rust and zenoh-proc-quic-rust (echo and throughput) put
// the Rust stack (eclipse-zenoh in a Python process, answering from its
// callbacks) on side B, and in mode rust on side A too; their over go-go
// column compares them with Go on both sides over the same link. These run
// only when named in -transports.
//
// Usage:
//
//	go run ./bench                          # everything, about a minute
//	go run ./bench -short                   # every scenario in seconds
//	go run ./bench -scenarios echo -duration 5s -json out.json
//
// Ratios in the tables divide the afor row's time per operation by the
// native or floor row's: 1.00x means no overhead, 2.00x twice the time. The
// python/afor column, on the python rows, divides their time per hop by
// that of the Go afor row of the same layout named beside it.
//
// Numbers depend on the machine and its load: compare rows of one run, and
// use go test -bench in bench/internal/scenario with benchstat to compare
// commits.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/afor-go/afor/bench/internal/scenario"
	"github.com/afor-go/afor/internal/netns"
	"github.com/afor-go/afor/internal/peers"
)

func main() {
	// Started by the zenoh-proc rows as their remote side: be that side.
	if handled, err := scenario.RunChild(); handled {
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if wantsNetns(os.Args[1:]) { // ROS 2 over DDS: in a loopback-only namespace
		if code, done := netns.Exec(); done {
			os.Exit(code)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit codes.
const (
	exitOK      = 0
	exitWarning = 1 // -fail-on-warning and something was dropped or failed
	exitUsage   = 2 // bad flags, or an output could not be written
)

// Config is the run's configuration, as given by the flags.
type Config struct {
	Scenarios     []string      `json:"scenarios"`
	Transports    []string      `json:"transports"`
	Modes         []string      `json:"modes"`
	Duration      time.Duration `json:"duration_ns"`
	Warmup        int           `json:"warmup"`
	Count         int           `json:"count"`
	Period        time.Duration `json:"period_ns"`
	Size          int           `json:"size"`
	Sizes         []int         `json:"sizes"`
	Window        int           `json:"window"`
	CPUWindow     time.Duration `json:"cpu_window_ns"`
	PipeWarmup    time.Duration `json:"pipeline_warmup_ns"`
	NodeProcs     int           `json:"node_gomaxprocs"`
	Repeat        int           `json:"repeat"`
	Pick          string        `json:"pick"`
	Queue         int           `json:"queue"`
	Python        string        `json:"python"`
	Short         bool          `json:"short"`
	FailOnWarning bool          `json:"fail_on_warning"`
	JSON          string        `json:"-"`
	Plot          string        `json:"-"`
	Quiet         bool          `json:"-"`
}

func allScenarios() []string {
	return []string{"echo", "latency", "throughput", "request", "pipeline", "image", "ddsperf"}
}

func allModes() []string { return []string{"afor", "native", "floor", "python", "rust"} }

func transportNames() []string {
	var names []string
	for _, t := range scenario.Transports() {
		names = append(names, t.Name)
	}
	return names
}

// defaultTransports names the transports run unless -transports says
// otherwise: all but the explicit ones (scenario.Transport.Explicit).
func defaultTransports() []string {
	var names []string
	for _, t := range scenario.Transports() {
		if !t.Explicit {
			names = append(names, t.Name)
		}
	}
	return names
}

// parseFlags reads args into a Config; -short changes the defaults of the
// flags not given.
func parseFlags(args []string, stderr io.Writer) (Config, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c Config
	var scen, trans, modes, sizes string
	fs.StringVar(&scen, "scenarios", strings.Join(allScenarios(), ","), "comma-separated scenarios to run: "+strings.Join(allScenarios(), ", "))
	fs.StringVar(&trans, "transports", strings.Join(defaultTransports(), ","), "comma-separated transports: mem (in-process bus), zenoh (one pure-Go Zenoh session),\nzenoh-tcp (two pure-Go Zenoh sessions over TCP on 127.0.0.1; zenoh-tls and zenoh-quic the same\nover a tls/ or quic/ link), zenoh-proc (this process and\na child process over TCP on 127.0.0.1; the child answers the requests; zenoh-proc-tls and\nzenoh-proc-quic the same over a tls/ or quic/ link, only when named), zenoh-proc-rust,\nzenoh-proc-tls-rust and zenoh-proc-quic-rust (only when named; echo and throughput: the same\nlayouts with side B on the Rust stack, eclipse-zenoh in a Python process started with\n-python; in mode rust side A too, in a second one), zenoh-router (two\nclient sessions of the Rust router, started with -python), ros-zenoh, ros-zenoh-tcp and\nros-zenoh-proc (ROS 2 over rmw_zenoh's conventions, laid out as zenoh, zenoh-tcp and\nzenoh-proc: ROS nodes in mode afor, the raw Zenoh on the same keys in mode native; echo and\nrequest only), ros-dds, ros-dds-udp and ros-dds-proc (ROS 2 over DDS: two nodes of one ROS\ncontext, i.e. one DDS participant; two ROS contexts of this process over UDP on 127.0.0.1; or\nwith a child process: ROS nodes in mode afor, transport/dds on the same topics in mode native;\necho only). In mode python, ros-dds adds rclpy's echo in one process and one node, the Python\nlibrary's layout (python-rclpy-1p, python-rclpy-events-1p, python-afor-rclpy-1p, on Fast DDS),\nros-dds-proc the same in two processes and the pipeline as ROS nodes over DDS, Go and rclpy;\nwith $AFOR_RMW_ZENOH_PYTHON set, ros-zenoh adds the three on rmw_zenoh_cpp in one process\n(python-*-zenoh-1p), ros-zenoh-proc rclpy's and the Python afor's in two. The pipeline runs\nits peer-to-peer row with zenoh-proc and its router row with zenoh-router")
	fs.StringVar(&modes, "modes", strings.Join(allModes(), ","), "comma-separated row kinds: afor (Sub and its iterators), native (the transport's own\ncallback), floor (raw Go channel, TCP and UDP loopback; tcp-proc, TCP to a child process,\nwith zenoh-proc; the pipeline's nodes in bare Go over TCP), python (the Python afor's echo),\nrust (the Rust stack on both sides of the zenoh-proc-*-rust transports). The pipeline's Zenoh rows need afor")
	fs.IntVar(&c.Repeat, "repeat", 3, "run every row this many times, round robin, and report the median run with the spread\n(a shared or loaded machine makes single runs noisy)")
	fs.StringVar(&c.Pick, "pick", "median", "which of the -repeat runs a row shows: median, or best (the fastest: on a busy\nmachine, the closest to what the code costs when it gets the CPU)")
	fs.DurationVar(&c.Duration, "duration", time.Second, "measured time of every echo, throughput and request row (Python echo rows too)")
	fs.IntVar(&c.Warmup, "warmup", 100, "round trips (echo, request) or messages (latency, throughput) before measuring")
	fs.IntVar(&c.Count, "count", 2000, "latency: messages measured per row")
	fs.DurationVar(&c.Period, "period", time.Millisecond, "latency: time between two messages")
	fs.IntVar(&c.Size, "size", 64, "message size in bytes for echo, latency and request (at least 16, the header)")
	fs.StringVar(&sizes, "sizes", "16,256,4096,65536,1048576", "throughput: comma-separated message sizes in bytes")
	fs.IntVar(&c.Window, "window", scenario.DefaultWindow, "throughput: most messages in flight (the afor queue holds twice as many)")
	fs.DurationVar(&c.CPUWindow, "cpu-window", 10*time.Second, "pipeline: the window over which each node's CPU use and the latencies are measured")
	fs.DurationVar(&c.PipeWarmup, "pipeline-warmup", time.Second, "pipeline: how long the nodes run, once data flows, before the window opens")
	fs.IntVar(&c.NodeProcs, "node-gomaxprocs", 0, "pipeline: GOMAXPROCS of every node process (0: Go's default, one per core; 1 spares\nthe scheduler's thread wake-ups and lowers the CPU use of these mostly idle nodes)")
	fs.IntVar(&c.Queue, "queue", scenario.DefaultLatencyQueue, "latency: afor ListenReliable queue size (0 = unbounded); overflows count as dropped")
	fs.StringVar(&c.Python, "python", "", "Python interpreter with asyncio_for_robotics, uvloop and zenoh (default $"+peers.EnvPython+",\nelse <module root>/.venv/bin/python); python rows are skipped with a warning without it")
	fs.StringVar(&c.JSON, "json", "", "write the report as JSON to `FILE` (machine, Go version, configuration, results, warnings)")
	fs.StringVar(&c.Plot, "plot", "", "write the latency distributions as a PNG to `FILE`")
	fs.BoolVar(&c.FailOnWarning, "fail-on-warning", false, "exit with status 1 when any row dropped or failed a message or ended with an error\n(late messages, noisy rows and skipped rows are reported but do not fail)")
	fs.BoolVar(&c.Short, "short", false, "smoke mode: every scenario in seconds (-duration 100ms -count 100 -warmup 10\n-sizes 16,4096,65536 -repeat 1 -cpu-window 500ms -pipeline-warmup 100ms unless given)")
	fs.BoolVar(&c.Quiet, "q", false, "no progress lines on stderr")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: go run ./bench [flags]\n\n"+
			"Measures afor against the native transports, the machine's floor and the Python afor.\n"+
			"Prints one table per scenario; ratios divide afor's time per operation by the other row's.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if c.Short {
		if !set["duration"] {
			c.Duration = 100 * time.Millisecond
		}
		if !set["count"] {
			c.Count = 100
		}
		if !set["warmup"] {
			c.Warmup = 10
		}
		if !set["sizes"] {
			sizes = "16,4096,65536"
		}
		if !set["repeat"] {
			c.Repeat = 1
		}
		if !set["cpu-window"] {
			c.CPUWindow = 500 * time.Millisecond
		}
		if !set["pipeline-warmup"] {
			c.PipeWarmup = 100 * time.Millisecond
		}
	}
	var err error
	if c.Scenarios, err = list(scen, allScenarios(), "scenario"); err != nil {
		return c, err
	}
	if c.Transports, err = list(trans, transportNames(), "transport"); err != nil {
		return c, err
	}
	if c.Modes, err = list(modes, allModes(), "mode"); err != nil {
		return c, err
	}
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 0 || n > 64<<20 {
			return c, fmt.Errorf("-sizes: bad size %q (want 0 to 64 MiB)", s)
		}
		c.Sizes = append(c.Sizes, max(n, scenario.HeaderSize))
	}
	switch {
	case c.Duration <= 0:
		return c, errors.New("-duration must be positive")
	case c.Period <= 0:
		return c, errors.New("-period must be positive")
	case c.Count <= 0:
		return c, errors.New("-count must be positive")
	case c.Warmup < 0 || c.Window <= 0 || c.Queue < 0 || c.Repeat <= 0:
		return c, errors.New("-warmup and -queue must not be negative, -window and -repeat must be positive")
	case c.CPUWindow <= 0 || c.PipeWarmup < 0 || c.NodeProcs < 0:
		return c, errors.New("-cpu-window must be positive, -pipeline-warmup and -node-gomaxprocs not negative")
	case c.Pick != "median" && c.Pick != "best":
		return c, fmt.Errorf("-pick %q: want median or best", c.Pick)
	case c.Size < 0 || c.Size > 64<<20:
		return c, errors.New("-size must be between 0 and 64 MiB")
	}
	c.Size = max(c.Size, scenario.HeaderSize)
	if c.Python == "" {
		c.Python = peers.PythonPath()
	}
	return c, nil
}

func list(s string, known []string, what string) ([]string, error) {
	var out []string
	for _, x := range strings.Split(s, ",") {
		x = strings.TrimSpace(x)
		if x == "" {
			continue
		}
		if !slices.Contains(known, x) {
			return nil, fmt.Errorf("unknown %s %q (known: %s)", what, x, strings.Join(known, ", "))
		}
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out, nil
}

// run is the command; it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return exitUsage
	}
	rep := newReport(cfg)
	rows := plan(cfg, rep)
	prog := newProgress(stderr, cfg.Quiet, len(rows)*cfg.Repeat)
	runs := make([][]scenario.Result, len(rows))
	for k := range cfg.Repeat { // round robin: a load change hits every row alike
		for i, row := range rows {
			if ctx.Err() != nil {
				break
			}
			prog.start(k*len(rows)+i, row.name)
			runs[i] = append(runs[i], row.run(ctx, prog.update))
		}
	}
	prog.done()
	for i, row := range rows {
		if len(runs[i]) == 0 {
			rep.warn(row.name, "skipped", "interrupted")
			continue
		}
		rep.Results = append(rep.Results, scenario.Combine(runs[i], cfg.Pick == "best"))
	}
	rep.finish()
	rep.writeTables(stdout)
	code := exitOK
	if cfg.JSON != "" {
		if err := rep.writeJSON(cfg.JSON); err != nil {
			fmt.Fprintln(stderr, "bench: -json:", err)
			code = exitUsage
		}
	}
	if cfg.Plot != "" {
		if err := writePlot(cfg.Plot, rep.Results); err != nil {
			fmt.Fprintln(stderr, "bench: -plot:", err)
			code = exitUsage
		}
	}
	if code == exitOK && cfg.FailOnWarning && rep.failing() > 0 {
		fmt.Fprintf(stderr, "bench: %d warning(s) about dropped or failed messages (-fail-on-warning)\n", rep.failing())
		code = exitWarning
	}
	return code
}

// row is one planned measurement.
type row struct {
	name string
	run  func(ctx context.Context, p scenario.Progress) scenario.Result
}

// plan lists the rows of the run in report order.
func plan(cfg Config, rep *Report) []row {
	var rows []row
	has := func(m string) bool { return slices.Contains(cfg.Modes, m) }
	var trs []scenario.Transport
	for _, t := range scenario.Transports() {
		if slices.Contains(cfg.Transports, t.Name) {
			trs = append(trs, t)
		}
	}
	modes := []scenario.Mode{}
	for _, m := range []scenario.Mode{scenario.ModeAfor, scenario.ModeNative} {
		if has(string(m)) {
			modes = append(modes, m)
		}
	}
	name := func(s, t string, m scenario.Mode, size int) string {
		return fmt.Sprintf("%s/%s/%s/%dB", s, t, m, size)
	}
	pyOK := true // the Rust router's and Rust peers' rows need the Python package
	if i := slices.IndexFunc(trs, func(t scenario.Transport) bool { return t.NeedsPython }); i >= 0 {
		if err := checkRouter(cfg.Python); err != nil {
			pyOK = false
			for _, t := range trs {
				if t.NeedsPython {
					rep.warn(t.Name, "skipped", fmt.Sprintf("Rust stack unavailable (%v); install with: .venv/bin/pip install -r .ci/requirements-zenoh.txt, or set -python", err))
				}
			}
		}
	}
	all := trs
	for _, sc := range cfg.Scenarios {
		trs = nil
		for _, t := range all {
			if t.NeedsPython {
				if !pyOK {
					continue
				}
				t = t.WithPython(cfg.Python)
			}
			if t.Runs(sc) {
				trs = append(trs, t)
			}
		}
		switch sc {
		case "echo":
			ec := scenario.EchoConfig{Size: cfg.Size, Duration: cfg.Duration, Warmup: cfg.Warmup}
			for _, t := range trs {
				for _, m := range modes {
					rows = append(rows, row{name(sc, t.Name, m, cfg.Size), func(ctx context.Context, p scenario.Progress) scenario.Result {
						ec := ec
						ec.Progress = p
						return scenario.RunEcho(ctx, t, m, ec)
					}})
				}
				if has(string(scenario.ModeRust)) && t.GoGo() != "" {
					rows = append(rows, row{name(sc, t.Name, scenario.ModeRust, cfg.Size), func(ctx context.Context, _ scenario.Progress) scenario.Result {
						return scenario.RunEchoRust(ctx, t, ec, 100*time.Millisecond)
					}})
				}
			}
			if has("floor") {
				for _, f := range floors(scenario.Floors(), trs) {
					rows = append(rows, row{name(sc, string(f), scenario.ModeFloor, cfg.Size), func(ctx context.Context, p scenario.Progress) scenario.Result {
						ec := ec
						ec.Progress = p
						return scenario.RunEchoFloor(ctx, f, ec)
					}})
				}
				if usesFloor(trs, scenario.FloorDDSPerf) {
					rows = append(rows, row{name(sc, string(scenario.FloorDDSPerf), scenario.ModeFloor, cfg.Size), func(ctx context.Context, p scenario.Progress) scenario.Result {
						return scenario.RunDDSPerfEcho(ctx, ec)
					}})
				}
			}
			if has("python") {
				rows = append(rows, pythonRows(cfg, rep, trs)...)
				rows = append(rows, rclpyZenohRows(cfg, trs)...)
				rows = append(rows, rclpyDDSEchoRows(cfg, rep, trs)...)
			}
		case "latency":
			lc := scenario.LatencyConfig{Size: cfg.Size, Period: cfg.Period, Count: cfg.Count, Warmup: cfg.Warmup, Queue: cfg.Queue}
			for _, t := range trs {
				for _, m := range modes {
					rows = append(rows, row{name(sc, t.Name, m, cfg.Size), func(ctx context.Context, p scenario.Progress) scenario.Result {
						lc := lc
						lc.Progress = p
						return scenario.RunLatency(ctx, t, m, lc)
					}})
				}
			}
			if has("floor") {
				for _, f := range floors(scenario.Floors(), trs) {
					rows = append(rows, row{name(sc, string(f), scenario.ModeFloor, cfg.Size), func(ctx context.Context, p scenario.Progress) scenario.Result {
						lc := lc
						lc.Progress = p
						return scenario.RunLatencyFloor(ctx, f, lc)
					}})
				}
			}
		case "throughput":
			for _, size := range cfg.Sizes {
				tc := scenario.ThroughputConfig{Size: size, Duration: cfg.Duration, Window: cfg.Window, Warmup: cfg.Warmup}
				for _, t := range trs {
					for _, m := range modes {
						rows = append(rows, row{name(sc, t.Name, m, size), func(ctx context.Context, p scenario.Progress) scenario.Result {
							tc := tc
							tc.Progress = p
							return scenario.RunThroughput(ctx, t, m, tc)
						}})
					}
					if has(string(scenario.ModeRust)) && t.GoGo() != "" {
						rows = append(rows, row{name(sc, t.Name, scenario.ModeRust, size), func(ctx context.Context, _ scenario.Progress) scenario.Result {
							return scenario.RunThroughputRust(ctx, t, tc)
						}})
					}
				}
				if has("floor") {
					for _, f := range floors([]scenario.Floor{scenario.FloorChan, scenario.FloorTCP, scenario.FloorTCPProc}, trs) {
						rows = append(rows, row{name(sc, string(f), scenario.ModeFloor, size), func(ctx context.Context, p scenario.Progress) scenario.Result {
							tc := tc
							tc.Progress = p
							return scenario.RunThroughputFloor(ctx, f, tc)
						}})
					}
					if usesFloor(trs, scenario.FloorDDSPerf) {
						rows = append(rows, row{name(sc, string(scenario.FloorDDSPerf), scenario.ModeFloor, size), func(ctx context.Context, p scenario.Progress) scenario.Result {
							return scenario.RunDDSPerfThroughput(ctx, tc)
						}})
					}
				}
			}
		case "pipeline":
			for _, t := range all {
				router := t.Name == "zenoh-router"
				if !has(string(scenario.ModeAfor)) || !(router && pyOK) && t.Name != "zenoh-proc" {
					continue
				}
				pc := scenario.PipelineConfig{Router: router, Python: cfg.Python, Warmup: cfg.PipeWarmup, Window: cfg.CPUWindow, NodeProcs: cfg.NodeProcs}
				tr := "zenoh-p2p"
				if router {
					tr = "zenoh-router"
				}
				rows = append(rows, row{name(sc, tr, scenario.ModeAfor, scenario.ImageWidth*scenario.ImageHeight), func(ctx context.Context, p scenario.Progress) scenario.Result {
					pc := pc
					pc.Progress = p
					return scenario.RunPipeline(ctx, pc)
				}})
			}
			if has("floor") { // the same nodes in bare Go, whatever the transports
				pc := scenario.PipelineConfig{Floor: true, Warmup: cfg.PipeWarmup, Window: cfg.CPUWindow, NodeProcs: cfg.NodeProcs}
				rows = append(rows, row{name(sc, string(scenario.FloorTCP), scenario.ModeFloor, scenario.ImageWidth*scenario.ImageHeight),
					func(ctx context.Context, p scenario.Progress) scenario.Result {
						pc := pc
						pc.Progress = p
						return scenario.RunPipeline(ctx, pc)
					}})
			}
			rows = append(rows, rosDDSPipelineRows(cfg, rep, all, has)...)
		case "image":
			rows = append(rows, imageRows(cfg, has)...)
		case "ddsperf":
			rows = append(rows, ddsperfRows(cfg)...)
		case "request":
			for _, t := range trs {
				for _, m := range modes {
					rows = append(rows, row{name(sc, t.Name, m, cfg.Size), func(ctx context.Context, p scenario.Progress) scenario.Result {
						return scenario.RunRequest(ctx, t, m, cfg.Size, cfg.Duration, cfg.Warmup, p)
					}})
				}
			}
			if has("floor") {
				for _, f := range floors(scenario.Floors(), trs) {
					rows = append(rows, row{name(sc, string(f), scenario.ModeFloor, cfg.Size), func(ctx context.Context, p scenario.Progress) scenario.Result {
						return scenario.RunRequestFloor(ctx, f, cfg.Size, cfg.Duration, cfg.Warmup, p)
					}})
				}
			}
		}
	}
	return rows
}

// floors returns the floors of fs that a scenario over trs runs: the
// in-process ones always, the cross-process one (tcp-proc) only when one of
// trs is compared with it (zenoh-proc).
func floors(fs []scenario.Floor, trs []scenario.Transport) []scenario.Floor {
	var out []scenario.Floor
	for _, f := range fs {
		if !f.Remote() || slices.ContainsFunc(trs, func(t scenario.Transport) bool { return t.Floor == f }) {
			out = append(out, f)
		}
	}
	return out
}

// usesFloor reports whether one of trs is compared with f.
func usesFloor(trs []scenario.Transport, f scenario.Floor) bool {
	return slices.ContainsFunc(trs, func(t scenario.Transport) bool { return t.Floor == f })
}

// checkRouter reports whether python can run the Rust router.
func checkRouter(python string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return scenario.CheckPythonModules(ctx, python, scenario.RouterModules()...)
}

// pythonRows plans the Python afor's echo rows matching the selected
// transports, or warns that they cannot run.
func pythonRows(cfg Config, rep *Report, trs []scenario.Transport) []row {
	var modes []scenario.PythonMode
	for _, t := range trs {
		if t.Python != "" && !slices.Contains(modes, t.Python) {
			modes = append(modes, t.Python)
		}
	}
	if len(modes) == 0 {
		return nil
	}
	check, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := scenario.CheckPython(check, cfg.Python); err != nil {
		for _, m := range modes {
			rep.warn("echo/python-"+string(m)+"/python", "skipped",
				fmt.Sprintf("Python afor unavailable (%v); install with: .venv/bin/pip install -r .ci/requirements-bench.txt -r .ci/requirements-zenoh.txt, or set -python", err))
		}
		return nil
	}
	var rows []row
	for _, m := range modes {
		rows = append(rows, row{"echo/python-" + string(m) + "/python", func(ctx context.Context, _ scenario.Progress) scenario.Result {
			r, info := scenario.RunEchoPython(ctx, cfg.Python, m, cfg.Duration, 100*time.Millisecond)
			if info != nil { // keep the versions; the row has the numbers
				rep.Python = &scenario.PythonReport{Python: info.Python, Afor: info.Afor, Zenoh: info.Zenoh, Uvloop: info.Uvloop}
			}
			return r
		}})
	}
	return rows
}
