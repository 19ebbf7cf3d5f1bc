package scenario

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/transport/zenoh"
)

// EnvChild names the environment variable that makes a process started by
// the harness act as the remote side of a scenario (its value is the
// side's JSON configuration) instead of doing what it normally does.
const EnvChild = "AFOR_BENCH_CHILD"

// childReady is the line a child prints once it answers.
const childReady = "ready"

// childTimeout bounds a child's start and its stop.
const childTimeout = 15 * time.Second

// childConfig configures a remote side.
type childConfig struct {
	Role    string `json:"role"` // "echo", "sink", "server" (request/reply) or "pipeline"
	Connect string `json:"connect"`
	Prefix  string `json:"prefix"`
	Mode    Mode   `json:"mode"`
	Size    int    `json:"size"`
	// Pipeline nodes (role "pipeline"): the node, the endpoints to
	// connect to, and whether it is a client of a router.
	Node   string   `json:"node,omitempty"`
	Peers  []string `json:"peers,omitempty"`
	Client bool     `json:"client,omitempty"`
	// Floor makes a pipeline node the floor's: bare Go over TCP, no
	// afor, no Zenoh (see openFloorNode); with role "echo" or "sink", it
	// makes the child the far end of the tcp-proc floor (runFloorChild).
	Floor bool `json:"floor,omitempty"`
	// ROS makes the child's side B a ROS one (role "echo" or "server"):
	// a ROS node in the namespace Prefix (mode afor) or a bare Zenoh
	// session on the same keys (native), see [ROSZenohProc].
	ROS bool `json:"ros,omitempty"`
	// DDS makes the child's side B a DDS participant of Domain (role
	// "echo" or "sink"), see [DDSProc].
	DDS    bool `json:"dds,omitempty"`
	Domain int  `json:"domain,omitempty"`
	// ROSDDS makes the child a ROS node on DDS in Domain (role "echo",
	// see [ROSDDSProc], or "pipeline", see [PipelineConfig].ROS).
	ROSDDS bool `json:"ros_dds,omitempty"`
	// Image is the image of role "image" (Node "pub" or "sub", see
	// [RunImage]).
	Image *ImageFormat `json:"image,omitempty"`
	// Stream sinks (role "sink"): the afor queue size and the sender's
	// clock start (Unix ns).
	Queue      int   `json:"queue,omitempty"`
	ClockStart int64 `json:"clock_start,omitempty"`
	// RootCA is the PEM certificate a child connecting over tls/ or quic/
	// trusts (see [ZenohProcTLS]).
	RootCA []byte `json:"root_ca,omitempty"`
	// OneWay makes a sink answer only flush markers (see [oneWaySink]).
	OneWay bool `json:"one_way,omitempty"`
	// Args are a Go ddsperf side's command line (role "ddsperf", see
	// [RunDDSPerfPair]).
	Args []string `json:"args,omitempty"`
}

// RunChild runs the remote side of a scenario (or of the tcp-proc floor)
// when this process was started as one ($AFOR_BENCH_CHILD set) and reports
// handled = true, after which the caller must exit (with status 1 if err is
// not nil). Otherwise it returns at once with handled = false. Call it
// first in main, and in TestMain of test binaries that run cross-process
// scenarios or floors (the harness starts the running executable,
// os.Executable, as the child).
func RunChild() (handled bool, err error) {
	v, ok := os.LookupEnv(EnvChild)
	if !ok {
		return false, nil
	}
	var cfg childConfig
	if err := json.Unmarshal([]byte(v), &cfg); err != nil {
		return true, fmt.Errorf("%s: %w", EnvChild, err)
	}
	return true, runChild(cfg, os.Stdin, os.Stdout)
}

// runChild answers until stdin ends.
func runChild(cfg childConfig, stdin io.Reader, stdout io.Writer) error {
	if cfg.Role == "ddsperf" {
		return runDDSPerfChild(cfg, stdout)
	}
	if cfg.ROSDDS {
		return runROSDDSChild(cfg, stdin, stdout)
	}
	if cfg.Role == "pipeline" {
		return runPipelineNode(cfg, stdin, stdout)
	}
	if cfg.Role == "image" {
		return runImageNode(cfg, stdin, stdout)
	}
	if cfg.Floor {
		return runFloorChild(cfg, stdin, stdout)
	}
	if cfg.DDS {
		return runDDSChild(cfg, stdin, stdout)
	}
	if cfg.Role != "echo" && cfg.Role != "sink" && cfg.Role != "server" {
		return fmt.Errorf("%w: child role %q", ErrBadConfig, cfg.Role)
	}
	ctx, cancel := context.WithTimeout(context.Background(), childTimeout)
	defer cancel()
	if cfg.ROS {
		if cfg.Role == "sink" {
			return fmt.Errorf("%w: no ROS sink", ErrBadConfig)
		}
		stop, err := runROSChild(ctx, cfg)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, childReady)
		_, _ = io.Copy(io.Discard, stdin) // the parent closes stdin to stop us
		return stop()
	}
	s, err := zenoh.Open(ctx, zenoh.Config{Connect: []string{cfg.Connect}, TLS: zenoh.TLSConfig{RootCA: cfg.RootCA}})
	if err != nil {
		return err
	}
	defer s.Close()
	var stop func() error
	switch cfg.Role {
	case "sink":
		stop, err = sink(ctx, zenohPeer(s, cfg.Prefix, cfg.Size), zenohPeer(s, cfg.Prefix, HeaderSize), cfg)
	case "server":
		stop, err = RequestResponder(zenohPeer(s, cfg.Prefix, cfg.Size), cfg.Mode, cfg.Size)
	default:
		stop, err = EchoResponder(ctx, zenohPeer(s, cfg.Prefix, cfg.Size), cfg.Mode)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, childReady)
	_, _ = io.Copy(io.Discard, stdin) // the parent closes stdin to stop us
	return stop()
}

