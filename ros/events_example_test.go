package ros_test

import (
	"context"
	"fmt"
	"time"

	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
)

// A subscription that expects a message every 100 ms: its events tell when
// the publisher went quiet, and which publishers it hears.
func ExampleSubscriptionEventsOf() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	net := ros.NewMemoryNetwork()
	node, err := ros.NewNode(ctx, "monitor", ros.WithMiddleware(ros.Memory(net)))
	if err != nil {
		panic(err)
	}
	defer node.Close()
	q := ros.QoSDefault.WithDeadline(100 * time.Millisecond)
	sub, err := ros.Subscribe[std_msgs.String](node, "heartbeat", q)
	if err != nil {
		panic(err)
	}
	ev, _ := ros.SubscriptionEventsOf(node, sub)
	pub, err := ros.NewPublisher[std_msgs.String](node, "heartbeat", q)
	if err != nil {
		panic(err)
	}
	m, _ := ev.Matched.WaitForValue(ctx)
	fmt.Println("publishers matched:", m.CurrentCount)
	_ = pub.Publish(ctx, &std_msgs.String{Data: "beat"}) // then nothing more
	missed, err := ev.DeadlineMissed.WaitForNext(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(missed.Topic, "deadline missed:", missed.TotalCount)
	// Output:
	// publishers matched: 1
	// /heartbeat deadline missed: 1
}
