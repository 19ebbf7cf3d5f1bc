package tf2

import (
	"errors"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/afor-go/afor/ros/msgs/geometry_msgs"
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
