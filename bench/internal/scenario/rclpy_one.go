package scenario

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"time"
)

// rclpy's echo in ONE process with ONE node, as the Python library's own
// benchmark runs it ("two pub/sub pairs that continuously echo messages on
// localhost, with a single participant"): testdata/rclpy_echo.py's role
// both, a publisher and a subscription on hello and on world, each callback
// answering the other topic plus one. On Fast DDS they are compared with
// ros-dds (one ROS context, two nodes), on a real rmw_zenoh_cpp with
// ros-zenoh (one ROS context, one Zenoh session, two nodes).
const (
	// PythonRclpy1P: rclpy callbacks on a SingleThreadedExecutor, one
	// process, Fast DDS.
	PythonRclpy1P PythonMode = "rclpy-1p"
	// PythonRclpyEvents1P: the same on rclpy.experimental.EventsExecutor.
	PythonRclpyEvents1P PythonMode = "rclpy-events-1p"
	// PythonAforRclpy1P: the Python afor on rclpy, two afor Subs on one
	// ThreadedSession answered from two listen_reliable loops on uvloop.
	PythonAforRclpy1P PythonMode = "afor-rclpy-1p"
	// PythonRclpyZenoh1P: PythonRclpy1P on rmw_zenoh_cpp.
	PythonRclpyZenoh1P PythonMode = "rclpy-zenoh-1p"
	// PythonRclpyEventsZenoh1P: PythonRclpyEvents1P on rmw_zenoh_cpp.
	PythonRclpyEventsZenoh1P PythonMode = "rclpy-events-zenoh-1p"
	// PythonAforRclpyZenoh1P: PythonAforRclpy1P on rmw_zenoh_cpp.
	PythonAforRclpyZenoh1P PythonMode = "afor-rclpy-zenoh-1p"
)

// rclpy1PKinds maps the one-process modes to the driver's executor
// argument.
var rclpy1PKinds = map[PythonMode]string{
	PythonRclpy1P: "single", PythonRclpyEvents1P: "events", PythonAforRclpy1P: "afor",
	PythonRclpyZenoh1P: "single", PythonRclpyEventsZenoh1P: "events", PythonAforRclpyZenoh1P: "afor",
}

// Rclpy1PModes returns the one-process rclpy echo variants on Fast DDS.
func Rclpy1PModes() []PythonMode {
	return []PythonMode{PythonRclpy1P, PythonRclpyEvents1P, PythonAforRclpy1P}
}

// RclpyZenoh1PModes returns the one-process rclpy echo variants on
// rmw_zenoh_cpp (see [RunEchoRclpyZenoh]).
func RclpyZenoh1PModes() []PythonMode {
	return []PythonMode{PythonRclpyZenoh1P, PythonRclpyEventsZenoh1P, PythonAforRclpyZenoh1P}
}

// rclpy1PNote is the Note of a one-process row of executor kind on
// middleware.
func rclpy1PNote(kind, middleware string) string {
	if kind == "afor" {
		return "one process, one node: Python afor on rclpy (ThreadedSession, two listen_reliable loops on uvloop) on " + middleware
	}
	return "one process, one node: rclpy " + kind + " executor on " + middleware
}

// runEchoRclpy1P runs the one-process echo of mode on Fast DDS (python's
// default middleware, LOCALHOST discovery in a random domain) for d after
// warmup. Its CPU is the whole echo's.
func runEchoRclpy1P(ctx context.Context, python string, mode PythonMode, d, warmup time.Duration) (r Result, rep *RclpyReport) {
	kind := rclpy1PKinds[mode]
	r = Result{Scenario: "echo", Transport: "python-" + string(mode), Mode: ModePython, Size: 64, Note: rclpy1PNote(kind, "Fast DDS")}
	ctx, cancel := context.WithTimeout(ctx, d+warmup+2*rclpyStartTimeout)
	defer cancel()
	rep, err := runRclpyBoth(ctx, python, rclpyEnv(ddsDomainBase+rand.IntN(ddsDomains)), kind, d, warmup)
	if err != nil {
		r.Error, r.Failed = err.Error(), 1
		return r, nil
	}
	r.finish(rep.Hops, time.Duration(rep.Seconds*float64(time.Second)), time.Duration(rep.CPUSeconds*float64(time.Second)))
	return r, rep
}

// runRclpyBoth runs testdata/rclpy_echo.py's role both with executor kind
// under python (an interpreter or a launcher) and env, in a namespace of
// its own, and returns its report.
func runRclpyBoth(ctx context.Context, python string, env []string, kind string, d, warmup time.Duration) (*RclpyReport, error) {
	secs := func(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 3, 64) }
	cmd := exec.CommandContext(ctx, python, "-c", rclpyEcho, "both", kind, rosNamespace(), secs(d), secs(warmup))
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("rclpy echo (one process): %v: %s", err, lastLines(stderr.String(), 5))
	}
	rep := &RclpyReport{}
	if err := json.Unmarshal(lastJSONLine(out), rep); err != nil {
		return nil, errors.Join(fmt.Errorf("rclpy driver output %q", out), err)
	}
	if rep.Hops <= 0 {
		return nil, fmt.Errorf("%w: rclpy echo (one process) counted %d hops", ErrUnexpected, rep.Hops)
	}
	return rep, nil
}
