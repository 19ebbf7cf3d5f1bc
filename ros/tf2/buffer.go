package tf2

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/afor-go/afor/ros/msgs/builtin_interfaces"
	"github.com/afor-go/afor/ros/msgs/geometry_msgs"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
)

// DefaultCacheTime is how much history a [Buffer] keeps of each frame
// behind its newest sample, as tf2's BUFFER_CORE_DEFAULT_CACHE_TIME.
const DefaultCacheTime = 10 * time.Second

// Latest, as the time of a lookup, asks for the latest time at which every
// transform of the chain is known (tf2's TimePointZero). ROS time zero
// (time.Unix(0, 0), a zero builtin_interfaces/Time) means the same.
var Latest = time.Time{}

// quaternionTolerance is how far from 1 a rotation's norm may be, as tf2's
// QUATERNION_NORMALIZATION_TOLERANCE.
const quaternionTolerance = 10e-3

// Buffer is tf2's transform buffer: the tree of coordinate frames over
// time. Each frame has one parent at a time and a history of its transform
// relative to that parent: DefaultCacheTime of it (see [WithCacheTime]), or
// one transform valid forever for a static frame. A lookup between two
// frames walks up from both to their common ancestor at the time asked,
// interpolating each link between the two samples around that time
// (translation linearly, rotation along the shortest arc).
//
// A Buffer is safe for concurrent use; lookups share a read lock and do not
// allocate when they succeed. Feed it with [Buffer.SetTransform] or a
// [Listener]. The zero Buffer is not ready: use [NewBuffer].
type Buffer struct {
	maxAge     int64 // nanoseconds of history kept per dynamic frame
	maxSamples int   // samples kept per dynamic frame
	maxFrames  int   // frames known

	mu        sync.RWMutex
	ids       map[string]uint32 // frame name -> number (1..)
	names     []string          // number -> name; names[0] is "NO_PARENT"
	caches    []*cache          // number -> cache (nil: no transform of its own yet)
	authority []string          // number -> who sent its last transform

	wmu     sync.Mutex
	changed chan struct{} // closed on the next change; nil while nobody waits

	stats struct {
		sync.Mutex
		BufferStats
	}
}

// BufferStats counts what a buffer was given.
type BufferStats struct {
	Set      uint64 // transforms stored
	Rejected uint64 // transforms refused as invalid (ErrInvalidArgument)
	Old      uint64 // transforms older than the history kept, ignored
}

// Bounds on what a buffer holds, whoever feeds it: tf2 has none, but a
// publisher gone wrong (or hostile) on /tf must not exhaust the process.
const (
	// DefaultMaxFrames is how many frames a buffer knows at most (see
	// [WithMaxFrames]); a transform that would add more is refused.
	DefaultMaxFrames = 10000
	// DefaultMaxSamples is how many samples a buffer keeps of one dynamic
	// frame at most, the oldest dropped first (see [WithMaxSamples]): 10 s
	// of a 10 kHz stream.
	DefaultMaxSamples = 100000
)

// WithMaxFrames bounds how many frames the buffer knows (default
// [DefaultMaxFrames]); a transform that names a frame beyond it is refused
// with an error matching ErrInvalidArgument.
func WithMaxFrames(n int) BufferOption { return func(b *Buffer) { b.maxFrames = n } }

// WithMaxSamples bounds how many samples the buffer keeps of one dynamic
// frame (default [DefaultMaxSamples]), the oldest dropped first, within the
// cache time.
func WithMaxSamples(n int) BufferOption { return func(b *Buffer) { b.maxSamples = n } }

// BufferOption configures a [Buffer].
type BufferOption func(*Buffer)

// WithCacheTime sets how much history the buffer keeps of each dynamic
// frame behind its newest sample (default [DefaultCacheTime]).
func WithCacheTime(d time.Duration) BufferOption {
	return func(b *Buffer) { b.maxAge = int64(d) }
}

// NewBuffer returns an empty buffer.
func NewBuffer(opts ...BufferOption) *Buffer {
	b := &Buffer{
		maxAge:     int64(DefaultCacheTime),
		maxSamples: DefaultMaxSamples,
		maxFrames:  DefaultMaxFrames,
		ids:        map[string]uint32{},
		names:      []string{"NO_PARENT"},
		caches:     []*cache{nil},
	}
	b.authority = []string{""}
	for _, o := range opts {
		o(b)
	}
	b.maxAge = min(max(b.maxAge, 0), 1<<62) // no overflow below any stamp
	b.maxSamples = max(b.maxSamples, 1)
	b.maxFrames = max(b.maxFrames, 2)

	return b
}

