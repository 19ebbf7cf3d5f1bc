package ros_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/afor-go/afor/ros"
)

// Parameters: declared with a default that "-p" overrides, limited to a
// range, guarded by a callback, and changed from another node through the
// parameter services, as ros2 param does.
func ExampleNode_DeclareParameter() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	net := ros.NewMemoryNetwork()
	node, err := ros.NewNode(ctx, "driver", ros.WithMiddleware(ros.Memory(net)),
		ros.WithArgs([]string{"--ros-args", "-p", "max_speed:=1.5"}))
	if err != nil {
		panic(err)
	}
	defer node.Close()
	speed, err := node.DeclareParameter("max_speed", 1.0, ros.ParamDescription("m/s"), ros.ParamFloatRange(0, 3, 0))
	if err != nil {
		panic(err)
	}
	fmt.Println("max_speed:", speed)
	node.OnSetParameters(func(ps []ros.Parameter) error {
		for _, p := range ps {
			if p.Name == "max_speed" && p.Value.(float64) > 2 {
				return errors.New("too fast for indoors")
			}
		}
		return nil
	})

	tool, err := ros.NewNode(ctx, "tool", ros.WithMiddleware(ros.Memory(net)))
	if err != nil {
		panic(err)
	}
	defer tool.Close()
	pc, err := ros.NewParameterClient(tool, "/driver")
	if err != nil {
		panic(err)
	}
	if err := pc.WaitReady(ctx); err != nil {
		panic(err)
	}
	results, err := pc.Set(ctx, ros.Parameter{Name: "max_speed", Value: 2.0}, ros.Parameter{Name: "max_speed", Value: 2.5})
	if err != nil {
		panic(err)
	}
	fmt.Println(results[0], "/", results[1])
	now, _ := ros.GetParameter[float64](node, "max_speed")
	fmt.Println("max_speed:", now)
	// Output:
	// max_speed: 1.5
	// <nil> / ros: parameter value rejected: too fast for indoors
	// max_speed: 2
}
