package tf2

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/afor-go/afor/ros/msgs/geometry_msgs"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
)

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