// CacheTime returns how much history the buffer keeps per dynamic frame.
func (b *Buffer) CacheTime() time.Duration { return time.Duration(b.maxAge) }

// Stats returns the counts of transforms the buffer stored and refused.
func (b *Buffer) Stats() BufferStats {
	b.stats.Lock()
	defer b.stats.Unlock()
	return b.stats.BufferStats
}

// stampOf maps a lookup time to nanoseconds of ROS time; Latest and time
// zero map to 0.
func stampOf(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// StampTime converts a message stamp to a time.Time (ROS time zero, the
// Latest of lookups, is time.Unix(0, 0)).
func StampTime(s builtin_interfaces.Time) time.Time {
	return time.Unix(int64(s.Sec), int64(s.Nanosec))
}

// TimeStamp converts t to a message stamp; [Latest] (the zero time.Time)
// is ROS time zero.
func TimeStamp(t time.Time) builtin_interfaces.Time { return stampMsg(stampOf(t)) }

func stampMsg(ns int64) builtin_interfaces.Time {
	sec, nsec := ns/1e9, ns%1e9
	if nsec < 0 {
		sec, nsec = sec-1, nsec+1e9
	}
	return builtin_interfaces.Time{Sec: int32(sec), Nanosec: uint32(nsec)}
}

func nsOf(s builtin_interfaces.Time) int64 { return int64(s.Sec)*1e9 + int64(s.Nanosec) }

// SetTransform stores one transform: ts.Transform is the pose of frame
// ts.ChildFrameID in frame ts.Header.FrameID at ts.Header.Stamp. A static
// transform holds at any time until replaced; a dynamic one joins its
// frame's history. authority names who sent it (shown by
// [Buffer.AllFramesAsYAML]). A leading '/' of either frame ID is dropped,
// as tf2 does, and the rotation is normalized.
//
// An invalid transform is refused with an error matching
// ErrInvalidArgument (empty frame ID, a frame its own parent, a NaN or
// infinite value, a rotation whose norm is not 1 within 1e-2) and one older
// than the history kept with an error matching ErrExtrapolationPast; the
// buffer keeps everything it had. Waiters of [Buffer.WaitForTransform] are
// woken.
func (b *Buffer) SetTransform(ts geometry_msgs.TransformStamped, authority string, static bool) error {
	b.mu.Lock()
	err := b.setLocked(&ts, authority, static)
	b.mu.Unlock()
	b.wake()
	return err
}

// SetTransforms stores several transforms as [Buffer.SetTransform] does,
// under one lock and with one wake-up of the waiters. It stores every
// valid one and returns the errors of the others, joined.
func (b *Buffer) SetTransforms(ts []geometry_msgs.TransformStamped, authority string, static bool) error {
	var errs []error
	b.mu.Lock()
	for i := range ts {
		if err := b.setLocked(&ts[i], authority, static); err != nil {
			errs = append(errs, err)
		}
	}
	b.mu.Unlock()
	b.wake()
	return errors.Join(errs...)
}

func (b *Buffer) setLocked(ts *geometry_msgs.TransformStamped, authority string, static bool) error {
	parent := strings.TrimPrefix(ts.Header.FrameID, "/")
	child := strings.TrimPrefix(ts.ChildFrameID, "/")
	if err := validate(parent, child, ts.Transform, authority); err != nil {
		b.count(func(s *BufferStats) { s.Rejected++ })
		return err
	}
	newFrames := 0
	for _, f := range [...]string{parent, child} {
		if _, ok := b.ids[f]; !ok {
			newFrames++
		}
	}
	if len(b.names)-1+newFrames > b.maxFrames {
		b.count(func(s *BufferStats) { s.Rejected++ })
		return errorf(ErrInvalidArgument, "ignoring the transform of frame %q in %q from %q: the buffer knows %d frames, its limit", child, parent, authority, b.maxFrames)
	}
	x := xformOf(ts.Transform)
	x.q = normalized(x.q)
	id := b.frameLocked(child)
	c := b.caches[id]
	if c == nil || c.static != static {
		c = &cache{static: static}
		b.caches[id] = c
	}
	stamp := nsOf(ts.Header.Stamp)
	if !c.insert(sample{stamp: stamp, parent: b.frameLocked(parent), x: x}, b.maxAge, b.maxSamples) {
		b.count(func(s *BufferStats) { s.Old++ })
		return errorf(ErrExtrapolationPast, "ignoring the transform of frame %q at time %s from %q: older than the %s of history kept behind time %s (TF_OLD_DATA)",
			child, secs(stamp), authority, time.Duration(b.maxAge), secs(c.latest().stamp))
	}
	b.authority[id] = authority
	b.count(func(s *BufferStats) { s.Set++ })
	return nil
}

func (b *Buffer) count(f func(*BufferStats)) {
	b.stats.Lock()
	f(&b.stats.BufferStats)
	b.stats.Unlock()
}

func validate(parent, child string, t geometry_msgs.Transform, authority string) error {
	switch {
	case child == "":
		return errorf(ErrInvalidArgument, "ignoring a transform from %q with parent %q: child_frame_id is empty", authority, parent)
	case parent == "":
		return errorf(ErrInvalidArgument, "ignoring the transform of frame %q from %q: frame_id is empty", child, authority)
	case parent == child:
		return errorf(ErrInvalidArgument, "ignoring the transform of frame %q from %q: it is its own parent", child, authority)
	}
	v := [7]float64{t.Translation.X, t.Translation.Y, t.Translation.Z, t.Rotation.X, t.Rotation.Y, t.Rotation.Z, t.Rotation.W}
	for _, f := range v {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return errorf(ErrInvalidArgument, "ignoring the transform of frame %q from %q: a value is not finite (%g %g %g) (%g %g %g %g)",
				child, authority, v[0], v[1], v[2], v[3], v[4], v[5], v[6])
		}
	}
	q := quat{v[3], v[4], v[5], v[6]}
	if math.Abs(q.dot(q)-1) >= quaternionTolerance {
		return errorf(ErrInvalidArgument, "ignoring the transform of frame %q from %q: the rotation (%g %g %g %g) is not a unit quaternion",
			child, authority, v[3], v[4], v[5], v[6])
	}
	return nil
}

