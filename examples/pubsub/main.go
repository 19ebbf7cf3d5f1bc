// Command pubsub shows afor's five ways to consume a topic, on the in-memory
// bus: a "robot" publishes its pose at 20 Hz and the main goroutine waits
// for a value three ways (WaitForValue, WaitForNew, WaitForNext), then
// loops over the poses two ways (Listen, ListenReliable).
//
//	go run ./examples/pubsub
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
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
	if err := run(ctx, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, out io.Writer) error {
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

	// 1. WaitForValue: the latest pose at once if there is one, else the
	// first to arrive.
	first, err := poses.WaitForValue(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "WaitForValue:   x=%.2f\n", first.X)

	// 2. WaitForNew: the newest pose received after the call (after a
	// pause, still only one: the newest).
	time.Sleep(120 * time.Millisecond)
	newest, err := poses.WaitForNew(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "WaitForNew:     x=%.2f\n", newest.X)

	// 3. WaitForNext: exactly the first pose received after the call.
	next, err := poses.WaitForNext(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "WaitForNext:    x=%.2f (%.0f ms after the previous)\n", next.X, next.Stamp.Sub(newest.Stamp).Seconds()*1000)

	// 4. Listen yields the latest pose: a slow body skips what it missed.
	// Fresh: start with the next pose, not the one already seen above
	// (without it, a loop starts with the latest value the sub holds).
	n := 0
	for p := range poses.Listen(ctx, afor.Fresh()) {
		fmt.Fprintf(out, "Listen:         x=%.2f\n", p.X)
		time.Sleep(120 * time.Millisecond) // slower than the 50 ms period
		if n++; n == 3 {
			break
		}
	}
	fmt.Fprintf(out, "skipped by the slow Listen: %d\n", poses.Stats().Dropped)

	// 5. ListenReliable yields every pose in order (up to its queue size,
	// 10 by default), however slow the body.
	n = 0
	for p := range poses.ListenReliable(ctx, afor.Fresh()) {
		fmt.Fprintf(out, "ListenReliable: x=%.2f\n", p.X)
		time.Sleep(70 * time.Millisecond)
		if n++; n == 3 {
			break
		}
	}
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
