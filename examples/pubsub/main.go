// Command pubsub shows afor's five ways to consume a topic, on the in-memory
// bus: a "robot" publishes its pose at 20 Hz and the main goroutine waits,
// listens and reads reliably.
//
//	go run ./examples/pubsub
package main

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/transport/mem"
)

// Pose is the message of this example; any Go type works on the mem bus.
type Pose struct {
	X, Y  float64
	Stamp time.Time
}

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := run(ctx); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context) error {
	bus := mem.NewBus()
	defer bus.Close()

	// Subscribe before the robot starts: wildcards work as in Zenoh.
	poses, err := mem.Subscribe[Pose](bus, "robot/*/pose")
	if err != nil {
		return err
	}
	robotCtx, stopRobot := context.WithCancel(ctx)
	defer stopRobot()
	go robot(robotCtx, bus)

	first, err := poses.WaitForValue(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("first pose: x=%.2f\n", first.X)

	next, err := poses.WaitForNext(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("next pose:  x=%.2f (%.0f ms later)\n", next.X, next.Stamp.Sub(first.Stamp).Seconds()*1000)

	// Listen yields the latest pose: a slow body skips what it missed.
	n := 0
	for p := range poses.Listen(ctx) {
		fmt.Printf("latest:     x=%.2f\n", p.X)
		time.Sleep(120 * time.Millisecond) // slower than the 50 ms period
		if n++; n == 3 {
			break
		}
	}

	// ListenReliable yields every pose in order (up to its queue size).
	n = 0
	for p := range poses.ListenReliable(ctx, afor.Fresh()) {
		fmt.Printf("reliable:   x=%.2f\n", p.X)
		if n++; n == 3 {
			break
		}
	}
	fmt.Printf("dropped by the slow Listen: %d\n", poses.Stats().Dropped)
	return nil
}

// robot publishes a pose at 20 Hz until ctx ends.
func robot(ctx context.Context, bus *mem.Bus) {
	pub, err := mem.NewPublisher[Pose](bus, "robot/r1/pose")
	if err != nil {
		panic(err)
	}
	rate, err := afor.NewRate(20)
	if err != nil {
		panic(err)
	}
	defer rate.Close()
	x := 0.0
	for tick := range rate.ListenReliable(ctx) {
		x += 0.1
		pub.Publish(Pose{X: x, Stamp: tick})
	}
}