// frameLocked returns the number of frame name, adding it if new.
func (b *Buffer) frameLocked(name string) uint32 {
	if id, ok := b.ids[name]; ok {
		return id
	}
	id := uint32(len(b.names))
	b.ids[name] = id
	b.names = append(b.names, name)
	b.caches = append(b.caches, nil)
	b.authority = append(b.authority, "")
	return id
}

// wake wakes the waiters of WaitForTransform.
func (b *Buffer) wake() {
	b.wmu.Lock()
	if b.changed != nil {
		close(b.changed)
		b.changed = nil
	}
	b.wmu.Unlock()
}

// changedChan returns a channel closed on the next change.
func (b *Buffer) changedChan() <-chan struct{} {
	b.wmu.Lock()
	defer b.wmu.Unlock()
	if b.changed == nil {
		b.changed = make(chan struct{})
	}
	return b.changed
}

// Clear drops every transform, dynamic and static; the frames stay known.
func (b *Buffer) Clear() {
	b.mu.Lock()
	for _, c := range b.caches {
		if c != nil {
			c.clear()
		}
	}
	b.mu.Unlock()
}

// validFrame checks a frame ID passed to a lookup (arg names the argument)
// and returns its number.
func (b *Buffer) validFrame(arg, frame string) (uint32, error) {
	if frame == "" {
		return 0, errorf(ErrInvalidArgument, "invalid argument %q passed to %s: frame IDs cannot be empty", frame, arg)
	}
	if frame[0] == '/' {
		return 0, errorf(ErrInvalidArgument, "invalid argument %q passed to %s: frame IDs cannot start with a '/'", frame, arg)
	}
	id, ok := b.ids[frame]
	if !ok {
		return 0, errorf(ErrLookup, "%q passed to %s does not exist", frame, arg)
	}
	return id, nil
}

// LookupTransform returns the transform from frame source to frame target
// at time t ([Latest] for the latest time the whole chain is known): the
// pose of source in target, which maps a point of source into target. Its
// header names target and the time of the data (the time found for
// Latest); its child frame is source.
//
// A frame unknown to the buffer gives an error matching ErrLookup, frames
// in unconnected trees ErrConnectivity, a time outside the history kept
// ErrExtrapolation (ErrExtrapolationPast, ErrExtrapolationFuture or
// ErrNoData), and an empty frame ID ErrInvalidArgument.
func (b *Buffer) LookupTransform(target, source string, t time.Time) (geometry_msgs.TransformStamped, error) {
	b.mu.RLock()
	x, stamp, err := b.lookupLocked(target, source, stampOf(t))
	b.mu.RUnlock()
	if err != nil {
		return geometry_msgs.TransformStamped{}, err
	}
	return stamped(target, source, stamp, x), nil
}

