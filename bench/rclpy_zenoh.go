package main

import (
	"context"
	"os"
	"slices"
	"time"

	"github.com/afor-go/afor/bench/internal/scenario"
)

// rclpyZenohRows plans the echo rows of rclpy on a real rmw_zenoh_cpp: in
// two processes next to ros-zenoh-proc's (afor's ROS 2 over rmw_zenoh's
// conventions between two processes) when ros-zenoh-proc is among trs, in
// one process and one node next to ros-zenoh's (one ROS context) when
// ros-zenoh is; only when $AFOR_RMW_ZENOH_PYTHON names a launcher of
// Python with rclpy on rmw_zenoh_cpp (built by hand; nothing is asked of
// CI). The Rust router they need runs with cfg.Python.
func rclpyZenohRows(cfg Config, trs []scenario.Transport) []row {
	launcher := os.Getenv(scenario.EnvRMWZenohPython)
	if launcher == "" {
		return nil
	}
	var modes []scenario.PythonMode
	if slices.ContainsFunc(trs, func(t scenario.Transport) bool { return t.Name == scenario.ROSZenohProc().Name }) {
		modes = append(modes, scenario.RclpyZenohModes()...)
	}
	if slices.ContainsFunc(trs, func(t scenario.Transport) bool { return t.Name == scenario.ROSZenoh().Name }) {
		modes = append(modes, scenario.RclpyZenoh1PModes()...)
	}
	var rows []row
	for _, m := range modes {
		rows = append(rows, row{"echo/python-" + string(m) + "/python", func(ctx context.Context, _ scenario.Progress) scenario.Result {
			r, _ := scenario.RunEchoRclpyZenoh(ctx, launcher, cfg.Python, m, cfg.Duration, time.Second)
			return r
		}})
	}
	return rows
}
