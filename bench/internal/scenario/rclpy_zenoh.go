package scenario

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

// EnvRMWZenohPython names a launcher that runs Python with rclpy on a real
// rmw_zenoh_cpp (ros/internal/rmwzenoh's TestInteropRealRMWZenoh says how
// to build one, by hand). The rclpy-on-rmw_zenoh echo rows run only when
// it is set.
const EnvRMWZenohPython = "AFOR_RMW_ZENOH_PYTHON"

// The echo of rclpy on a real rmw_zenoh_cpp, compared with ros-zenoh-proc.
const (
	// PythonRclpyZenoh: the Python afor on rclpy
	// (asyncio_for_robotics.ros2), its ROS 2 echo.
	PythonRclpyZenoh PythonMode = "afor-rclpy-zenoh"
	// PythonPlainRclpyZenoh: rclpy alone, callbacks on a
	// SingleThreadedExecutor.
	PythonPlainRclpyZenoh PythonMode = "rclpy-zenoh"
)

// RclpyZenohModes returns the rclpy-on-rmw_zenoh echo variants.
func RclpyZenohModes() []PythonMode {
	return []PythonMode{PythonPlainRclpyZenoh, PythonRclpyZenoh}
}

//go:embed testdata/rclpy_echo.py
var rclpyZenohEcho string

// RclpyReport is what testdata/rclpy_echo.py prints.
type RclpyReport struct {
	Hops       int64   `json:"hops"`
	Seconds    float64 `json:"seconds"`
	CPUSeconds float64 `json:"cpu_seconds"`
	Mode       string  `json:"mode"`
	Python     string  `json:"python"`
	Afor       string  `json:"asyncio_for_robotics"`
	Rclpy      string  `json:"rclpy"`
}

// RunEchoRclpyZenoh runs the echo of testdata/rclpy_echo.py (the Python
// library's pattern over std_msgs/UInt8MultiArray of 64 bytes, one message
// in flight) in two processes of launcher, rclpy on rmw_zenoh_cpp, for d
// after warmup, as rmw_zenoh runs in a deployment: both peers connect to a
// Rust Zenoh router (run by python, which must import zenoh) and link to
// each other directly once its gossip tells them of each other. Its CPU is
// the hello process's. The modes of [RclpyZenoh1PModes] run both halves in
// one process and one node instead (its one Zenoh session a peer of the
// router), whose CPU is the whole echo's.
func RunEchoRclpyZenoh(ctx context.Context, launcher, python string, mode PythonMode, d, warmup time.Duration) (r Result, rep *RclpyReport) {
	r = Result{Scenario: "echo", Transport: "python-" + string(mode), Mode: ModePython, Size: 64}
	executor := "afor"
	r.Note = "Python afor on rclpy on rmw_zenoh_cpp, two processes; cpu: the hello process only"
	if mode == PythonPlainRclpyZenoh {
		executor = "single"
		r.Note = "rclpy on rmw_zenoh_cpp, SingleThreadedExecutor, two processes; cpu: the hello process only"
	}
	oneProcess := slices.Contains(RclpyZenoh1PModes(), mode)
	if oneProcess {
		executor = rclpy1PKinds[mode]
		r.Note = rclpy1PNote(executor, "rmw_zenoh_cpp")
	}
	fail := func(err error) (Result, *RclpyReport) {
		r.Error, r.Failed = err.Error(), 1
		return r, nil
	}
	if launcher == "" {
		return fail(fmt.Errorf("%w: %s is unset", ErrUnsupported, EnvRMWZenohPython))
	}
	ctx, cancel := context.WithTimeout(ctx, d+warmup+60*time.Second)
	defer cancel()
	rt, err := startRouter(ctx, python)
	if err != nil {
		return fail(err)
	}
	defer func() {
		if err := rt.stop(); err != nil && r.Error == "" {
			r.Error, r.Failed = "router: "+err.Error(), 1
		}
	}()
	env := append(os.Environ(), "RMW_IMPLEMENTATION=rmw_zenoh_cpp", "ROS_DOMAIN_ID=0",
		`ZENOH_CONFIG_OVERRIDE=connect/endpoints=["`+rt.Endpoint+`"];listen/endpoints=["tcp/127.0.0.1:0"]`)
	if oneProcess {
		rep, err := runRclpyBoth(ctx, launcher, env, executor, d, warmup)
		if err != nil {
			return fail(err)
		}
		r.finish(rep.Hops, time.Duration(rep.Seconds*float64(time.Second)), time.Duration(rep.CPUSeconds*float64(time.Second)))
		return r, rep
	}
	ns := rosNamespace()
	world := exec.Command(launcher, "-c", rclpyZenohEcho, "world", executor, ns)
	world.Env = env
	stop, _, err := startReadyArg(ctx, world, "rclpy world side")
	if err != nil {
		return fail(err)
	}
	defer func() {
		if err := stop(); err != nil && r.Error == "" {
			r.Error, r.Failed = "rclpy world side: "+err.Error(), 1
		}
	}()
	secs := func(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 3, 64) }
	hello := exec.CommandContext(ctx, launcher, "-c", rclpyZenohEcho, "hello", executor, ns, secs(d), secs(warmup))
	hello.Env = env
	var stderr bytes.Buffer
	hello.Stderr = &stderr
	out, err := hello.Output()
	if err != nil {
		return fail(fmt.Errorf("rclpy hello side: %v: %s", err, lastLines(stderr.String(), 5)))
	}
	rep = &RclpyReport{}
	if err := json.Unmarshal(lastJSONLine(out), rep); err != nil {
		return fail(errors.Join(fmt.Errorf("rclpy driver output %q", out), err))
	}
	r.finish(rep.Hops, time.Duration(rep.Seconds*float64(time.Second)), time.Duration(rep.CPUSeconds*float64(time.Second)))
	return r, rep
}

// lastJSONLine returns the last non-empty line of out (rclpy may log before
// the report).
func lastJSONLine(out []byte) []byte {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return []byte(lines[len(lines)-1])
}
