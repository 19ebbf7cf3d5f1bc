package scenario

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// PipelineConfig configures [RunPipeline].
type PipelineConfig struct {
	// Router makes every node a client of a Rust Zenoh router started for
	// the run (with interpreter Python); otherwise the nodes are peers
	// linked directly, each connecting to the nodes it takes input from.
	Router bool
	Python string
	// Floor runs the pipeline's floor instead (Router ignored): the same
	// five processes, rates, CDR messages, data flow and hand-offs in bare
	// Go, time.Ticker and length-prefixed frames over TCP on 127.0.0.1,
	// without afor or Zenoh (pipeline_floor.go).
	Floor bool
	// Warmup is the time the pipeline runs before the window opens.
	Warmup time.Duration
	// Window is the time over which CPU use and latencies are measured.
	Window time.Duration
	// NodeProcs, when positive, is the GOMAXPROCS of every node process
	// (1 spares the Go scheduler's thread wake-ups between its goroutines).
	NodeProcs int
	// ROS, when set, runs the five nodes as ROS 2 nodes over DDS instead
	// (Router and Floor ignored): PipelineROSDDS, Go nodes of package ros
	// (this executable started again); PipelineRclpy or
	// PipelineRclpyEvents, rclpy nodes (testdata/rclpy_pipeline.py run by
	// Python). See ros_dds_pipeline.go.
	ROS string
	// OneProcRow runs the Go ROS nodes (ROS PipelineROSDDS) with
	// GOMAXPROCS 1 in a row of their own, ros-dds-gmp1, next to the
	// ros-dds row of the same run.
	OneProcRow bool
	Progress   Progress
}

// Pipeline is the outcome of the robot pipeline scenario.
type Pipeline struct {
	Topology string        `json:"topology"`
	Window   time.Duration `json:"window_ns"`
	// NodeProcs is the nodes' GOMAXPROCS (0: Go's default, the core count).
	NodeProcs int `json:"node_gomaxprocs"`
	// Nodes are the five nodes in start order; TotalCPU adds up their CPU
	// use in % of one core.
	Nodes    []PipelineNode `json:"nodes"`
	TotalCPU float64        `json:"total_cpu_percent"`
	// Router is the Rust router's own process, when there is one (not in
	// TotalCPU).
	Router *PipelineNode `json:"router,omitempty"`
	// End-to-end latencies: from the stamp in a message's header (the
	// sender's wall clock before encoding) to the receiving node's loop
	// body (after decoding and the hand-off to the loop: afor's, or the
	// floor's channel).
	CameraToPerception *Latency `json:"camera_to_perception,omitempty"`
	IMUToControl       *Latency `json:"imu_to_control,omitempty"`
}

// PipelineNode is one process of the pipeline and what it did during the
// window.
type PipelineNode struct {
	Node      string  `json:"node"`
	PID       int     `json:"pid"`
	CPU       float64 `json:"cpu_percent"`
	Published int64   `json:"published"`
	Received  int64   `json:"received"`
}

