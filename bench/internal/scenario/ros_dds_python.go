package scenario

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"time"
)

// rclpy's own echo, next to the ros-dds-proc rows: the same pattern in two
// rclpy processes on Fast DDS (the pinned wheels' default middleware).
const (
	// PythonRclpy: rclpy callbacks on a SingleThreadedExecutor, answering
	// from the subscription callback.
	PythonRclpy PythonMode = "rclpy"
	// PythonRclpyEvents: the same on rclpy.experimental.EventsExecutor.
	PythonRclpyEvents PythonMode = "rclpy-events"
	// PythonAforRclpy: the Python afor's ROS 2 part (asyncio_for_robotics.ros2,
	// a ThreadedSession and listen_reliable loops on uvloop) on rclpy.
	PythonAforRclpy PythonMode = "afor-rclpy"
)

// rclpyKinds maps the rclpy modes to the driver's executor argument.
var rclpyKinds = map[PythonMode]string{PythonRclpy: "single", PythonRclpyEvents: "events", PythonAforRclpy: "afor"}

// RclpyModules returns the modules the rclpy drivers import.
func RclpyModules() []string {
	return []string{"rclpy", "std_msgs.msg", "sensor_msgs.msg", "nav_msgs.msg"}
}

//go:embed testdata/rclpy_echo.py
var rclpyEcho string

// rclpyEnv is the environment of an rclpy driver: Fast DDS in domain, with
// LOCALHOST discovery as the Go rows use.
func rclpyEnv(domain int) []string {
	return append(os.Environ(), "RMW_IMPLEMENTATION=rmw_fastrtps_cpp", "ROS_DOMAIN_ID="+strconv.Itoa(domain),
		"ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST", "ROS_STATIC_PEERS=", "PYTHONUNBUFFERED=1")
}

// rclpyStartTimeout bounds an rclpy process's start and discovery (Python
// imports are slow on a loaded machine).
const rclpyStartTimeout = 90 * time.Second

// runEchoRclpy runs the echo in two rclpy processes (the world side, then
// the hello side, which measures) in mode, for d after warmup. Its CPU is
// the hello process's.
func runEchoRclpy(ctx context.Context, python string, mode PythonMode, d, warmup time.Duration) (r Result) {
	r = Result{Scenario: "echo", Transport: "python-" + string(mode), Mode: ModePython, Size: 0, // 64-byte messages; 0 as the other python rows
		Note: "rclpy " + rclpyKinds[mode] + " executor, two processes on Fast DDS; cpu: the hello process only"}
	if mode == PythonAforRclpy {
		r.Note = "Python afor 1.5.1 on rclpy (ThreadedSession, listen_reliable on uvloop), two processes on Fast DDS; cpu: the hello process only"
	}
	kind := rclpyKinds[mode]
	domain := ddsDomainBase + rand.IntN(ddsDomains)
	ns := rosNamespace()
	ctx, cancel := context.WithTimeout(ctx, d+warmup+2*rclpyStartTimeout)
	defer cancel()
	world := exec.Command(python, "-c", rclpyEcho, "world", kind, ns)
	world.Env = rclpyEnv(domain)
	stop, err := startReadyWithin(ctx, world, "rclpy world side", rclpyStartTimeout)
	if err != nil {
		r.Error, r.Failed = err.Error(), 1
		return r
	}
	defer func() {
		if err := stop(); err != nil && r.Error == "" {
			r.Error, r.Failed = err.Error(), 1
		}
	}()
	secs := func(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 3, 64) }
	hello := exec.CommandContext(ctx, python, "-c", rclpyEcho, "hello", kind, ns, secs(d), secs(warmup))
	hello.Env = rclpyEnv(domain)
	var stderr bytes.Buffer
	hello.Stderr = &stderr
	out, err := hello.Output()
	if err != nil {
		r.Error, r.Failed = fmt.Sprintf("rclpy hello side: %v: %s", err, lastLines(stderr.String(), 5)), 1
		return r
	}
	var rep PythonReport
	if err := json.Unmarshal(bytes.TrimSpace(out), &rep); err != nil {
		r.Error, r.Failed = fmt.Sprintf("rclpy driver output %q: %v", out, err), 1
		return r
	}
	r.finish(rep.Hops, time.Duration(rep.Seconds*float64(time.Second)), time.Duration(rep.CPUSeconds*float64(time.Second)))
	return r
}

// startReadyWithin is startReady with a longer wait for the "ready" line
// (an rclpy process imports for seconds, then discovers its peer).
func startReadyWithin(ctx context.Context, cmd *exec.Cmd, what string, wait time.Duration) (func() error, error) {
	stop, _, err := startReadyArgTimeout(ctx, cmd, what, wait)
	return stop, err
}
