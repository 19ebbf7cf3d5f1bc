package ros_test

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/rcl_interfaces"
)

// Logging to /rosout: a slog.Logger on the node's RosoutHandler publishes
// every record as rcl_interfaces/msg/Log, which ros2 topic echo /rosout and
// rqt_console show.
func ExampleNode_RosoutHandler() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	net := ros.NewMemoryNetwork()
	console, err := ros.NewNode(ctx, "console", ros.WithMiddleware(ros.Memory(net)), ros.WithRosout(false))
	if err != nil {
		panic(err)
	}
	defer console.Close()
	logs, err := ros.Subscribe[rcl_interfaces.Log](console, "/rosout", ros.QoSRosout)
	if err != nil {
		panic(err)
	}
	next := logs.ArmNext(ctx)

	node, err := ros.NewNode(ctx, "planner", ros.WithMiddleware(ros.Memory(net)), ros.WithNamespace("/robot1"))
	if err != nil {
		panic(err)
	}
	defer node.Close()
	log := slog.New(node.RosoutHandler(slog.LevelInfo))
	log.Warn("path blocked", "x", 3, "y", 4)

	rec, err := next.Wait(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(rec.Level, rec.Name, rec.Msg)
	// Output: 30 robot1.planner path blocked x=3 y=4
}
