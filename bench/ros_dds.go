package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/afor-go/afor/bench/internal/scenario"
)

// rclpyDDSEchoRows plans the rclpy echo rows on Fast DDS: next to
// ros-dds-proc's (afor's ROS 2 over DDS between two processes), beyond the
// one pythonRows plans from its Transport.Python (rclpy on a
// SingleThreadedExecutor), rclpy on the EventsExecutor and the Python afor
// on rclpy; next to ros-dds's (one ROS context), the same three in one
// process and one node (scenario.Rclpy1PModes).
func rclpyDDSEchoRows(cfg Config, rep *Report, trs []scenario.Transport) []row {
	var modes []scenario.PythonMode
	if slices.ContainsFunc(trs, func(t scenario.Transport) bool { return t.Name == scenario.ROSDDSProc().Name }) {
		modes = append(modes, scenario.PythonRclpyEvents, scenario.PythonAforRclpy)
	}
	if slices.ContainsFunc(trs, func(t scenario.Transport) bool { return t.Name == scenario.ROSDDS().Name }) {
		modes = append(modes, scenario.Rclpy1PModes()...)
	}
	if len(modes) == 0 {
		return nil
	}
	if err := checkRclpy(cfg.Python); err != nil {
		rep.warn("echo/python-rclpy*", "skipped", fmt.Sprintf("rclpy unavailable (%v); install with .ci/setup-peers, or set -python", err))
		return nil
	}
	var rows []row
	for _, m := range modes {
		rows = append(rows, row{"echo/python-" + string(m) + "/python", func(ctx context.Context, _ scenario.Progress) scenario.Result {
			r, _ := scenario.RunEchoPython(ctx, cfg.Python, m, cfg.Duration, time.Second)
			return r
		}})
	}
	return rows
}

// rosDDSPipelineRows plans the pipeline as ROS 2 nodes over DDS when
// ros-dds-proc is among trs: the Go nodes (mode afor), and the same nodes
// in rclpy on a SingleThreadedExecutor and on the EventsExecutor (mode
// python).
func rosDDSPipelineRows(cfg Config, rep *Report, trs []scenario.Transport, has func(string) bool) []row {
	if !slices.ContainsFunc(trs, func(t scenario.Transport) bool { return t.Name == scenario.ROSDDSProc().Name }) {
		return nil
	}
	var flavours []string
	if has(string(scenario.ModeAfor)) {
		flavours = append(flavours, scenario.PipelineROSDDS)
	}
	if has(string(scenario.ModePython)) {
		if err := checkRclpy(cfg.Python); err != nil {
			rep.warn("pipeline/rclpy*", "skipped", fmt.Sprintf("rclpy unavailable (%v); install with .ci/setup-peers, or set -python", err))
		} else {
			flavours = append(flavours, scenario.PipelineRclpy, scenario.PipelineRclpyEvents)
		}
	}
	var rows []row
	add := func(tr string, mode scenario.Mode, pc scenario.PipelineConfig) {
		rows = append(rows, row{fmt.Sprintf("pipeline/%s/%s/%dB", tr, mode, scenario.ImageWidth*scenario.ImageHeight),
			func(ctx context.Context, p scenario.Progress) scenario.Result {
				pc := pc
				pc.Progress = p
				return scenario.RunPipeline(ctx, pc)
			}})
	}
	for _, f := range flavours {
		pc := scenario.PipelineConfig{ROS: f, Python: cfg.Python, Warmup: cfg.PipeWarmup, Window: cfg.CPUWindow, NodeProcs: cfg.NodeProcs}
		if f != scenario.PipelineROSDDS {
			add(f, scenario.ModePython, pc)
			continue
		}
		add(scenario.PipelineTransportROSDDS, scenario.ModeAfor, pc)
		if cfg.NodeProcs == 0 { // the same nodes with GOMAXPROCS 1, in a row of their own
			pc.OneProcRow = true
			add(scenario.PipelineTransportROSDDSOneProc, scenario.ModeAfor, pc)
		}
	}
	return rows
}

// checkRclpy reports whether python can import rclpy and the messages the
// drivers use.
func checkRclpy(python string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return scenario.CheckPythonModules(ctx, python, scenario.RclpyModules()...)
}

// wantsNetns reports whether the command line selects a ROS 2 over DDS
// transport (ros-dds, ros-dds-udp, ros-dds-proc; every transport by
// default): the run
// then enters a loopback-only network namespace first (internal/netns), as
// the DDS and ROS tests do, so that Fast DDS and the Go participants can
// neither leak onto nor pick up anything from a real network.
func wantsNetns(args []string) bool {
	cfg, err := parseFlags(args, io.Discard)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(cfg.Transports, func(t string) bool { return strings.HasPrefix(t, "ros-dds") })
}
