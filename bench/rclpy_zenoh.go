package main

import (
	"context"
	"os"
	"slices"
	"time"

	"github.com/afor-go/afor/bench/internal/scenario"
)

// rclpyZenohRows plans the echo rows of rclpy on a real rmw_zenoh_cpp, next
// to ros-zenoh-proc's (afor's ROS 2 over rmw_zenoh's conventions between
// two processes): only when ros-zenoh-proc is among trs and
// $AFOR_RMW_ZENOH_PYTHON names a launcher of Python with rclpy on
// rmw_zenoh_cpp (built by hand; nothing is asked of CI). The Rust router
// they need runs with cfg.Python.
func rclpyZenohRows(cfg Config, trs []scenario.Transport) []row {
	launcher := os.Getenv(scenario.EnvRMWZenohPython)
	if launcher == "" || !slices.ContainsFunc(trs, func(t scenario.Transport) bool { return t.Name == scenario.ROSZenohProc().Name }) {
		return nil
	}
	var rows []row
	for _, m := range scenario.RclpyZenohModes() {
		rows = append(rows, row{"echo/python-" + string(m) + "/python", func(ctx context.Context, _ scenario.Progress) scenario.Result {
			r, _ := scenario.RunEchoRclpyZenoh(ctx, launcher, cfg.Python, m, cfg.Duration, time.Second)
			return r
		}})
	}
	return rows
}
