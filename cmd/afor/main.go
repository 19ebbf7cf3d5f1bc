// Command afor is one static binary for ROS 2 and Zenoh systems, with no
// ROS install: what `ros2 topic|node|service|action|param|interface` and
// the Zenoh examples (z_put, z_sub, z_get, z_liveliness, z_scout) do, in
// pure Go.
//
//	go install ./cmd/afor   # in a clone of the repository
//
// (go install github.com/afor-go/afor/cmd/afor@latest once the module is
// published.)
//
// ROS 2 commands run over DDS, as ROS 2 does by default, or over Zenoh
// with rmw_zenoh's conventions (--rmw rmw_zenoh_cpp or
// RMW_IMPLEMENTATION); the domain comes from ROS_DOMAIN_ID. Messages of
// any type are decoded and encoded from their definitions: the types
// shipped with afor, the share folders of AMENT_PREFIX_PATH when a ROS
// install is there, and any --interfaces DIR.
//
//	afor topic list -t
//	afor topic echo /chatter --once
//	afor topic pub /chatter std_msgs/msg/String "{data: hello}" --rate 10
//	afor topic hz /scan
//	afor service call /set_flag std_srvs/srv/SetBool "{data: true}"
//	afor action send_goal /fibonacci example_interfaces/action/Fibonacci "{order: 5}" --feedback
//	afor param get /talker use_sim_time
//	afor zenoh sub 'demo/**'
//
// Every command has -h. Long commands (echo, hz, bw, pub, zenoh sub) stop
// cleanly on Ctrl-C.
package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/afor-go/afor/cmd/afor/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, cli.Env{
		Stdout: os.Stdout,
		Stderr: os.Stderr,
		Getenv: os.Getenv,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})),
	}, os.Args[1:])
	stop()
	os.Exit(code)
}
