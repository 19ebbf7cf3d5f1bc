package tf2

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/afor-go/afor/ros/msgs/geometry_msgs"
)

// WaitForTransform is [Buffer.LookupTransform] that waits, until ctx ends,
// for a transform the buffer cannot give yet: a frame not received yet, or
// data not up to time t. It wakes on each change of the buffer and returns
// as soon as the transform that completes the chain arrives (tf2_ros's
// canTransform with a timeout, without its polling). Invalid arguments fail
// at once. When ctx ends first, the error matches ctx's error and the last
// lookup error (ErrLookup, ErrExtrapolation, ...).
func (b *Buffer) WaitForTransform(ctx context.Context, target, source string, t time.Time) (geometry_msgs.TransformStamped, error) {
	return b.wait(ctx, func() (geometry_msgs.TransformStamped, error) { return b.LookupTransform(target, source, t) },
		func() string { return fmt.Sprintf("from %q to %q at %s", source, target, timeText(t)) })
}

// WaitForTransformFull is [Buffer.LookupTransformFull] that waits as
// [Buffer.WaitForTransform] does.
func (b *Buffer) WaitForTransformFull(ctx context.Context, target string, targetTime time.Time, source string, sourceTime time.Time, fixed string) (geometry_msgs.TransformStamped, error) {
	return b.wait(ctx, func() (geometry_msgs.TransformStamped, error) {
		return b.LookupTransformFull(target, targetTime, source, sourceTime, fixed)
	}, func() string {
		return fmt.Sprintf("from %q at %s to %q at %s through %q", source, timeText(sourceTime), target, timeText(targetTime), fixed)
	})
}

// timeText is a lookup time in an error message.
func timeText(t time.Time) string {
	if s := stampOf(t); s != 0 {
		return secs(s)
	}
	return "the latest time"
}

func (b *Buffer) wait(ctx context.Context, lookup func() (geometry_msgs.TransformStamped, error), what func() string) (geometry_msgs.TransformStamped, error) {
	if err := ctx.Err(); err != nil {
		return geometry_msgs.TransformStamped{}, err
	}
	for {
		changed := b.changedChan() // before the lookup: a change after it closes this channel
		ts, err := lookup()
		if err == nil || errors.Is(err, ErrInvalidArgument) {
			return ts, err
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return geometry_msgs.TransformStamped{}, fmt.Errorf("tf2: waiting for the transform %s: %w; last: %w", what(), context.Cause(ctx), err)
		}
	}
}
