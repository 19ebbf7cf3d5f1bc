package dds

import "errors"

// Sentinel errors returned (possibly wrapped) by this package. Test them
// with errors.Is.
var (
	// ErrInvalidConfig reports a Config field out of range or an
	// environment variable that does not parse.
	ErrInvalidConfig = errors.New("dds: invalid config")
	// ErrInvalidQoS reports a QoS that is not valid on its own (a negative
	// depth, say). An incompatible pair of valid QoS is not an error: it is
	// reported on the endpoints (see Writer.IncompatibleQoS).
	ErrInvalidQoS = errors.New("dds: invalid QoS")
	// ErrInvalidTopic reports an empty or oversized topic or type name.
	ErrInvalidTopic = errors.New("dds: invalid topic")
	// ErrNoFreeIndex is returned by NewParticipant when every participant
	// index it may use has its ports taken.
	ErrNoFreeIndex = errors.New("dds: no free participant index")
	// ErrClosed is returned by operations on a closed participant, writer
	// or reader.
	ErrClosed = errors.New("dds: closed")
	// ErrTimeout is returned by a reliable KEEP_ALL writer whose history
	// stayed full (unacknowledged) for longer than its MaxBlocking time.
	ErrTimeout = errors.New("dds: write blocked too long")
	// ErrTooLarge reports a sample beyond the writer's size limit.
	ErrTooLarge = errors.New("dds: sample too large")
)
