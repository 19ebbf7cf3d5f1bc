package ros_test

import (
	"context"
	"fmt"
	"time"

	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/example_interfaces"
)

// An action server computing Fibonacci sequences, and a client that sends
// it a goal, follows its feedback and waits for the result.
func ExampleNewActionServer() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rc, err := ros.Open(ctx, ros.WithMiddleware(ros.Memory(ros.NewMemoryNetwork())))
	if err != nil {
		panic(err)
	}
	defer rc.Close()
	node, err := rc.NewNode("fibonacci_node")
	if err != nil {
		panic(err)
	}

	srv, err := ros.NewActionServer(node, "fibonacci", example_interfaces.Fibonacci{})
	if err != nil {
		panic(err)
	}
	go func() {
		for g := range srv.ListenReliable(ctx) {
			if g.Goal.Order < 0 {
				g.Reject()
				continue
			}
			if err := g.Accept(); err != nil {
				continue
			}
			go func() {
				seq := []int32{0, 1}
				for i := 1; i < int(g.Goal.Order); i++ {
					if g.Context().Err() != nil { // a cancel request
						g.Canceled(example_interfaces.FibonacciResult{Sequence: seq})
						return
					}
					seq = append(seq, seq[i]+seq[i-1])
					g.PublishFeedback(ctx, example_interfaces.FibonacciFeedback{Sequence: seq})
				}
				g.Succeed(example_interfaces.FibonacciResult{Sequence: seq})
			}()
		}
	}()

	client, err := ros.NewActionClient(node, "fibonacci", example_interfaces.Fibonacci{})
	if err != nil {
		panic(err)
	}
	if err := client.WaitForServer(ctx); err != nil {
		panic(err)
	}
	goal, err := client.SendGoal(ctx, example_interfaces.FibonacciGoal{Order: 6})
	if err != nil {
		panic(err)
	}
	status, result, err := goal.Result(ctx)
	if err != nil {
		panic(err)
	}
	last, _ := goal.Feedback().Value()
	fmt.Println(status, result.Sequence, "last feedback", last.Sequence)
	// Output: succeeded [0 1 1 2 3 5 8] last feedback [0 1 1 2 3 5 8]
}