func stamped(target, source string, stamp int64, x xform) geometry_msgs.TransformStamped {
	return geometry_msgs.TransformStamped{
		Header:       std_msgs.Header{Stamp: stampMsg(stamp), FrameID: target},
		ChildFrameID: source,
		Transform:    x.msg(),
	}
}

// LookupTransformFull returns the transform from frame source at
// sourceTime to frame target at targetTime, through fixed, a frame that
// does not move between the two times (the world, the odometry frame):
// tf2's advanced lookupTransform. The header names target and targetTime.
func (b *Buffer) LookupTransformFull(target string, targetTime time.Time, source string, sourceTime time.Time, fixed string) (geometry_msgs.TransformStamped, error) {
	b.mu.RLock()
	x, stamp, err := b.lookupFullLocked(target, stampOf(targetTime), source, stampOf(sourceTime), fixed)
	b.mu.RUnlock()
	if err != nil {
		return geometry_msgs.TransformStamped{}, err
	}
	return stamped(target, source, stamp, x), nil
}

func (b *Buffer) lookupFullLocked(target string, targetStamp int64, source string, sourceStamp int64, fixed string) (xform, int64, error) {
	for _, a := range [...]struct{ arg, frame string }{
		{"lookupTransform argument target_frame", target},
		{"lookupTransform argument source_frame", source},
		{"lookupTransform argument fixed_frame", fixed},
	} {
		if _, err := b.validFrame(a.arg, a.frame); err != nil {
			return xform{}, 0, err
		}
	}
	sourceInFixed, _, err := b.lookupLocked(fixed, source, sourceStamp)
	if err != nil {
		return xform{}, 0, err
	}
	fixedInTarget, stamp, err := b.lookupLocked(target, fixed, targetStamp)
	if err != nil {
		return xform{}, 0, err
	}
	return fixedInTarget.mul(sourceInFixed), stamp, nil
}

// CanTransform reports whether [Buffer.LookupTransform] would succeed now.
func (b *Buffer) CanTransform(target, source string, t time.Time) bool {
	b.mu.RLock()
	_, _, err := b.lookupLocked(target, source, stampOf(t))
	b.mu.RUnlock()
	return err == nil
}

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

// lookupLocked is the lookup of tf2's lookupTransform(target, source,
// time): the transform and the time of its data.
func (b *Buffer) lookupLocked(target, source string, stamp int64) (xform, int64, error) {
	if target == source && target != "" && target[0] != '/' {
		if stamp == 0 {
			if id, ok := b.ids[target]; ok && b.caches[id] != nil && !b.caches[id].empty() && !b.caches[id].static {
				stamp = b.caches[id].latest().stamp
			}
		}
		return identity, stamp, nil
	}
	tid, err := b.validFrame("lookupTransform argument target_frame", target)
	if err != nil {
		return xform{}, 0, err
	}
	sid, err := b.validFrame("lookupTransform argument source_frame", source)
	if err != nil {
		return xform{}, 0, err
	}
	var w walk
	if err := b.walkLocked(&w, stamp, tid, sid); err != nil {
		return xform{}, 0, err
	}
	return w.result, w.stamp, nil
}

// walk accumulates the two halves of a lookup: source up to the top of the
// walk, and target up to it.
type walk struct {
	src, tgt xform // source→top, target→top
	result   xform
	stamp    int64
}

// maxDepth bounds a walk: longer than the number of frames, a chain loops.
func (b *Buffer) maxDepth() int { return len(b.names) }