// RunPipeline runs the robot pipeline of the blog post this scenario
// models, one process per node (this executable started again, see
// [RunChild]) over pure-Go Zenoh on 127.0.0.1: a camera publishing
// 1280x720 mono8 sensor_msgs/Image at 30 Hz, an IMU publishing
// sensor_msgs/Imu at 200 Hz, a perception node taking the latest image and
// IMU sample and publishing a geometry_msgs/PoseStamped per image, a
// planning node publishing a nav_msgs/Path at 10 Hz, and a control node
// taking every IMU sample and the latest path and publishing a
// geometry_msgs/Twist per sample. It reports each node's CPU use over the
// window (from /proc/PID/stat) and the camera to perception and IMU to
// control latencies. With cfg.Floor its row is the floor of those numbers,
// "pipeline/tcp/floor": the same nodes in bare Go.
func RunPipeline(ctx context.Context, cfg PipelineConfig) (r Result) {
	r = Result{Scenario: "pipeline", Transport: "zenoh-p2p", Mode: ModeAfor, Size: ImageWidth * ImageHeight,
		Note: "five processes, peers linked directly; cpu: all five nodes, % of one core"}
	switch {
	case cfg.ROS != "":
		cfg.Router, cfg.Floor = false, false
		if cfg.OneProcRow {
			cfg.NodeProcs = 1
		}
		r.Transport, r.Mode = pipelineFlavourRow(cfg)
		r.Note = "five processes, ROS 2 nodes over DDS (" + cfg.ROS + "); cpu: all five nodes, % of one core"
	case cfg.Floor:
		cfg.Router = false
		r.Transport, r.Mode = string(FloorTCP), ModeFloor
		r.Note = "five processes in bare Go: time.Ticker, length-prefixed CDR over TCP on 127.0.0.1; cpu: all five nodes, % of one core"
	case cfg.Router:
		r.Transport = "zenoh-router"
		r.Note = "five processes, clients of a Rust router; cpu: all five nodes (router apart), % of one core"
	}
	if cfg.Window <= 0 || cfg.Warmup < 0 {
		r.Error, r.Failed = fmt.Sprintf("%v: window %v, warm-up %v", ErrBadConfig, cfg.Window, cfg.Warmup), 1
		return r
	}
	if _, err := procCPU(os.Getpid()); err != nil {
		r.Skipped = fmt.Sprintf("per-process CPU is unreadable here: %v", err)
		return r
	}
	p, err := runPipeline(ctx, cfg, r.Name())
	if err != nil {
		r.Error, r.Failed = err.Error(), 1
		return r
	}
	r.Pipeline = p
	var imu, control PipelineNode
	for _, n := range p.Nodes {
		switch n.Node {
		case NodeIMU:
			imu = n
		case NodeControl:
			control = n
		}
	}
	r.Ops, r.Elapsed, r.Sent = control.Received, p.Window, imu.Published
	r.Rate = float64(r.Ops) / p.Window.Seconds()
	r.CPU = p.TotalCPU
	r.Latency = p.IMUToControl
	if r.Latency != nil {
		r.NsPerOp = float64(r.Latency.P50)
	}
	return r
}

