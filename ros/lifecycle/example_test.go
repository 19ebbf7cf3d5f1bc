package lifecycle_test

import (
	"context"
	"fmt"
	"time"

	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/lifecycle"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
)

// A managed node whose configure handler refuses once, driven by another
// node as ros2 lifecycle set drives it; its lifecycle publisher publishes
// only while active.
func ExampleManage() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	net := ros.NewMemoryNetwork()
	node, err := ros.NewNode(ctx, "camera", ros.WithMiddleware(ros.Memory(net)))
	if err != nil {
		panic(err)
	}
	tries := 0
	lc, err := lifecycle.Manage(node,
		lifecycle.OnConfigure(func(ctx context.Context, from lifecycle.State) error {
			if tries++; tries == 1 {
				return fmt.Errorf("%w: no device yet", lifecycle.ErrFailure)
			}
			return nil
		}),
		lifecycle.OnActivate(func(ctx context.Context, from lifecycle.State) error {
			fmt.Println("streaming from", from.Label)
			return nil
		}))
	if err != nil {
		panic(err)
	}
	defer lc.Close()
	status, err := lifecycle.NewPublisher[std_msgs.String](lc, "status", ros.QoSDefault)
	if err != nil {
		panic(err)
	}
	fmt.Println("publishing:", status.IsActivated())

	tool, err := ros.NewNode(ctx, "manager", ros.WithMiddleware(ros.Memory(net)))
	if err != nil {
		panic(err)
	}
	defer tool.Close()
	c, err := lifecycle.NewClient(tool, "/camera")
	if err != nil {
		panic(err)
	}
	if err := c.WaitReady(ctx); err != nil {
		panic(err)
	}
	fmt.Println(c.ChangeState(ctx, lifecycle.Configure))
	fmt.Println(c.ChangeState(ctx, lifecycle.Configure))
	fmt.Println(c.ChangeState(ctx, lifecycle.Activate))
	s, _ := c.State(ctx)
	fmt.Println(s.Label, "publishing:", status.IsActivated())
	// Output:
	// publishing: false
	// lifecycle: transition rejected: "configure" of /camera
	// <nil>
	// streaming from inactive
	// <nil>
	// active publishing: true
}
