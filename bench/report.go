package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/afor-go/afor/bench/internal/scenario"
	"github.com/afor-go/afor/internal/peers"
)

// Report is the outcome of a run, as written by -json.
type Report struct {
	Started  time.Time              `json:"started"`
	Finished time.Time              `json:"finished"`
	Machine  Machine                `json:"machine"`
	Go       GoInfo                 `json:"go"`
	Python   *scenario.PythonReport `json:"python,omitempty"`
	Config   Config                 `json:"config"`
	Results  []scenario.Result      `json:"results"`
	Ratios   []Ratio                `json:"ratios"`
	Warnings []Warning              `json:"warnings"`
	Notes    []string               `json:"notes"`
	byName   map[string]*scenario.Result
}

// Machine describes where the run happened.
type Machine struct {
	CPU string `json:"cpu"`
	// Cores is the CPUs the run may use (runtime.NumCPU: fewer than
	// Online when the bench was started pinned, as with taskset).
	Cores int `json:"cores"`
	// Online is the CPUs the machine has (Linux only; 0 when unknown).
	Online     int    `json:"online,omitempty"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	OS         string `json:"os"`
	Arch       string `json:"arch"`
	// LoadStart and LoadEnd are /proc/loadavg at the start and the end:
	// a load near or above Cores means noisy numbers.
	LoadStart string `json:"loadavg_start,omitempty"`
	LoadEnd   string `json:"loadavg_end,omitempty"`
}

// GoInfo is the toolchain and the code measured.
type GoInfo struct {
	Version  string `json:"version"`
	Revision string `json:"vcs_revision,omitempty"`
	Modified bool   `json:"vcs_modified,omitempty"`
}

// Ratio compares an afor row with the rows under it, or a python echo row
// with the Go afor row of the same layout. Each ratio divides afor's time
// per operation by the other row's (the Python one the other way round:
// how many times faster Go afor is), except CPUOverFloor.
type Ratio struct {
	Row        string  `json:"row"`
	OverNative float64 `json:"afor_over_native,omitempty"`
	// MinusNative is afor's time per operation minus the native row's, in
	// ns (what afor adds per hop or call; negative when it is faster).
	MinusNative float64 `json:"afor_minus_native_ns,omitempty"`
	Floor       string  `json:"floor,omitempty"`
	OverFloor   float64 `json:"afor_over_floor,omitempty"`
	// PythonOverGo (python echo rows) divides the row's time per hop by
	// that of the Go afor row named by Afor (see
	// scenario.PythonMode.GoTransport): ros-dds and ros-zenoh for the
	// one-process rclpy rows, ros-dds-proc and ros-zenoh-proc for the
	// two-process ones.
	PythonOverGo float64 `json:"python_over_afor,omitempty"`
	Afor         string  `json:"afor_row,omitempty"`
	// CPUOverFloor (pipeline rows) divides the five afor nodes' total CPU
	// use by the five bare-Go floor nodes' (pipeline/tcp/floor).
	CPUOverFloor float64 `json:"afor_cpu_over_floor,omitempty"`
	// PythonCPUOverGo (rclpy pipeline rows) divides the five rclpy nodes'
	// total CPU use by the five Go ROS nodes' named by Afor.
	PythonCPUOverGo float64 `json:"python_cpu_over_afor,omitempty"`
	// OverGoGo (rows of the zenoh-proc-*-rust transports: side B, or in
	// mode rust both sides, on the Rust stack) divides the row's time per
	// operation by that of the row with Go on both sides named by GoGo:
	// the same layout, link, size and mode (mode rust: native, both being
	// subscriber callbacks).
	OverGoGo float64 `json:"over_go_go,omitempty"`
	GoGo     string  `json:"go_go_row,omitempty"`
}

// Warning is something a reader of the numbers must know. Kinds dropped
// and failed make -fail-on-warning fail; late, noisy and skipped do not.
type Warning struct {
	Row     string `json:"row"`
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

func newReport(cfg Config) *Report {
	return &Report{
		Started: time.Now(),
		Machine: Machine{
			CPU:        cpuModel(),
			Cores:      runtime.NumCPU(),
			Online:     onlineCPUs(),
			GOMAXPROCS: runtime.GOMAXPROCS(0),
			OS:         runtime.GOOS,
			Arch:       runtime.GOARCH,
			LoadStart:  loadAvg(),
		},
		Go:       goInfo(),
		Config:   cfg,
		Ratios:   []Ratio{},
		Warnings: []Warning{},
		Notes: []string{
			"ratios divide afor's time per operation by the native or floor row's: 1.00x is no overhead",
			"mem native and zenoh native answer inside the publisher's call (no goroutine switch); afor hands every message to a consumer goroutine",
			"zenoh native is DeclareSubscriber, whose Sample copies the payload; zenoh afor is SubscribeCodec, which decodes in place",
			"zenoh-proc: side B is a child process (this executable started again); in latency and throughput it acknowledges every message with the one-way latency it measured, in request it is the server; its cpu counts this process only",
			"zenoh-proc is compared with the tcp-proc floor: the tcp floor's loops with side B in a child process (a bare TCP server: it answers the echo and the requests, and acknowledges every stream message with the one-way latency it measured, as zenoh-proc's child does), so both pay the wake-up of the other process's thread on every hop; the other transports are compared with tcp or chan, within one process",
			"zenoh request: afor is zenoh.NewServer (a ListenReliable loop) and zenoh.NewClient (Client.Call); native is a Session.DeclareQueryable handler answering with Query.ReplyAndFinish, and Session.Get read to the end of its replies",
			"ros-zenoh, ros-zenoh-tcp, ros-zenoh-proc (echo and request): ROS 2 over rmw_zenoh's conventions (package ros, ros.Zenoh) between two nodes of one ROS context (one Zenoh session, no socket), two ROS contexts of this process over TCP, or with side B in a child process; afor is ros.NewPublisher and ros.Subscribe (an afor.Sub), ros.NewServer and ros.NewClient (example afor_bench/srv/Echo), QoS default; the message is a std_msgs/msg/UInt8MultiArray whose data is the size's bytes",
			"ros native: the raw Zenoh under the ROS layer, on the same keys with the same bytes (CDR payload, rmw_zenoh's 33-byte attachment, timestamp): Session.DeclareSubscriber and Publisher.Put, a complete queryable answering with Query.ReplyAndFinish and Session.Get; afor-native is what the ROS layer adds per hop (echo) or call (request)",
			"ros-dds, ros-dds-udp, ros-dds-proc (echo): ROS 2 over DDS (package ros, ros.DDS) between two nodes of one ROS context (one DDS participant), two ROS contexts of this process over UDP on 127.0.0.1, or with side B in a child process; native is transport/dds on the same topics, type, QoS and bytes (one bare participant, two, or one in each process)",
			"python/afor (echo, on the python rows): the row's time per hop over that of the Go afor row named beside it, in the same layout: the Python afor's rows against mem, zenoh and zenoh-proc; rclpy's rows in one process and one node (python-*-1p, the Python library's own layout) against ros-dds and ros-zenoh (one ROS context, two nodes); rclpy's rows in two processes against ros-dds-proc and ros-zenoh-proc",
			"zenoh-proc-tls, zenoh-proc-quic: zenoh-proc over a tls/ or quic/ link (server authentication with a CA and a certificate made for the row; the child trusts the CA)",
			"zenoh-proc-rust, zenoh-proc-tls-rust, zenoh-proc-quic-rust (echo, throughput): zenoh-proc's layout and link with side B on the Rust stack: eclipse-zenoh in a Python process, answering (echo) or acknowledging every message (throughput) from its subscriber callback; afor and native say how the Go side A consumes; in mode rust side A is the Rust stack too, in a second Python process, answering from its callback (echo) or keeping the window in flight (throughput, congestion control block); cpu: side A's process; over go-go divides the row's time by that of the same layout with Go on both sides (zenoh-proc, zenoh-proc-tls, zenoh-proc-quic), same mode (mode rust: native)",
			"zenoh-router: both sessions of this process are clients of the Rust router (eclipse-zenoh), started for each row; its cpu counts this process only",
			fmt.Sprintf("zenoh-router throughput: at most %s in flight (the window shrinks with the size): the router drops what overflows its data queue, the pure-Go publisher using Zenoh's default congestion control (drop)",
				bytesSize(float64(scenario.ZenohRouter("").MaxInFlight))),
			"pipeline: five processes (this executable started again); cpu per node from /proc/PID/stat over the window, in % of one core",
			"pipeline floor (tcp): the same five nodes, rates, CDR messages and hand-offs to the loops in bare Go (time.Ticker, length-prefixed frames over TCP on 127.0.0.1, no afor, no Zenoh); afor/floor divides the total cpu",
		},
	}
}

func (r *Report) warn(row, kind, msg string) {
	r.Warnings = append(r.Warnings, Warning{Row: row, Kind: kind, Message: msg})
}

// finish derives the ratios and the warnings from the results.
func (r *Report) finish() {
	r.Finished = time.Now()
	r.Ratios = r.Ratios[:0]
	r.Machine.LoadEnd = loadAvg()
	r.byName = map[string]*scenario.Result{}
	for i := range r.Results {
		res := &r.Results[i]
		r.byName[key(res.Scenario, res.Transport, res.Mode, res.Size)] = res
		name := res.Name()
		switch {
		case res.Skipped != "":
			r.warn(name, "skipped", res.Skipped)
			continue
		case res.Error != "":
			r.warn(name, "failed", res.Error)
		case res.Failed > 0:
			r.warn(name, "failed", fmt.Sprintf("%d messages undecodable, duplicated or out of order", res.Failed))
		}
		if res.Dropped > 0 {
			r.warn(name, "dropped", fmt.Sprintf("%d of %d messages never delivered", res.Dropped, res.Sent))
		}
		if res.Late > 0 {
			r.warn(name, "late", fmt.Sprintf("%d messages took longer than the period", res.Late))
		}
		// A busy-looping row that got little CPU was mostly waiting for the
		// machine: its time measures the machine's load, not the code. (The
		// -proc rows count one of their two processes only.)
		// Rows whose other side is another process (-proc, the router) and
		// the pipeline (which idles by design) are not busy loops.
		busy := res.Scenario != "latency" && res.Scenario != "pipeline" &&
			!strings.Contains(res.Transport, "-proc") && !strings.HasSuffix(res.Transport, "-router")
		if busy && res.CPU > 0 && res.CPU < minBusyCPU {
			r.warn(name, "noisy", fmt.Sprintf("the process got %.0f%% of a core during this row: the machine was busy", res.CPU))
		}
	}
	trs := map[string]scenario.Transport{}
	for _, t := range scenario.Transports() {
		trs[t.Name] = t
	}
	for _, res := range r.Results {
		if res.Scenario == "pipeline" && res.Mode == scenario.ModePython && ok(&res) {
			if ra, found := r.pipelineRatio(res); found {
				r.Ratios = append(r.Ratios, ra)
			}
			continue
		}
		if res.Mode == scenario.ModePython && ok(&res) {
			if ra, found := r.pythonRatio(res); found {
				r.Ratios = append(r.Ratios, ra)
			}
			continue
		}
		if res.Mode != scenario.ModeAfor && ok(&res) {
			if ra := r.goGoRatio(trs[res.Transport], res, Ratio{Row: res.Name()}); ra.OverGoGo > 0 {
				r.Ratios = append(r.Ratios, ra)
			}
			continue
		}
		if res.Mode != scenario.ModeAfor || !ok(&res) {
			continue
		}
		if res.Scenario == "pipeline" {
			if res.Transport == scenario.PipelineTransportROSDDSOneProc {
				continue // the floor runs with Go's default GOMAXPROCS
			}
			if f := r.get(res.Scenario, string(scenario.FloorTCP), scenario.ModeFloor, res.Size); f != nil && f.CPU > 0 {
				r.Ratios = append(r.Ratios, Ratio{Row: res.Name(), Floor: string(scenario.FloorTCP), CPUOverFloor: res.CPU / f.CPU})
			}
			continue
		}
		t := trs[res.Transport]
		ra := Ratio{Row: res.Name(), Floor: string(t.Floor)}
		if n := r.get(res.Scenario, res.Transport, scenario.ModeNative, res.Size); n != nil {
			ra.OverNative = res.NsPerOp / n.NsPerOp
			ra.MinusNative = res.NsPerOp - n.NsPerOp
		}
		if f := r.get(res.Scenario, string(t.Floor), scenario.ModeFloor, res.Size); f != nil {
			ra.OverFloor = res.NsPerOp / f.NsPerOp
		}
		r.Ratios = append(r.Ratios, r.goGoRatio(t, res, ra))
	}
}

// goGoRatio adds to ra the comparison of res, a row of a transport with
// the Rust stack on one or both sides (t.GoGo() not empty), with the row
// of the same layout with Go on both sides, if both ran.
func (r *Report) goGoRatio(t scenario.Transport, res scenario.Result, ra Ratio) Ratio {
	goGo := t.GoGo()
	if goGo == "" {
		return ra
	}
	mode := res.Mode
	if mode == scenario.ModeRust {
		mode = scenario.ModeNative
	}
	if g := r.get(res.Scenario, goGo, mode, res.Size); g != nil {
		ra.OverGoGo, ra.GoGo = res.NsPerOp/g.NsPerOp, g.Name()
	}
	return ra
}

// pythonRatio compares python row res with the Go afor row of its layout
// (whatever its size: the echo runs one), if both ran.
func (r *Report) pythonRatio(res scenario.Result) (Ratio, bool) {
	tr, found := strings.CutPrefix(res.Transport, "python-")
	if !found {
		return Ratio{}, false
	}
	goTr := scenario.PythonMode(tr).GoTransport()
	for i := range r.Results {
		g := &r.Results[i]
		if g.Scenario == res.Scenario && g.Transport == goTr && g.Mode == scenario.ModeAfor && ok(g) {
			return Ratio{Row: res.Name(), Afor: g.Name(), PythonOverGo: res.NsPerOp / g.NsPerOp}, true
		}
	}
	return Ratio{}, false
}

// pipelineRatio compares an rclpy pipeline row with the Go ROS nodes of
// the same run: its total CPU over theirs (how many times less the Go
// nodes need), ros-dds (GOMAXPROCS Go's default, or -node-gomaxprocs) if
// it ran, else ros-dds-gmp1.
func (r *Report) pipelineRatio(res scenario.Result) (Ratio, bool) {
	for _, tr := range []string{scenario.PipelineTransportROSDDS, scenario.PipelineTransportROSDDSOneProc} {
		if g := r.get(res.Scenario, tr, scenario.ModeAfor, res.Size); g != nil && g.CPU > 0 {
			return Ratio{Row: res.Name(), Afor: g.Name(), PythonCPUOverGo: res.CPU / g.CPU}, true
		}
	}
	return Ratio{}, false
}

// minBusyCPU is the CPU share (% of one core) below which a row that
// should keep a core busy is flagged as noisy.
const minBusyCPU = 50

func key(scen, transport string, mode scenario.Mode, size int) string {
	return fmt.Sprintf("%s/%s/%s/%d", scen, transport, mode, size)
}

func ok(r *scenario.Result) bool { return r.Skipped == "" && r.Error == "" && r.NsPerOp > 0 }

// get returns a usable row, or nil.
func (r *Report) get(scen, transport string, mode scenario.Mode, size int) *scenario.Result {
	res := r.byName[key(scen, transport, mode, size)]
	if res == nil || !ok(res) {
		return nil
	}
	return res
}

func (r *Report) ratio(res scenario.Result) Ratio {
	for _, ra := range r.Ratios {
		if ra.Row == res.Name() {
			return ra
		}
	}
	return Ratio{}
}

// failing counts the warnings that make -fail-on-warning fail.
func (r *Report) failing() int {
	n := 0
	for _, w := range r.Warnings {
		if w.Kind == "dropped" || w.Kind == "failed" {
			n++
		}
	}
	return n
}

func (r *Report) writeJSON(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// writeTables prints the machine, one table per scenario, and the warnings.
func (r *Report) writeTables(out io.Writer) {
	w := bufio.NewWriter(out)
	defer w.Flush()
	cores := fmt.Sprintf("%d cores", r.Machine.Cores)
	if m := r.Machine; m.Online > m.Cores {
		cores = fmt.Sprintf("%d of %d cores, pinned", m.Cores, m.Online)
	}
	fmt.Fprintf(w, "afor bench  %s  %s/%s  %s (GOMAXPROCS %d)  %s  load %s -> %s\n",
		r.Machine.CPU, r.Machine.OS, r.Machine.Arch, cores, r.Machine.GOMAXPROCS, r.Go.Version,
		r.Machine.LoadStart, r.Machine.LoadEnd)
	if r.Config.Repeat > 1 {
		fmt.Fprintf(w, "each row: the %s of %d runs (round robin); spread: fastest..slowest run\n", r.Config.Pick, r.Config.Repeat)
	}
	if r.Python != nil {
		fmt.Fprintf(w, "python %s  asyncio-for-robotics %s  eclipse-zenoh %s  uvloop %s\n",
			r.Python.Python, r.Python.Afor, r.Python.Zenoh, r.Python.Uvloop)
	}
	for _, sc := range r.Config.Scenarios {
		var rows []scenario.Result
		for _, res := range r.Results {
			if res.Scenario == sc {
				rows = append(rows, res)
			}
		}
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n== %s\n", title(sc, r.Config))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		switch sc {
		case "echo":
			goGo := r.hasGoGo(rows)
			fmt.Fprintln(tw, "transport\tmode\tsize\thops/s\tper hop\tspread\tcpu\tafor/native\tafor-native\tafor/floor\tpython/afor\t"+goGoHead(goGo))
			for _, res := range rows {
				ra := r.ratio(res)
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", res.Transport, res.Mode, size(res),
					rate(res.Rate), dur(res.NsPerOp), spread(res), cpu(res), x(ra.OverNative), minus(ra), floorX(ra), pythonX(ra), goGoX(goGo, ra))
			}
		case "latency":
			fmt.Fprintln(tw, "transport\tmode\tsize\tp50\tspread\tp90\tp99\tp99.9\tmax\tsent\tdropped\tlate\tfailed\tcpu\tafor/native\tafor/floor\t")
			for _, res := range rows {
				ra := r.ratio(res)
				l := res.Latency
				if l == nil {
					l = &scenario.Latency{}
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t\n", res.Transport, res.Mode, size(res),
					d(l.P50), spread(res), d(l.P90), d(l.P99), d(l.P999), d(l.Max), res.Sent, res.Dropped, res.Late, res.Failed,
					cpu(res), x(ra.OverNative), floorX(ra))
			}
		case "throughput":
			goGo := r.hasGoGo(rows)
			fmt.Fprintln(tw, "transport\tmode\tsize\tmsg/s\tbytes/s\tper msg\tspread\tcpu\tafor/native\tafor/floor\t"+goGoHead(goGo))
			for _, res := range rows {
				ra := r.ratio(res)
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", res.Transport, res.Mode, size(res),
					rate(res.Rate), bytesRate(res.BytesPerSec), dur(res.NsPerOp), spread(res), cpu(res), x(ra.OverNative), floorX(ra), goGoX(goGo, ra))
			}
		case "pipeline":
			fmt.Fprintln(tw, "transport\tmode\tnode\tcpu\tpublished\treceived\tafor/floor\t")
			for _, res := range rows {
				p := res.Pipeline
				if p == nil {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\t\t\t\n", res.Transport, res.Mode, "all", status(res))
					continue
				}
				for _, n := range p.Nodes {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%.1f%%\t%d\t%d\t\t\n", res.Transport, res.Mode, n.Node, n.CPU, n.Published, n.Received)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%.1f%%\t\t\t%s\t\n", res.Transport, res.Mode, "all five", p.TotalCPU, cpuX(r.ratio(res)))
				if p.Router != nil {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%.1f%%\t\t\t\t\n", res.Transport, res.Mode, "(rust router)", p.Router.CPU)
				}
			}
			tw.Flush()
			fmt.Fprintln(w, "end to end, p50 / p99 / max:")
			for _, res := range rows {
				if p := res.Pipeline; p != nil {
					fmt.Fprintf(w, "  %-18s camera->perception %s / %s / %s   imu->control %s / %s / %s   (median of %d runs by total cpu)\n",
						res.Transport+" "+string(res.Mode), d(p.CameraToPerception.P50), d(p.CameraToPerception.P99), d(p.CameraToPerception.Max),
						d(p.IMUToControl.P50), d(p.IMUToControl.P99), d(p.IMUToControl.Max), max(res.Runs, 1))
				}
			}
		case "image":
			r.writeImages(tw, rows)
		case "ddsperf":
			r.writeDDSPerf(tw, rows)
		case "request":
			fmt.Fprintln(tw, "transport\tmode\tsize\tcalls/s\tper call\tspread\tcpu\tafor/native\tafor-native\tafor/floor\t")
			for _, res := range rows {
				ra := r.ratio(res)
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", res.Transport, res.Mode, size(res),
					rate(res.Rate), dur(res.NsPerOp), spread(res), cpu(res), x(ra.OverNative), minus(ra), floorX(ra))
			}
		}
		tw.Flush()
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintf(w, "\n== warnings\n")
		for _, wa := range r.Warnings {
			fmt.Fprintf(w, "%-8s %s: %s\n", wa.Kind, wa.Row, wa.Message)
		}
	}
	fmt.Fprintf(w, "\n== notes\n")
	for _, n := range r.Notes {
		fmt.Fprintf(w, "- %s\n", n)
	}
}

func title(sc string, c Config) string {
	switch sc {
	case "echo":
		return fmt.Sprintf("echo: two topics, one message in flight, %v per row (cpu: %% of one core, whole process)", c.Duration)
	case "latency":
		return fmt.Sprintf("latency: one-way, %d messages every %v after %d warm-up, afor queue %d", c.Count, c.Period, c.Warmup, c.Queue)
	case "throughput":
		return fmt.Sprintf("throughput: one way, %v per row, window %d", c.Duration, c.Window)
	case "pipeline":
		procs := "default"
		if c.NodeProcs > 0 {
			procs = strconv.Itoa(c.NodeProcs)
		}
		return fmt.Sprintf("pipeline: camera 1280x720 mono8 Image at 30 Hz, IMU 200 Hz, perception, planning 10 Hz, control 200 Hz; one process each (GOMAXPROCS %s; ros-dds-gmp1: 1); cpu over %v (%% of one core); afor/floor: total cpu over the bare-Go floor's, and on the rclpy rows their total cpu over the Go ROS nodes'", procs, c.CPUWindow)
	case "image":
		return imageTitle(c)
	case "ddsperf":
		return ddsperfTitle(c)
	case "request":
		return fmt.Sprintf("request: one call outstanding, %v per row (afor: Server/Client; native: the transport's queryable and query; floor: one ping-pong of the same size)", c.Duration)
	}
	return sc
}

func size(r scenario.Result) string {
	if r.Size == 0 {
		return "-"
	}
	return bytesSize(float64(r.Size))
}

func cpu(r scenario.Result) string {
	if !ok(&r) {
		return status(r)
	}
	return fmt.Sprintf("%.0f%%", r.CPU)
}

// spread is the range of the primary metric over the runs of a row.
func spread(r scenario.Result) string {
	if r.Runs < 2 || !ok(&r) {
		return "-"
	}
	return dur(r.MinNsPerOp) + ".." + dur(r.MaxNsPerOp)
}

func status(r scenario.Result) string {
	switch {
	case r.Skipped != "":
		return "skipped"
	case r.Error != "":
		return "FAILED"
	}
	return "-"
}

func x(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", v)
}

// cpuX is a pipeline row's total CPU over the floor's.
func cpuX(ra Ratio) string {
	if ra.PythonCPUOverGo != 0 {
		tr := strings.Split(ra.Afor, "/")
		return fmt.Sprintf("%.2fx %s", ra.PythonCPUOverGo, tr[min(1, len(tr)-1)])
	}
	if ra.CPUOverFloor == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx %s", ra.CPUOverFloor, ra.Floor)
}

// minus is what afor adds to the native row per operation, signed.
func minus(ra Ratio) string {
	switch {
	case ra.OverNative == 0:
		return "-"
	case ra.MinusNative < 0:
		return "-" + dur(-ra.MinusNative)
	}
	return "+" + dur(ra.MinusNative)
}

// hasGoGo reports whether one of rows is compared with a row with Go on
// both sides (the table then has a column for it).
func (r *Report) hasGoGo(rows []scenario.Result) bool {
	return slices.ContainsFunc(rows, func(res scenario.Result) bool { return r.ratio(res).OverGoGo > 0 })
}

func goGoHead(on bool) string {
	if !on {
		return ""
	}
	return "over go-go\t"
}

// goGoX is a Rust row's time per operation over that of the same layout
// with Go on both sides, and which row ("" without the column).
func goGoX(on bool, ra Ratio) string {
	if !on {
		return ""
	}
	if ra.OverGoGo == 0 {
		return "-\t"
	}
	tr := strings.Split(ra.GoGo, "/")
	return fmt.Sprintf("%.2fx %s\t", ra.OverGoGo, strings.Join(tr[min(1, len(tr)-1):min(3, len(tr))], "/"))
}

// pythonX is a python row's time per hop over Go afor's, and which Go row.
func pythonX(ra Ratio) string {
	if ra.PythonOverGo == 0 {
		return "-"
	}
	tr := strings.Split(ra.Afor, "/")
	return fmt.Sprintf("%.2fx %s", ra.PythonOverGo, tr[min(1, len(tr)-1)])
}

func floorX(ra Ratio) string {
	if ra.OverFloor == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx %s", ra.OverFloor, ra.Floor)
}

func d(v time.Duration) string { return dur(float64(v)) }

// dur formats nanoseconds.
func dur(ns float64) string {
	switch {
	case ns <= 0:
		return "-"
	case ns < 1e3:
		return fmt.Sprintf("%.0f ns", ns)
	case ns < 1e6:
		return fmt.Sprintf("%.2f µs", ns/1e3)
	case ns < 1e9:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	}
	return fmt.Sprintf("%.2f s", ns/1e9)
}

func rate(v float64) string {
	switch {
	case v <= 0:
		return "-"
	case v < 1e3:
		return fmt.Sprintf("%.0f", v)
	case v < 1e6:
		return fmt.Sprintf("%.1f k", v/1e3)
	}
	return fmt.Sprintf("%.2f M", v/1e6)
}

func bytesRate(v float64) string {
	if v <= 0 {
		return "-"
	}
	return bytesSize(v) + "/s"
}

// bytesSize formats a byte count in binary units.
func bytesSize(v float64) string {
	switch {
	case v < 1<<10:
		return fmt.Sprintf("%.0f B", v)
	case v < 1<<20:
		return fmt.Sprintf("%.4g KiB", v/(1<<10))
	case v < 1<<30:
		return fmt.Sprintf("%.4g MiB", v/(1<<20))
	}
	return fmt.Sprintf("%.4g GiB", v/(1<<30))
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, found := strings.Cut(line, ":"); found && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
	}
	return runtime.GOARCH
}

// onlineCPUs returns how many CPUs the machine has online (Linux's
// /sys/devices/system/cpu/online, a list of ranges such as "0-3,6"), or 0.
func onlineCPUs() int {
	b, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return 0
	}
	return countCPUList(strings.TrimSpace(string(b)))
}

// countCPUList counts the CPUs of a kernel CPU list ("0-3,6": 5), or
// returns 0 when it is malformed.
func countCPUList(list string) int {
	n := 0
	for _, r := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(r, "-")
		if !isRange {
			hi = lo
		}
		a, errA := strconv.Atoi(lo)
		b, errB := strconv.Atoi(hi)
		if errA != nil || errB != nil || a < 0 || b < a {
			return 0
		}
		n += b - a + 1
	}
	return n
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// goInfo returns the Go version and the revision measured: from the
// build's VCS stamp, else (go run does not stamp) from git in the module
// root, when there is one.
func goInfo() GoInfo {
	g := GoInfo{Version: runtime.Version()}
	if bi, found := debug.ReadBuildInfo(); found {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				g.Revision = s.Value
			case "vcs.modified":
				g.Modified = s.Value == "true"
			}
		}
	}
	root := peers.ModuleRoot()
	if g.Revision != "" || root == "" {
		return g
	}
	git := func(args ...string) (string, bool) {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		out, err := cmd.Output()
		return strings.TrimSpace(string(out)), err == nil
	}
	if rev, found := git("rev-parse", "HEAD"); found {
		g.Revision = rev
		if st, found := git("status", "--porcelain", "--untracked-files=no"); found {
			g.Modified = st != ""
		}
	}
	return g
}

// progress shows which row runs: a line rewritten in place on a terminal,
// else one line per row (and one every progressLines on long rows).
type progress struct {
	w     io.Writer
	quiet bool
	tty   bool
	n, i  int
	row   string
	last  time.Time
}

const progressLines = 5 * time.Second

func newProgress(w io.Writer, quiet bool, n int) *progress {
	p := &progress{w: w, quiet: quiet, n: n}
	if f, isFile := w.(*os.File); isFile {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

func (p *progress) start(i int, row string) {
	p.i, p.row, p.last = i+1, row, time.Now()
	if p.quiet {
		return
	}
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K[%d/%d] %s", p.i, p.n, row)
		return
	}
	fmt.Fprintf(p.w, "[%d/%d] %s\n", p.i, p.n, row)
}

func (p *progress) update(row string, spent time.Duration) {
	if p.quiet {
		return
	}
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K[%d/%d] %s %.1fs", p.i, p.n, p.row, spent.Seconds())
		return
	}
	if time.Since(p.last) >= progressLines {
		p.last = time.Now()
		fmt.Fprintf(p.w, "[%d/%d] %s %.0fs\n", p.i, p.n, p.row, spent.Seconds())
	}
}

func (p *progress) done() {
	if !p.quiet && p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
