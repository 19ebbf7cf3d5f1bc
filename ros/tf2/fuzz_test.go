package tf2_test

import (
	"errors"
	"testing"
	"time"

	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/msgs/geometry_msgs"
	"github.com/afor-go/afor/ros/msgs/tf2_msgs"
	"github.com/afor-go/afor/ros/tf2"
)

// FuzzBuffer feeds the buffer what a listener would: a TFMessage decoded
// from arbitrary bytes, stored as dynamic or static transforms, then looks
// up between every pair of its frames and lists them. Nothing may panic;
// every error must match one of tf2's sentinels; the decoder errors are
// cdr's.
func FuzzBuffer(f *testing.F) {
	for _, m := range []tf2_msgs.TFMessage{
		{Transforms: []geometry_msgs.TransformStamped{tr("map", "odom", 0, 1, 2, 0, 0.5), tr("odom", "base", time.Second, 0, 1, 0, 1)}},
		{Transforms: []geometry_msgs.TransformStamped{tr("a", "b", 0, 1, 0, 0, 0), tr("b", "a", 0, 1, 0, 0, 0), tr("b", "b", 0, 0, 0, 0, 0)}},
		{Transforms: []geometry_msgs.TransformStamped{tr("/map", "", 0, 0, 0, 0, 0), {ChildFrameID: "x"}}},
	} {
		b, err := m.AppendCDR(nil)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, false)
		f.Add(b, true)
	}
	sentinels := []error{tf2.ErrLookup, tf2.ErrConnectivity, tf2.ErrExtrapolation, tf2.ErrInvalidArgument}
	f.Fuzz(func(t *testing.T, data []byte, static bool) {
		var m tf2_msgs.TFMessage
		if err := m.UnmarshalCDR(data); err != nil {
			if !errors.Is(err, cdr.ErrTruncated) && !errors.Is(err, cdr.ErrInvalid) && !errors.Is(err, cdr.ErrBoundExceeded) {
				t.Fatalf("decode: %v", err)
			}
			return
		}
		b := tf2.NewBuffer()
		check := func(what string, err error) {
			if err == nil {
				return
			}
			for _, s := range sentinels {
				if errors.Is(err, s) {
					return
				}
			}
			t.Fatalf("%s: %v matches no tf2 error", what, err)
		}
		check("SetTransforms", b.SetTransforms(m.Transforms, "fuzz", static))
		check("SetTransforms again", b.SetTransforms(m.Transforms, "fuzz", !static))
		frames := b.FrameIDs()
		if len(frames) > 8 {
			frames = frames[:8]
		}
		times := []time.Time{tf2.Latest, time.Unix(0, 1)}
		if len(m.Transforms) > 0 {
			times = append(times, tf2.StampTime(m.Transforms[0].Header.Stamp))
		}
		for _, a := range frames {
			for _, c := range frames {
				for _, tm := range times {
					_, err := b.LookupTransform(a, c, tm)
					check("LookupTransform", err)
					_, err = b.LookupTransformFull(a, tm, c, tf2.Latest, frames[0])
					check("LookupTransformFull", err)
				}
			}
			_, err := b.Parent(a, tf2.Latest)
			check("Parent", err)
		}
		_ = b.AllFramesAsYAML(time.Unix(1, 0))
		_ = b.AllFramesAsDot(time.Unix(1, 0))
		_ = b.AllFramesAsString()
	})
}
