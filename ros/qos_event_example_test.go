package ros_test

import (
	"context"
	"fmt"

	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
)

// A node learns that a publisher and one of its subscriptions cannot talk
// (over DDS: a TRANSIENT_LOCAL subscription of a VOLATILE publisher, a
// RELIABLE one of a BEST_EFFORT publisher...). The warning rcl prints is
// logged anyway; the callback lets the program act on it.
func ExampleNode_OnIncompatibleQoS() {
	ctx := context.Background()
	node, err := ros.NewNode(ctx, "watcher", ros.WithMiddleware(ros.Memory(ros.NewMemoryNetwork())))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer node.Close()
	remove := node.OnIncompatibleQoS(func(e ros.IncompatibleQoSEvent) {
		fmt.Println(e.Topic, e.Kind, "incompatible:", e.LastPolicy) // e.g. /latched subscription incompatible: DURABILITY
	})
	defer remove()
	latched, err := ros.Subscribe[std_msgs.String](node, "latched", ros.QoSTransientLocal(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer latched.Close()
	fmt.Println("subscribed")
	// Output: subscribed
}
