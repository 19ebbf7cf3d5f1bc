package tf2_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/afor-go/afor/ros/msgs/builtin_interfaces"
	"github.com/afor-go/afor/ros/msgs/geometry_msgs"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/ros/tf2"
)

// at is t0 + d as a lookup time.
var t0 = time.Unix(1_700_000_000, 0)

func at(d time.Duration) time.Time { return t0.Add(d) }

// tr builds a transform of child in parent at t0+d.
func tr(parent, child string, d time.Duration, x, y, z, yaw float64) geometry_msgs.TransformStamped {
	return geometry_msgs.TransformStamped{
		Header:       std_msgs.Header{FrameID: parent, Stamp: tf2.TimeStamp(at(d))},
		ChildFrameID: child,
		Transform: geometry_msgs.Transform{
			Translation: geometry_msgs.Vector3{X: x, Y: y, Z: z},
			Rotation:    tf2.QuaternionFromRPY(0, 0, yaw),
		},
	}
}

func mustSet(t *testing.T, b *tf2.Buffer, static bool, ts ...geometry_msgs.TransformStamped) {
	t.Helper()
	for _, x := range ts {
		if err := b.SetTransform(x, "test", static); err != nil {
			t.Fatalf("SetTransform(%s->%s): %v", x.Header.FrameID, x.ChildFrameID, err)
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func checkXY(t *testing.T, got geometry_msgs.TransformStamped, x, y, yaw float64) {
	t.Helper()
	tt := got.Transform.Translation
	_, _, gy := tf2.RPY(got.Transform.Rotation)
	if !near(tt.X, x) || !near(tt.Y, y) || !near(tt.Z, 0) || !near(gy, yaw) {
		t.Errorf("got (%g, %g, %g) yaw %g, want (%g, %g, 0) yaw %g", tt.X, tt.Y, tt.Z, gy, x, y, yaw)
	}
}

// A chain map -> odom -> base_link -> laser, and a branch base_link ->
// camera: lookups up, down and across, at sample times and between them.
func TestLookupChain(t *testing.T) {
	b := tf2.NewBuffer()
	mustSet(t, b, false,
		tr("map", "odom", 0, 1, 0, 0, 0), tr("map", "odom", time.Second, 2, 0, 0, 0),
		tr("odom", "base_link", 0, 0, 0, 0, 0), tr("odom", "base_link", time.Second, 0, 1, 0, math.Pi/2),
	)
	mustSet(t, b, true, tr("base_link", "laser", 0, 0.5, 0, 0, 0), tr("base_link", "camera", 0, 0, 0.2, 0, math.Pi))

	// Up the tree, at a sample's time.
	got, err := b.LookupTransform("map", "base_link", at(0))
	if err != nil {
		t.Fatal(err)
	}
	checkXY(t, got, 1, 0, 0)
	if got.Header.FrameID != "map" || got.ChildFrameID != "base_link" || got.Header.Stamp != tf2.TimeStamp(at(0)) {
		t.Errorf("header %+v child %q", got.Header, got.ChildFrameID)
	}
	// Halfway: translations interpolated linearly, yaw by slerp.
	got, err = b.LookupTransform("map", "laser", at(500*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	// base_link at (1.5, 0.5) yaw π/4; laser 0.5 ahead of it.
	checkXY(t, got, 1.5+0.5*math.Cos(math.Pi/4), 0.5+0.5*math.Sin(math.Pi/4), math.Pi/4)
	// Down the tree: the inverse.
	inv, err := b.LookupTransform("laser", "map", at(500*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	back := tf2.Compose(got.Transform, inv.Transform)
	if !near(back.Translation.X, 0) || !near(back.Translation.Y, 0) || !near(math.Abs(back.Rotation.W), 1) {
		t.Errorf("a transform and its inverse compose to %+v", back)
	}
	// Across branches: camera (rotated π) seen from laser.
	got, err = b.LookupTransform("laser", "camera", at(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	checkXY(t, got, -0.5, 0.2, math.Pi)
	// Latest: the newest time both dynamic links have.
	got, err = b.LookupTransform("map", "camera", tf2.Latest)
	if err != nil {
		t.Fatal(err)
	}
	if got.Header.Stamp != tf2.TimeStamp(at(time.Second)) {
		t.Errorf("latest stamp %+v, want t0+1s", got.Header.Stamp)
	}
	// Statics only: time zero.
	got, err = b.LookupTransform("laser", "camera", tf2.Latest)
	if err != nil || got.Header.Stamp != (builtin_interfaces.Time{}) {
		t.Errorf("static-only latest: %+v, %v", got.Header.Stamp, err)
	}
	// Same frame: identity, even for a frame the buffer does not know.
	got, err = b.LookupTransform("nowhere", "nowhere", at(time.Hour))
	if err != nil || got.Transform.Rotation.W != 1 {
		t.Errorf("identity: %+v, %v", got, err)
	}
	if !b.CanTransform("map", "laser", at(time.Second)) || b.CanTransform("map", "laser", at(2*time.Second)) {
		t.Error("CanTransform disagrees with LookupTransform")
	}
}

// The latest common time counts only the links between the two frames and
// their common ancestor (tf2's getLatestCommonTime).
func TestLatestCommonTime(t *testing.T) {
	b := tf2.NewBuffer()
	mustSet(t, b, false,
		tr("world", "map", 0, 0, 0, 0, 0), // old: above the common ancestor
		tr("map", "a", 0, 1, 0, 0, 0), tr("map", "a", 2*time.Second, 3, 0, 0, 0),
		tr("map", "b", 0, 0, 1, 0, 0), tr("map", "b", time.Second, 0, 2, 0, 0),
		tr("a", "a1", 0, 0, 0, 0, 0), tr("a", "a1", 3*time.Second, 0, 0, 0, 0),
	)
	got, err := b.LookupTransform("b", "a1", tf2.Latest)
	if err != nil {
		t.Fatal(err)
	}
	if got.Header.Stamp != tf2.TimeStamp(at(time.Second)) {
		t.Errorf("stamp %v, want t0+1s", tf2.StampTime(got.Header.Stamp))
	}
	checkXY(t, got, 2, -2, 0) // a at x=2 (halfway), b at y=2
	// Target an ancestor of source: only the links in between count.
	got, err = b.LookupTransform("a", "a1", tf2.Latest)
	if err != nil || got.Header.Stamp != tf2.TimeStamp(at(3*time.Second)) {
		t.Errorf("a1 in a: %v, %v", tf2.StampTime(got.Header.Stamp), err)
	}
	got, err = b.LookupTransform("a1", "a", tf2.Latest)
	if err != nil || got.Header.Stamp != tf2.TimeStamp(at(3*time.Second)) {
		t.Errorf("a in a1: %v, %v", tf2.StampTime(got.Header.Stamp), err)
	}
	// Through world, which only has t0: t0.
	got, err = b.LookupTransform("world", "b", tf2.Latest)
	if err != nil || got.Header.Stamp != tf2.TimeStamp(at(0)) {
		t.Errorf("b in world: %v, %v", tf2.StampTime(got.Header.Stamp), err)
	}
}

func TestErrors(t *testing.T) {
	b := tf2.NewBuffer()
	mustSet(t, b, false, tr("map", "odom", time.Second, 0, 0, 0, 0), tr("map", "odom", 2*time.Second, 0, 0, 0, 0),
		tr("odom", "base", time.Second, 0, 0, 0, 0))
	mustSet(t, b, false, tr("island", "rock", 0, 0, 0, 0, 0))
	for _, c := range []struct {
		target, source string
		t              time.Time
		want           error
		says           []string
	}{
		{"map", "nowhere", tf2.Latest, tf2.ErrLookup, []string{`"nowhere"`, "source_frame", "does not exist"}},
		{"nowhere", "map", tf2.Latest, tf2.ErrLookup, []string{`"nowhere"`, "target_frame"}},
		{"map", "rock", tf2.Latest, tf2.ErrConnectivity, []string{`"map"`, `"rock"`, "not part of the same tree"}},
		{"map", "rock", at(0), tf2.ErrConnectivity, nil},
		{"map", "rock", at(time.Second), tf2.ErrNoData, []string{"from frame [rock] to frame [map]"}}, // as tf2: the walk from rock stopped short
		{"map", "odom", at(3 * time.Second), tf2.ErrExtrapolationFuture, []string{"into the future", "1700000003.000000", "1700000002.000000", "[odom] to frame [map]"}},
		{"map", "odom", at(0), tf2.ErrExtrapolationPast, []string{"into the past", "1700000000.000000", "1700000001.000000"}},
		{"map", "base", at(2 * time.Second), tf2.ErrNoData, []string{"only time 1700000001.000000"}},
		{"", "map", tf2.Latest, tf2.ErrInvalidArgument, []string{"empty"}},
		{"map", "/odom", tf2.Latest, tf2.ErrInvalidArgument, []string{"'/'"}},
	} {
		_, err := b.LookupTransform(c.target, c.source, c.t)
		if !errors.Is(err, c.want) {
			t.Errorf("%s <- %s: %v, want %v", c.target, c.source, err, c.want)
			continue
		}
		for _, s := range c.says {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s <- %s: %q does not say %q", c.target, c.source, err, s)
			}
		}
	}
	_, err := b.LookupTransform("map", "odom", at(3*time.Second))
	if !errors.Is(err, tf2.ErrExtrapolation) {
		t.Errorf("%v does not match ErrExtrapolation", err)
	}
	// The buffer works on.
	if _, err := b.LookupTransform("map", "base", at(time.Second)); err != nil {
		t.Error(err)
	}
}

// Bad input is refused with a clear error and changes nothing.
func TestBadInput(t *testing.T) {
	b := tf2.NewBuffer()
	mustSet(t, b, false, tr("map", "odom", 0, 1, 2, 0, 0.5))
	nan := tr("map", "odom", time.Second, math.NaN(), 0, 0, 0)
	inf := tr("map", "odom", time.Second, 0, math.Inf(1), 0, 0)
	zeroQ := tr("map", "odom", time.Second, 0, 0, 0, 0)
	zeroQ.Transform.Rotation = geometry_msgs.Quaternion{}
	nanQ := tr("map", "odom", time.Second, 0, 0, 0, 0)
	nanQ.Transform.Rotation.W = math.NaN()
	longQ := tr("map", "odom", time.Second, 0, 0, 0, 0)
	longQ.Transform.Rotation.W = 1.1
	for _, c := range []struct {
		name string
		ts   geometry_msgs.TransformStamped
		says string
	}{
		{"self parent", tr("odom", "odom", time.Second, 0, 0, 0, 0), "its own parent"},
		{"self parent with slash", tr("/odom", "odom", time.Second, 0, 0, 0, 0), "its own parent"},
		{"empty child", tr("map", "", time.Second, 0, 0, 0, 0), "child_frame_id is empty"},
		{"empty parent", tr("", "odom", time.Second, 0, 0, 0, 0), "frame_id is empty"},
		{"NaN translation", nan, "not finite"},
		{"infinite translation", inf, "not finite"},
		{"zero quaternion", zeroQ, "not a unit quaternion"},
		{"NaN quaternion", nanQ, "not finite"},
		{"long quaternion", longQ, "not a unit quaternion"},
	} {
		err := b.SetTransform(c.ts, "bad", false)
		if !errors.Is(err, tf2.ErrInvalidArgument) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want ErrInvalidArgument saying %q", c.name, err, c.says)
		}
	}
	got, err := b.LookupTransform("map", "odom", tf2.Latest)
	if err != nil {
		t.Fatal(err)
	}
	checkXY(t, got, 1, 2, 0.5)
	if _, err := b.LookupTransform("map", "odom", at(time.Second)); !errors.Is(err, tf2.ErrExtrapolation) {
		t.Errorf("a refused transform was stored: %v", err)
	}
	if s := b.Stats(); s.Rejected != 9 || s.Set != 1 {
		t.Errorf("stats %+v", s)
	}
	// A slightly denormalized rotation is normalized.
	q := tr("map", "odom", time.Second, 0, 0, 0, 0)
	q.Transform.Rotation.W = 1.004
	mustSet(t, b, false, q)
	got, _ = b.LookupTransform("map", "odom", at(time.Second))
	if got.Transform.Rotation.W != 1 {
		t.Errorf("rotation %+v not normalized", got.Transform.Rotation)
	}
	// A batch stores the good ones and names the bad ones.
	err = b.SetTransforms([]geometry_msgs.TransformStamped{tr("map", "a", 0, 0, 0, 0, 0), nan, tr("map", "b", 0, 0, 0, 0, 0)}, "batch", false)
	if !errors.Is(err, tf2.ErrInvalidArgument) || !b.FrameExists("a") || !b.FrameExists("b") {
		t.Errorf("batch: %v, frames %v", err, b.FrameIDs())
	}
}

// A loop in the tree is a lookup error naming the frames; the rest of the
// tree works on, and the loop can be undone.
func TestLoop(t *testing.T) {
	b := tf2.NewBuffer()
	mustSet(t, b, false, tr("a", "b", 0, 1, 0, 0, 0), tr("b", "c", 0, 1, 0, 0, 0), tr("c", "a", 0, 1, 0, 0, 0),
		tr("map", "x", 0, 1, 0, 0, 0))
	for _, tm := range []time.Time{tf2.Latest, at(0)} {
		_, err := b.LookupTransform("map", "a", tm)
		if !errors.Is(err, tf2.ErrLookup) || !strings.Contains(err.Error(), "loop") || !strings.Contains(err.Error(), "Frame c exists with parent b") {
			t.Errorf("loop at %v: %v", tm, err)
		}
	}
	if _, err := b.LookupTransform("map", "x", tf2.Latest); err != nil {
		t.Error(err)
	}
	mustSet(t, b, false, tr("map", "a", time.Millisecond, 0, 0, 0, 0), tr("b", "c", time.Millisecond, 1, 0, 0, 0),
		tr("a", "b", time.Millisecond, 1, 0, 0, 0))
	got, err := b.LookupTransform("map", "c", tf2.Latest)
	if err != nil {
		t.Fatal(err)
	}
	checkXY(t, got, 2, 0, 0)
}

// History: DefaultCacheTime behind the newest sample, older samples refused;
// out-of-order samples are sorted in; a sample at a stamp already there
// replaces it.
func TestCache(t *testing.T) {
	b := tf2.NewBuffer(tf2.WithCacheTime(2 * time.Second))
	for i := range 50 {
		mustSet(t, b, false, tr("map", "odom", time.Duration(i)*100*time.Millisecond, float64(i), 0, 0, 0))
	}
	if _, err := b.LookupTransform("map", "odom", at(2899*time.Millisecond)); !errors.Is(err, tf2.ErrExtrapolationPast) {
		t.Errorf("pruned sample still there: %v", err)
	}
	got, err := b.LookupTransform("map", "odom", at(2900*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	checkXY(t, got, 29, 0, 0)
	err = b.SetTransform(tr("map", "odom", time.Second, 0, 0, 0, 0), "late", false)
	if !errors.Is(err, tf2.ErrExtrapolationPast) || !strings.Contains(err.Error(), "TF_OLD_DATA") {
		t.Errorf("old sample: %v", err)
	}
	// Out of order, then a replacement.
	mustSet(t, b, false, tr("map", "odom", 4850*time.Millisecond, 100, 0, 0, 0))
	got, _ = b.LookupTransform("map", "odom", at(4825*time.Millisecond))
	checkXY(t, got, (48+100)/2., 0, 0)
	mustSet(t, b, false, tr("map", "odom", 4850*time.Millisecond, 50, 0, 0, 0))
	got, _ = b.LookupTransform("map", "odom", at(4850*time.Millisecond))
	checkXY(t, got, 50, 0, 0)
	if s := b.Stats(); s.Old != 1 {
		t.Errorf("stats %+v", s)
	}
	b.Clear()
	if _, err := b.LookupTransform("map", "odom", tf2.Latest); !errors.Is(err, tf2.ErrNoData) {
		t.Errorf("after Clear: %v", err)
	}
}

// A frame whose parent changes: no interpolation across the change (the
// older sample holds until the newer), as tf2.
func TestParentChange(t *testing.T) {
	b := tf2.NewBuffer()
	mustSet(t, b, false, tr("map", "a", 0, 0, 0, 0, 0), tr("map", "a", 2*time.Second, 0, 0, 0, 0),
		tr("map", "b", 0, 0, 10, 0, 0), tr("map", "b", 2*time.Second, 0, 10, 0, 0),
		tr("a", "tool", 0, 1, 0, 0, 0), tr("b", "tool", time.Second, 2, 0, 0, 0), tr("b", "tool", 2*time.Second, 4, 0, 0, 0))
	got, err := b.LookupTransform("map", "tool", at(500*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	checkXY(t, got, 1, 0, 0)
	got, _ = b.LookupTransform("map", "tool", at(1500*time.Millisecond))
	checkXY(t, got, 3, 10, 0)
	if p, err := b.Parent("tool", at(500*time.Millisecond)); p != "a" || err != nil {
		t.Errorf("parent at 0.5 s: %q, %v", p, err)
	}
	if p, err := b.Parent("tool", tf2.Latest); p != "b" || err != nil {
		t.Errorf("latest parent: %q, %v", p, err)
	}
	if _, err := b.Parent("map", tf2.Latest); !errors.Is(err, tf2.ErrLookup) {
		t.Errorf("parent of the root: %v", err)
	}
}

// A static transform holds at any time; the frame turning dynamic (or
// back) replaces its history, as tf2.
func TestStatic(t *testing.T) {
	b := tf2.NewBuffer()
	mustSet(t, b, true, tr("base", "laser", 0, 1, 0, 0, 0))
	for _, d := range []time.Duration{-time.Hour, 0, time.Hour} {
		got, err := b.LookupTransform("base", "laser", at(d))
		if err != nil || got.Header.Stamp != tf2.TimeStamp(at(d)) {
			t.Fatalf("at %v: %+v, %v", d, got.Header, err)
		}
		checkXY(t, got, 1, 0, 0)
	}
	mustSet(t, b, true, tr("base", "laser", time.Hour, 2, 0, 0, 0))
	got, _ := b.LookupTransform("base", "laser", at(0))
	checkXY(t, got, 2, 0, 0)
	mustSet(t, b, false, tr("base", "laser", time.Second, 3, 0, 0, 0))
	if _, err := b.LookupTransform("base", "laser", at(0)); !errors.Is(err, tf2.ErrNoData) {
		t.Errorf("dynamic now: %v", err)
	}
}

// The advanced lookup: where the robot's laser saw a point 1 s ago, in
// the laser frame now, through the fixed odom frame.
func TestLookupTransformFull(t *testing.T) {
	b := tf2.NewBuffer()
	mustSet(t, b, false, tr("odom", "base", 0, 0, 0, 0, 0), tr("odom", "base", time.Second, 1, 0, 0, math.Pi/2))
	mustSet(t, b, true, tr("base", "laser", 0, 0.5, 0, 0, 0))
	got, err := b.LookupTransformFull("laser", at(time.Second), "laser", at(0), "odom")
	if err != nil {
		t.Fatal(err)
	}
	// The old laser was at (0.5, 0) yaw 0 in odom; the new one at (1, 0.5) yaw π/2.
	p := tf2.TransformPoint(got.Transform, geometry_msgs.Point{X: 1})
	// (1.5, 0) in odom, seen from (1, 0.5) facing +y: 0.5 to its right, 0.5 behind.
	if !near(p.X, -0.5) || !near(p.Y, -0.5) || got.Header.Stamp != tf2.TimeStamp(at(time.Second)) {
		t.Errorf("point %+v, header %+v", p, got.Header)
	}
	if _, err := b.LookupTransformFull("laser", at(time.Second), "laser", at(0), "nowhere"); !errors.Is(err, tf2.ErrLookup) {
		t.Errorf("unknown fixed frame: %v", err)
	}
	if _, err := b.LookupTransformFull("laser", at(2*time.Second), "laser", at(0), "odom"); !errors.Is(err, tf2.ErrExtrapolationFuture) {
		t.Errorf("future target time: %v", err)
	}
}

// WaitForTransform returns when the sample that completes the chain
// arrives, and reports the last error with ctx's when ctx ends first.
func TestWaitForTransform(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := tf2.NewBuffer()
		ctx := t.Context()
		type result struct {
			ts  geometry_msgs.TransformStamped
			err error
		}
		done := make(chan result, 1)
		go func() {
			ts, err := b.WaitForTransform(ctx, "map", "base", at(time.Second))
			done <- result{ts, err}
		}()
		synctest.Wait()
		mustSet(t, b, false, tr("map", "odom", 0, 0, 0, 0, 0), tr("map", "odom", 2*time.Second, 2, 0, 0, 0))
		mustSet(t, b, false, tr("odom", "base", 0, 0, 1, 0, 0))
		synctest.Wait()
		select {
		case r := <-done:
			t.Fatalf("returned before the chain was complete: %+v, %v", r.ts, r.err)
		default:
		}
		mustSet(t, b, false, tr("odom", "base", 2*time.Second, 0, 3, 0, 0)) // completes it
		r := <-done
		if r.err != nil {
			t.Fatal(r.err)
		}
		checkXY(t, r.ts, 1, 2, 0)

		// Timeout: the error says why.
		tctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		start := time.Now()
		_, err := b.WaitForTransform(tctx, "map", "base", at(5*time.Second))
		if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, tf2.ErrExtrapolationFuture) || time.Since(start) != 3*time.Second {
			t.Errorf("timeout: %v after %v", err, time.Since(start))
		}
		// Invalid arguments fail at once; a cancelled ctx does nothing.
		if _, err := b.WaitForTransform(ctx, "", "base", tf2.Latest); !errors.Is(err, tf2.ErrInvalidArgument) {
			t.Errorf("invalid: %v", err)
		}
		cctx, ccancel := context.WithCancel(ctx)
		ccancel()
		if _, err := b.WaitForTransform(cctx, "map", "base", at(time.Second)); !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled: %v", err)
		}
		// Full form.
		go func() {
			ts, err := b.WaitForTransformFull(ctx, "base", at(3*time.Second), "base", at(0), "map")
			done <- result{ts, err}
		}()
		synctest.Wait()
		mustSet(t, b, false, tr("map", "odom", 3*time.Second, 3, 0, 0, 0), tr("odom", "base", 3*time.Second, 0, 4, 0, 0))
		if r := <-done; r.err != nil {
			t.Fatal(r.err)
		}
	})
}

// Concurrent writers, readers and waiters (run with -race).
func TestConcurrent(t *testing.T) {
	b := tf2.NewBuffer()
	mustSet(t, b, true, tr("base", "laser", 0, 1, 0, 0, 0))
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	const n = 2000
	for w := range 2 {
		wg.Go(func() {
			for i := range n {
				d := time.Duration(i) * time.Millisecond
				if err := b.SetTransforms([]geometry_msgs.TransformStamped{
					tr("map", "odom", d, float64(i), 0, 0, 0), tr("odom", "base", d, 0, float64(i), 0, 0)}, fmt.Sprint("w", w), false); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	for range 2 {
		wg.Go(func() {
			for range n {
				if _, err := b.LookupTransform("map", "laser", tf2.Latest); err != nil && !errors.Is(err, tf2.ErrLookup) {
					t.Error(err)
					return
				}
				_ = b.AllFramesAsYAML(tf2.Latest)
			}
		})
	}
	for i := range 4 {
		wg.Go(func() {
			ts, err := b.WaitForTransform(ctx, "map", "laser", at(time.Duration(500*i)*time.Millisecond))
			if err != nil {
				t.Error(err)
				return
			}
			checkXY(t, ts, float64(500*i)+1, float64(500*i), 0)
		})
	}
	wg.Wait()
}

func TestLookupDoesNotAllocate(t *testing.T) {
	b := chain(10)
	tm := at(500 * time.Millisecond)
	for _, c := range []struct {
		name string
		tm   time.Time
	}{{"at a time", tm}, {"latest", tf2.Latest}} {
		allocs := testing.AllocsPerRun(100, func() {
			if _, err := b.LookupTransform("f0", "f10", c.tm); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per lookup", c.name, allocs)
		}
	}
}

// chain returns a buffer with frames f0 <- f1 <- ... <- fn, each link with
// samples every 10 ms over one second.
func chain(n int) *tf2.Buffer {
	b := tf2.NewBuffer()
	for i := 1; i <= n; i++ {
		for k := range 101 {
			d := time.Duration(k) * 10 * time.Millisecond
			_ = b.SetTransform(tr(fmt.Sprint("f", i-1), fmt.Sprint("f", i), d, 0.1*float64(k), 1, 0, 0.01*float64(k+i)), "bench", false)
		}
	}
	return b
}

func TestFrameListings(t *testing.T) {
	b := tf2.NewBuffer()
	if got := b.AllFramesAsYAML(tf2.Latest); got != "[]" {
		t.Errorf("empty YAML %q", got)
	}
	mustSet(t, b, false, tr("map", "odom", 0, 0, 0, 0, 0), tr("map", "odom", time.Second, 0, 0, 0, 0))
	if err := b.SetTransform(tr("odom", "base", 0, 0, 0, 0, 0), "/robot_state_publisher", true); err != nil {
		t.Fatal(err)
	}
	if got, want := b.AllFramesAsString(), "Frame odom exists with parent map.\nFrame base exists with parent odom.\n"; got != want {
		t.Errorf("AllFramesAsString:\n%s\nwant\n%s", got, want)
	}
	want := `odom: 
  parent: 'map'
  broadcaster: 'test'
  rate: 2.000
  most_recent_transform: 1700000001.000000
  oldest_transform: 1700000000.000000
  transform_delay: 1.500
  buffer_length: 1.000
base: 
  parent: 'odom'
  broadcaster: '/robot_state_publisher'
  rate: 10000.000
  most_recent_transform: 0.000000
  oldest_transform: 0.000000
  transform_delay: 1700000002.500
  buffer_length: 0.000
`
	if got := b.AllFramesAsYAML(at(2500 * time.Millisecond)); got != want {
		t.Errorf("AllFramesAsYAML:\n%s\nwant\n%s", got, want)
	}
	dot := b.AllFramesAsDot(at(0))
	for _, s := range []string{"digraph G {", `"map" -> "odom"[label=" Broadcaster: test\nAverage rate: 2.000`, `"odom" -> "base"`, `Recorded at time: 1700000000.000000`, `->"map";`} {
		if !strings.Contains(dot, s) {
			t.Errorf("dot misses %q:\n%s", s, dot)
		}
	}
	if ids := b.FrameIDs(); strings.Join(ids, " ") != "base map odom" {
		t.Errorf("FrameIDs %v", ids)
	}
}

// A buffer fed without end stays bounded: frames beyond the limit are
// refused, samples beyond it drop the oldest.
func TestLimits(t *testing.T) {
	b := tf2.NewBuffer(tf2.WithMaxFrames(4), tf2.WithMaxSamples(3))
	mustSet(t, b, false, tr("a", "b", 0, 0, 0, 0, 0), tr("b", "c", 0, 0, 0, 0, 0), tr("c", "d", 0, 0, 0, 0, 0))
	err := b.SetTransform(tr("d", "e", 0, 0, 0, 0, 0), "flood", false)
	if !errors.Is(err, tf2.ErrInvalidArgument) || !strings.Contains(err.Error(), "4 frames") {
		t.Errorf("a fifth frame: %v", err)
	}
	for i := range 10 {
		mustSet(t, b, false, tr("a", "b", time.Duration(i)*time.Millisecond, float64(i), 0, 0, 0))
	}
	if _, err := b.LookupTransform("a", "b", at(6*time.Millisecond)); !errors.Is(err, tf2.ErrExtrapolationPast) {
		t.Errorf("the 4th newest sample is still there: %v", err)
	}
	got, err := b.LookupTransform("a", "b", at(7500*time.Microsecond))
	if err != nil {
		t.Fatal(err)
	}
	checkXY(t, got, 7.5, 0, 0)
	if _, err := b.LookupTransform("b", "d", tf2.Latest); err != nil {
		t.Error(err)
	}
}
