// Package topictest is an example of asserting on topic traffic in a go test
// suite: the "node" under test (Doubler) subscribes to "in" and publishes
// twice the value on "out"; robot_test.go checks it with package afortest.
package topictest

import (
	"context"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/transport/mem"
)

// Doubler republishes every value of "in" doubled on "out" until ctx ends.
func Doubler(ctx context.Context, bus *mem.Bus) error {
	in, err := mem.Subscribe[int](bus, "in")
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := mem.NewPublisher[int](bus, "out")
	if err != nil {
		return err
	}
	for v := range in.ListenReliable(ctx, afor.Fresh()) {
		out.Publish(2 * v)
	}
	return nil
}
