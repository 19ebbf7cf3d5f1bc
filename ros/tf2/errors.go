package tf2

import (
	"errors"
	"fmt"
	"strconv"
)

// The errors of tf2 (tf2/exceptions.h), as sentinels to test with
// errors.Is. Every error the buffer returns matches one of them and says
// which frames and times it is about.
var (
	// ErrLookup: a frame is unknown to the buffer, or the tree has a loop
	// (tf2's LookupException).
	ErrLookup = errors.New("tf2: lookup error")
	// ErrConnectivity: the two frames are in trees that do not connect
	// (tf2's ConnectivityException).
	ErrConnectivity = errors.New("tf2: connectivity error")
	// ErrExtrapolation: the buffer has the frames, but not at the time
	// asked (tf2's ExtrapolationException). The three errors below wrap it.
	ErrExtrapolation = errors.New("tf2: extrapolation error")
	// ErrInvalidArgument: an empty frame ID, a frame ID starting with '/',
	// a transform whose parent is its child, a NaN or a quaternion that is
	// not of unit length (tf2's InvalidArgumentException and the errors
	// setTransform logs).
	ErrInvalidArgument = errors.New("tf2: invalid argument")
)

var (
	// ErrExtrapolationPast: the time asked is older than the oldest sample
	// kept (tf2's BackwardExtrapolationException); it matches
	// ErrExtrapolation too.
	ErrExtrapolationPast error = &kindError{"tf2: extrapolation into the past", ErrExtrapolation}
	// ErrExtrapolationFuture: the time asked is newer than the newest sample
	// (tf2's ForwardExtrapolationException); it matches ErrExtrapolation
	// too.
	ErrExtrapolationFuture error = &kindError{"tf2: extrapolation into the future", ErrExtrapolation}
	// ErrNoData: a frame has no sample at all, or one sample at another time
	// (tf2's NoDataForExtrapolationException); it matches ErrExtrapolation
	// too.
	ErrNoData error = &kindError{"tf2: no data for extrapolation", ErrExtrapolation}
)

// kindError is a sentinel that refines another.
type kindError struct {
	msg    string
	parent error
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.parent }

// lookupError is one failure: its kind (a sentinel above) and what it is
// about.
type lookupError struct {
	kind error
	msg  string
}

func (e *lookupError) Error() string { return "tf2: " + e.msg }
func (e *lookupError) Unwrap() error { return e.kind }

func errorf(kind error, format string, args ...any) error {
	return &lookupError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// secs formats a stamp in nanoseconds as seconds with six decimals, as
// tf2's displayTimePoint does.
func secs(ns int64) string { return strconv.FormatFloat(float64(ns)/1e9, 'f', 6, 64) }