// walkLocked is tf2's walkToTopParent: from source up to the root (or the
// first frame without data at stamp), then from target up to the same
// frame, accumulating both sides, so that the result is
// inverse(target→top) ∘ (source→top).
func (b *Buffer) walkLocked(w *walk, stamp int64, tid, sid uint32) error {
	if stamp == 0 {
		lct, err := b.latestCommonLocked(tid, sid)
		if err != nil {
			return err
		}
		stamp = lct
	}
	w.stamp = stamp
	w.src, w.tgt = identity, identity

	frame, top := sid, sid
	var srcErr error
	for depth := 0; frame != 0; depth++ {
		c := b.caches[frame]
		if c == nil {
			top = frame // the root has no cache
			break
		}
		parent, x, err := c.at(stamp)
		if err != nil {
			// There may still be a path from source to target below here.
			top, srcErr = frame, err
			break
		}
		if frame == tid { // target is an ancestor of source
			w.result = w.src
			return nil
		}
		w.src = x.mul(w.src)
		top, frame = frame, parent
		if depth > b.maxDepth() {
			return b.loopError()
		}
	}

	frame = tid
	for depth := 0; frame != top; depth++ {
		c := b.caches[frame]
		if c == nil {
			break
		}
		parent, x, err := c.at(stamp)
		if err != nil {
			return b.walkError(err, sid, tid)
		}
		if frame == sid { // source is an ancestor of target
			w.result = w.tgt.inverse()
			return nil
		}
		w.tgt = x.mul(w.tgt)
		frame = parent
		if depth > b.maxDepth() {
			return b.loopError()
		}
	}
	if frame != top {
		if srcErr != nil {
			return b.walkError(srcErr, sid, tid)
		}
		return b.connectivityError(sid, tid)
	}
	w.result = w.tgt.inverse().mul(w.src)
	return nil
}

func (b *Buffer) walkError(err error, sid, tid uint32) error {
	var le *lookupError
	if errors.As(err, &le) {
		return &lookupError{kind: le.kind, msg: fmt.Sprintf("%s, when looking up transform from frame [%s] to frame [%s]", le.msg, b.names[sid], b.names[tid])}
	}
	return err
}

func (b *Buffer) noDataError(frame, sid, tid uint32) error {
	return errorf(ErrNoData, "frame %q has no data, when looking up transform from frame [%s] to frame [%s]", b.names[frame], b.names[sid], b.names[tid])
}

func (b *Buffer) loopError() error {
	return errorf(ErrLookup, "the tf tree is invalid because it contains a loop:\n%s", b.allFramesAsStringLocked())
}

func (b *Buffer) connectivityError(sid, tid uint32) error {
	return errorf(ErrConnectivity, "could not find a connection between %q and %q because they are not part of the same tree; tf has two or more unconnected trees",
		b.names[tid], b.names[sid])
}

// frameTime is a frame met on a walk and the latest stamp of the link that
// leads to it.
type frameTime struct {
	stamp int64
	frame uint32
}

// latestCommonLocked is tf2's getLatestCommonTime: the latest time at
// which every link between source and target, up to their common
// ancestor, has data (static links do not count; 0 when all are static).
func (b *Buffer) latestCommonLocked(tid, sid uint32) (int64, error) {
	if tid == sid {
		if c := b.caches[sid]; c != nil {
			s, _ := c.latestStampAndParent()
			return s, nil
		}
		return 0, nil
	}
	var scratch [32]frameTime
	chain := scratch[:0]
	common := int64(math.MaxInt64)
	minStamp := func(s int64) {
		if s != 0 && s < common {
			common = s
		}
	}
	final := func() int64 {
		if common == math.MaxInt64 {
			return 0
		}
		return common
	}

	for frame, depth := sid, 0; frame != 0; depth++ {
		c := b.caches[frame]
		if c == nil {
			break
		}
		if c.empty() {
			return 0, b.noDataError(frame, sid, tid)
		}
		s, parent := c.latestStampAndParent()
		if parent == 0 {
			break
		}
		minStamp(s)
		chain = append(chain, frameTime{s, parent})
		frame = parent
		if frame == tid { // target is an ancestor of source
			return final(), nil
		}
		if depth > b.maxDepth() {
			return 0, b.loopError()
		}
	}

	common = math.MaxInt64
	var ancestor uint32
	for frame, depth := tid, 0; ; depth++ {
		c := b.caches[frame]
		if c == nil {
			break
		}
		if c.empty() {
			return 0, b.noDataError(frame, sid, tid)
		}
		s, parent := c.latestStampAndParent()
		if parent == 0 {
			break
		}
		minStamp(s)
		found := false
		for _, ft := range chain {
			if ft.frame == parent {
				found = true
				break
			}
		}
		if found {
			ancestor = parent
			break
		}
		frame = parent
		if frame == sid { // source is an ancestor of target
			return final(), nil
		}
		if depth > b.maxDepth() {
			return 0, b.loopError()
		}
	}
	if ancestor == 0 {
		return 0, b.connectivityError(sid, tid)
	}
	for _, ft := range chain {
		minStamp(ft.stamp)
		if ft.frame == ancestor {
			break
		}
	}
	return final(), nil
}
