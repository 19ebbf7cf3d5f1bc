package scenario

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

// PythonMode selects the Python afor's echo variant.
type PythonMode string

// The Python echo variants.
const (
	// PythonInproc: two plain BaseSub fed with input_data by two tasks, no
	// transport (the library's "no backend" row).
	PythonInproc PythonMode = "inproc"
	// PythonZenoh: afor zenoh Subs and publishers in one Zenoh session.
	PythonZenoh PythonMode = "zenoh"
	// PythonZenohProc: the two halves in two Python processes, one Zenoh
	// session each, linked over TCP on 127.0.0.1 (the library's
	// --hello/--world split).
	PythonZenohProc PythonMode = "zenoh-proc"
)

// PythonModules returns the modules the Python driver imports.
func PythonModules() []string { return []string{"asyncio_for_robotics", "uvloop", "zenoh"} }

//go:embed testdata/py_echo.py
var pyEcho string

// PythonReport is what the driver prints.
type PythonReport struct {
	Hops       int64   `json:"hops,omitempty"`
	Seconds    float64 `json:"seconds,omitempty"`
	CPUSeconds float64 `json:"cpu_seconds,omitempty"`
	Mode       string  `json:"mode,omitempty"`
	Python     string  `json:"python"`
	Afor       string  `json:"asyncio_for_robotics"`
	Zenoh      string  `json:"eclipse_zenoh"`
	Uvloop     string  `json:"uvloop"`
}

// CheckPython reports whether python can import every module the driver
// needs, with the interpreter's own message when it cannot.
func CheckPython(ctx context.Context, python string) error {
	return CheckPythonModules(ctx, python, PythonModules()...)
}

// CheckPythonModules reports whether python can import modules, with the
// interpreter's own message when it cannot.
func CheckPythonModules(ctx context.Context, python string, modules ...string) error {
	if python == "" {
		return fmt.Errorf("%w: no Python interpreter", ErrUnsupported)
	}
	src := "import " + strings.Join(modules, ", ")
	out, err := exec.CommandContext(ctx, python, "-c", src).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w: %s -c %q: %v: %s", ErrUnsupported, python, src, err, bytes.TrimSpace(out))
	}
	return nil
}

// RunEchoPython runs the Python afor's echo (the driver script embedded in
// this package) with interpreter python for d after warmup, and reports its
// hops like RunEcho does. Its CPU is the interpreter's own.
func RunEchoPython(ctx context.Context, python string, mode PythonMode, d, warmup time.Duration) (r Result, rep *PythonReport) {
	if _, ok := rclpyKinds[mode]; ok { // rclpy's own echo (ros_dds_python.go)
		return runEchoRclpy(ctx, python, mode, d, warmup), nil
	}
	if slices.Contains(Rclpy1PModes(), mode) { // the same in one process (rclpy_one.go)
		r, _ := runEchoRclpy1P(ctx, python, mode, d, warmup)
		return r, nil
	}
	r = Result{Scenario: "echo", Transport: "python-" + string(mode), Mode: ModePython, Size: 0,
		Note: "Python afor on uvloop, ASCII counters"}
	if mode == PythonInproc {
		r.Note = "Python afor BaseSub pair on uvloop, int counters"
	}
	ctx, cancel := context.WithTimeout(ctx, d+warmup+30*time.Second)
	defer cancel()
	secs := func(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 3, 64) }
	args := []string{"-c", pyEcho, string(mode), secs(d), secs(warmup)}
	if mode == PythonZenohProc {
		r.Note = "Python afor on uvloop, ASCII counters, two processes"
		// The world side listens on port 0 and says which port it got.
		world := exec.Command(python, "-c", pyEcho, "world", "0", "0", "0")
		stop, port, err := startReadyArg(ctx, world, "python world side")
		if err != nil {
			r.Error, r.Failed = err.Error(), 1
			return r, nil
		}
		defer func() {
			if err := stop(); err != nil && r.Error == "" {
				r.Error, r.Failed = err.Error(), 1
			}
		}()
		args = []string{"-c", pyEcho, "hello", secs(d), secs(warmup), port}
	}
	cmd := exec.CommandContext(ctx, python, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		r.Error = fmt.Sprintf("%v: %s", err, lastLines(stderr.String(), 5))
		r.Failed = 1
		return r, nil
	}
	rep = &PythonReport{}
	if err := json.Unmarshal(bytes.TrimSpace(out), rep); err != nil {
		r.Error = fmt.Sprintf("python driver output %q: %v", out, err)
		r.Failed = 1
		return r, nil
	}
	elapsed := time.Duration(rep.Seconds * float64(time.Second))
	r.finish(rep.Hops, elapsed, time.Duration(rep.CPUSeconds*float64(time.Second)))
	if mode == PythonZenohProc {
		r.Note += "; cpu: the hello process only"
	}
	return r, rep
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], " | ")
}

// GoTransport names the transport whose afor echo row the echo row of m is
// compared with (the report's python/afor column), "" for none: Go afor in
// the same layout, one process or two.
func (m PythonMode) GoTransport() string {
	switch m {
	case PythonInproc:
		return Mem().Name
	case PythonZenoh:
		return Zenoh().Name
	case PythonZenohProc:
		return ZenohProc().Name
	case PythonRclpy, PythonRclpyEvents, PythonAforRclpy:
		return ROSDDSProc().Name
	case PythonRclpy1P, PythonRclpyEvents1P, PythonAforRclpy1P:
		return ROSDDS().Name
	case PythonPlainRclpyZenoh, PythonRclpyZenoh:
		return ROSZenohProc().Name
	case PythonRclpyZenoh1P, PythonRclpyEventsZenoh1P, PythonAforRclpyZenoh1P:
		return ROSZenoh().Name
	}
	return ""
}