func runPipeline(ctx context.Context, cfg PipelineConfig, row string) (p *Pipeline, err error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.Warmup+cfg.Window+runSlack+childTimeout+pipelineStartSlack(cfg))
	defer cancel()
	p = &Pipeline{Topology: "peer-to-peer", Window: cfg.Window, NodeProcs: cfg.NodeProcs}
	prefix := fmt.Sprintf("afor_bench/pipeline/%d/%d/", os.Getpid(), time.Now().UnixNano())
	var rt *router
	if cfg.Floor {
		p.Topology = "bare Go over TCP"
	}
	domain := ddsDomainBase + rand.IntN(ddsDomains) // the ROS flavours'
	if cfg.ROS != "" {
		p.Topology = "ROS 2 over DDS (" + cfg.ROS + ")"
		prefix = rosNamespace()
	}
	if cfg.Router {
		p.Topology = "clients of a Rust router"
		if rt, err = startRouter(ctx, cfg.Python); err != nil {
			return nil, err
		}
		defer func() { err = errors.Join(err, rt.stop()) }()
	}
	var procs []*nodeProc
	defer func() { // on failure: end every node still running
		for _, np := range procs {
			np.kill()
		}
	}()
	addrs := map[string]string{}
	for _, node := range PipelineNodes() {
		c := childConfig{Role: "pipeline", Node: node, Prefix: prefix, Floor: cfg.Floor}
		if rt != nil {
			c.Client, c.Peers = true, []string{rt.Endpoint}
		} else {
			for _, in := range pipelineInputs(node) {
				c.Peers = append(c.Peers, addrs[in])
			}
		}
		var np *nodeProc
		var addr string
		switch cfg.ROS {
		case "":
			np, addr, err = startNode(ctx, c, cfg.NodeProcs)
		case PipelineROSDDS:
			c.ROSDDS, c.Domain, c.Peers = true, domain, nil
			np, addr, err = startNode(ctx, c, cfg.NodeProcs)
		default:
			np, err = startRclpyNode(ctx, cfg.Python, cfg.ROS, node, prefix, domain)
		}
		if err != nil {
			return nil, err
		}
		procs = append(procs, np)
		addrs[node] = addr
	}
	if err := waitFlowing(ctx, procs); err != nil {
		return nil, err
	}
	if err := pause(ctx, cfg.Warmup, row, nil); err != nil {
		return nil, err
	}
	pids := make([]int, 0, len(procs)+1)
	for _, np := range procs {
		pids = append(pids, np.cmd.Process.Pid)
		if err := np.send("mark"); err != nil {
			return nil, err
		}
	}
	if rt != nil {
		pids = append(pids, rt.PID)
	}
	before, t0, err := cpuOf(pids)
	if err != nil {
		return nil, err
	}
	if err := pause(ctx, cfg.Window, row, cfg.Progress); err != nil {
		return nil, err
	}
	// The window ends once every node with inputs received some: a loaded
	// machine may carry no image through in a short window (the smoke
	// test's half second).
	if err := waitFlowing(ctx, procs); err != nil {
		return nil, err
	}
	after, t1, err := cpuOf(pids)
	if err != nil {
		return nil, err
	}
	wall := t1.Sub(t0)
	p.Window = wall
	pct := func(i int) float64 { return 100 * (after[i] - before[i]).Seconds() / wall.Seconds() }
	var camLat, imuLat []time.Duration
	var errs []error
	running := procs
	procs = nil // finished below, killed if need be
	reps := make([]nodeReport, len(running))
	for i, np := range running { // every node's counts at the end of the window
		if reps[i], err = np.report(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	for _, np := range running { // stop them all at once, then reap them
		_ = np.stdin.Close()
	}
	for _, np := range running {
		if err := np.finish(); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for i, rep := range reps {
		n := PipelineNode{Node: rep.Node, PID: pids[i], CPU: pct(i), Published: rep.Published, Received: rep.Received}
		p.Nodes = append(p.Nodes, n)
		p.TotalCPU += n.CPU
		lat := make([]time.Duration, len(rep.Latency))
		for k, v := range rep.Latency {
			lat[k] = time.Duration(v)
		}
		switch rep.Node {
		case NodePerception:
			camLat = lat
		case NodeControl:
			imuLat = lat
		}
	}
	if rt != nil {
		p.Router = &PipelineNode{Node: "router", PID: rt.PID, CPU: pct(len(pids) - 1)}
	}
	p.CameraToPerception, p.IMUToControl = Summarize(camLat), Summarize(imuLat)
	if p.CameraToPerception == nil || p.IMUToControl == nil {
		return nil, fmt.Errorf("%w: %d images reached perception and %d IMU samples control in %v (nodes %+v)",
			ErrUnexpected, len(camLat), len(imuLat), wall, p.Nodes)
	}
	return p, nil
}

// waitFlowing waits until every node that takes input has received some
// (links up, declarations propagated), within childTimeout.
func waitFlowing(ctx context.Context, procs []*nodeProc) error {
	deadline := time.Now().Add(childTimeout)
	for {
		var idle []string
		for _, np := range procs {
			rep, err := np.report(ctx)
			if err != nil {
				return err
			}
			if len(pipelineInputs(rep.Node)) > 0 && rep.Received == 0 {
				idle = append(idle, rep.Node)
			}
		}
		if len(idle) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: after %v, nodes %v have received nothing", ErrUnexpected, childTimeout, idle)
		}
		if err := pause(ctx, 50*time.Millisecond, "", nil); err != nil { // poll: the nodes are other processes
			return err
		}
	}
}

// pause waits for d (a warm-up or a measured window), reporting progress.
func pause(ctx context.Context, d time.Duration, row string, progress Progress) error {
	start := time.Now()
	end := time.NewTimer(d)
	defer end.Stop()
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	for {
		select {
		case <-end.C:
			return nil
		case <-tick.C:
			if progress != nil {
				progress(row, time.Since(start))
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// clockTicks is the unit of utime and stime in /proc/PID/stat (USER_HZ,
// 100 on every Linux architecture Go supports).
const clockTicks = 100

// procCPU returns the CPU time (user + system) process pid has used.
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces: fields count from the
	// last ')'. utime and stime are fields 14 and 15.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	var ticks uint64
	for _, s := range f[11:13] {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
		ticks += v
	}
	return time.Duration(ticks) * (time.Second / clockTicks), nil
}

func cpuOf(pids []int) ([]time.Duration, time.Time, error) {
	out := make([]time.Duration, len(pids))
	for i, pid := range pids {
		c, err := procCPU(pid)
		if err != nil {
			return nil, time.Time{}, err
		}
		out[i] = c
	}
	return out, time.Now(), nil
}

// nodeProc is a running pipeline node.
type nodeProc struct {
	what   string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string // its stdout, line by line; closed at EOF
	stderr *lockedBuffer
	once   sync.Once
}

// lockedBuffer is a bytes.Buffer safe for the writer goroutine of exec and
// a reader.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startNode starts a pipeline node and waits for its "ready ENDPOINT".
func startNode(ctx context.Context, c childConfig, procs int) (*nodeProc, string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, "", fmt.Errorf("%w: cannot find the running executable: %v", ErrUnsupported, err)
	}
	conf, err := json.Marshal(c)
	if err != nil {
		return nil, "", err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), EnvChild+"="+string(conf))
	if procs > 0 {
		cmd.Env = append(cmd.Env, "GOMAXPROCS="+strconv.Itoa(procs))
	}
	return startNodeCmd(ctx, cmd, "pipeline node "+c.Node, childTimeout)
}

// startNodeCmd starts cmd as a pipeline node and waits up to ready for its
// "ready ENDPOINT" line.
func startNodeCmd(ctx context.Context, cmd *exec.Cmd, what string, ready time.Duration) (*nodeProc, string, error) {
	np := &nodeProc{what: what, cmd: cmd, lines: make(chan string, 4), stderr: &lockedBuffer{}}
	var err error
	cmd.Stderr = np.stderr
	if os.Getenv(EnvPipelineDebug) != "" {
		cmd.Stderr = io.MultiWriter(np.stderr, os.Stderr)
	}
	if np.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, "", err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	go func() {
		defer close(np.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 64<<20) // the final report holds every latency
		for sc.Scan() {
			np.lines <- sc.Text()
		}
	}()
	line, err := np.nextWithin(ctx, ready)
	if err != nil {
		np.kill()
		return nil, "", np.fail(err)
	}
	addr, ok := strings.CutPrefix(line, childReady+" ")
	if !ok {
		np.kill()
		return nil, "", np.fail(fmt.Errorf("said %q", line))
	}
	return np, addr, nil
}

// next returns the node's next line of output.
func (np *nodeProc) next(ctx context.Context) (string, error) {
	return np.nextWithin(ctx, childTimeout)
}

// nextWithin returns the node's next line of output, waiting up to d.
func (np *nodeProc) nextWithin(ctx context.Context, d time.Duration) (string, error) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case l, ok := <-np.lines:
		if !ok {
			return "", io.ErrUnexpectedEOF
		}
		return l, nil
	case <-t.C:
		return "", errors.New("no answer in time")
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func (np *nodeProc) fail(err error) error {
	return fmt.Errorf("%s: %w: %s", np.what, err, lastLines(np.stderr.String(), 5))
}

func (np *nodeProc) send(line string) error {
	if _, err := io.WriteString(np.stdin, line+"\n"); err != nil {
		return np.fail(err)
	}
	return nil
}

// report asks the node for its counts since the last mark.
func (np *nodeProc) report(ctx context.Context) (nodeReport, error) {
	var rep nodeReport
	if err := np.send("report"); err != nil {
		return rep, err
	}
	line, err := np.next(ctx)
	if err == nil {
		err = json.Unmarshal([]byte(line), &rep)
	}
	if err != nil {
		return rep, np.fail(err)
	}
	return rep, nil
}

// finish closes the node's input and waits for it to exit.
func (np *nodeProc) finish() error {
	_ = np.stdin.Close()
	if err := np.wait(); err != nil {
		return np.fail(err)
	}
	return nil
}

// wait drains the node's output (killing it if it does not end in time)
// and reaps it; later calls do nothing.
func (np *nodeProc) wait() (err error) {
	np.once.Do(func() {
		t := time.NewTimer(childTimeout)
		defer t.Stop()
		for open := true; open; {
			select {
			case _, open = <-np.lines:
			case <-t.C:
				_ = np.cmd.Process.Kill()
				err = errors.New("did not stop: killed")
			}
		}
		err = errors.Join(err, np.cmd.Wait())
	})
	return err
}

// kill ends the node at once and reaps it.
func (np *nodeProc) kill() {
	_ = np.cmd.Process.Kill()
	_ = np.stdin.Close()
	_ = np.wait()
}