// sink receives "data" on in, in cfg.Mode, and acknowledges every message
// on "ack" of out with its latency (see Link.SinkB).
func sink(ctx context.Context, in, out Peer, cfg childConfig) (stop func() error, err error) {
	ack, err := out.Publisher(ctx, "ack")
	if err != nil {
		return nil, err
	}
	start := cfg.ClockStart
	var mu sync.Mutex // a callback may still run while stop returns
	var firstErr error
	ackErr := func() error { mu.Lock(); defer mu.Unlock(); return firstErr }
	onMsg := func(m Msg) {
		if m.Seq != badSeq {
			m.Stamp = time.Now().UnixNano() - start - m.Stamp
		}
		m.Body = nil
		if err := ack(context.Background(), m); err != nil {
			mu.Lock()
			firstErr = cmp.Or(firstErr, err)
			mu.Unlock()
		}
	}
	switch cfg.Mode {
	case ModeAfor:
		sub, err := in.Subscribe("data")
		if err != nil {
			return nil, err
		}
		life, cancel := context.WithCancel(context.Background())
		l := sub.Listener(life, afor.QueueSize(cfg.Queue)) // registered now: nothing sent after "ready" is missed
		done := make(chan struct{})
		go func() {
			defer close(done)
			for m := range l.All() {
				onMsg(m)
			}
		}()
		return func() error { cancel(); <-done; sub.Close(); return ackErr() }, nil
	case ModeNative:
		stopCB, err := in.Callback("data", onMsg)
		if err != nil {
			return nil, err
		}
		return func() error { stopCB(); return ackErr() }, nil
	}
	return nil, fmt.Errorf("%w: sink mode %q", ErrBadConfig, cfg.Mode)
}

// startChild starts the running executable as a remote side and waits
// until it answers. stop ends it and reports its failure, if any.
func startChild(ctx context.Context, cfg childConfig) (stop func() error, err error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("%w: cannot find the running executable: %v", ErrUnsupported, err)
	}
	conf, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), EnvChild+"="+string(conf))
	return startReady(ctx, cmd, "child "+cfg.Role)
}

// startReady starts cmd, a process that prints a "ready" line once it
// serves and runs until its standard input closes, and waits for that line.
// stop closes its input, waits for it to exit (killing it after
// childTimeout) and reports its failure with the end of its stderr.
func startReady(ctx context.Context, cmd *exec.Cmd, what string) (stop func() error, err error) {
	stop, _, err = startReadyArg(ctx, cmd, what)
	return stop, err
}

// startReadyArg is startReady for a process whose line is "ready ARG" (the
// endpoint or port it listens on, the system having chosen the port):
// it also returns ARG.
func startReadyArg(ctx context.Context, cmd *exec.Cmd, what string) (stop func() error, arg string, err error) {
	return startReadyArgTimeout(ctx, cmd, what, childTimeout)
}

// startReadyArgTimeout is startReadyArg waiting up to ready for the line.
func startReadyArgTimeout(ctx context.Context, cmd *exec.Cmd, what string, ready time.Duration) (stop func() error, arg string, err error) {
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, "", err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	wait := func() error {
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		t := time.NewTimer(childTimeout)
		defer t.Stop()
		select {
		case err := <-exited:
			return err
		case <-t.C:
			_ = cmd.Process.Kill()
			return errors.Join(errors.New("did not stop: killed"), <-exited)
		}
	}
	line := make(chan error, 1)
	var said string // written before line is sent on
	go func() {
		l, err := bufio.NewReader(stdout).ReadString('\n')
		word, rest, _ := strings.Cut(strings.TrimSpace(l), " ")
		if err == nil && word != childReady {
			err = fmt.Errorf("said %q", l)
		}
		said = rest
		line <- err
	}()
	// fail kills the process and reaps it; lineRead says whether the
	// reading goroutine already reported (else it ends at EOF and is
	// waited for).
	fail := func(err error, lineRead bool) error {
		_ = cmd.Process.Kill()
		werr := wait()
		if !lineRead {
			<-line
		}
		return fmt.Errorf("%s: %w (%v): %s", what, err, werr, lastLines(stderr.String(), 5))
	}
	timer := time.NewTimer(ready)
	defer timer.Stop()
	select {
	case err := <-line:
		if err != nil {
			return nil, "", fail(err, true)
		}
	case <-timer.C:
		return nil, "", fail(errors.New("not ready in time"), false)
	case <-ctx.Done():
		return nil, "", fail(ctx.Err(), false)
	}
	return func() error {
		_ = stdin.Close()
		if err := wait(); err != nil {
			return fmt.Errorf("%s: %w: %s", what, err, lastLines(stderr.String(), 5))
		}
		return nil
	}, said, nil
}
