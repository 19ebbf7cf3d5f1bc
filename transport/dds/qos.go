package dds

import (
	"fmt"
	"strconv"
	"time"

	"github.com/afor-go/afor"
)

// Reliability is the RELIABILITY QoS kind.
type Reliability int

const (
	// Reliable (the default here, as in ROS 2) delivers every sample in
	// order: the writer keeps samples until they are acknowledged and
	// resends what readers miss.
	Reliable Reliability = iota
	// BestEffort sends each sample once.
	BestEffort
)

// String returns "RELIABLE" or "BEST_EFFORT".
func (r Reliability) String() string {
	switch r {
	case Reliable:
		return "RELIABLE"
	case BestEffort:
		return "BEST_EFFORT"
	}
	return "Reliability(" + strconv.Itoa(int(r)) + ")"
}

// Durability is the DURABILITY QoS kind.
type Durability int

const (
	// Volatile (the default): a reader gets only samples written after it
	// matched.
	Volatile Durability = iota
	// TransientLocal: a writer keeps its history for readers that join
	// later, which receive it when they match.
	TransientLocal
)

// String returns "VOLATILE" or "TRANSIENT_LOCAL".
func (d Durability) String() string {
	switch d {
	case Volatile:
		return "VOLATILE"
	case TransientLocal:
		return "TRANSIENT_LOCAL"
	}
	return "Durability(" + strconv.Itoa(int(d)) + ")"
}

// HistoryKind is the HISTORY QoS kind.
type HistoryKind int

const (
	// KeepLast (the default) keeps the Depth newest samples; an older one
	// is dropped, even if unacknowledged.
	KeepLast HistoryKind = iota
	// KeepAll keeps every sample until all reliable readers acknowledged
	// it, up to MaxSamples (and, when volatile, up to 2 MiB of payload
	// beyond one sample); a writer whose history is full blocks for up to
	// MaxBlocking.
	KeepAll
)

// String returns "KEEP_LAST" or "KEEP_ALL".
func (h HistoryKind) String() string {
	switch h {
	case KeepLast:
		return "KEEP_LAST"
	case KeepAll:
		return "KEEP_ALL"
	}
	return "HistoryKind(" + strconv.Itoa(int(h)) + ")"
}

// LivelinessKind is the LIVELINESS QoS kind.
type LivelinessKind int

const (
	// Automatic liveliness (the default): the participant's own traffic
	// asserts it.
	Automatic LivelinessKind = iota
	// ManualByParticipant liveliness.
	ManualByParticipant
	// ManualByTopic liveliness.
	ManualByTopic
)

// Defaults applied to zero fields of QoS.
const (
	DefaultDepth       = 10
	DefaultMaxSamples  = 1000
	DefaultMaxBlocking = 100 * time.Millisecond
)

// QoS are the quality-of-service policies of a writer or a reader. The
// zero value is the ROS 2 default profile: RELIABLE, VOLATILE, KEEP_LAST
// 10, no deadline or lifespan, AUTOMATIC liveliness.
type QoS struct {
	Reliability Reliability
	Durability  Durability
	History     HistoryKind
	// Depth is the KEEP_LAST depth. Default 10.
	Depth int
	// MaxSamples bounds a KEEP_ALL history (and a reader's queue of
	// samples waiting for an earlier one). Default 1000.
	MaxSamples int
	// MaxBlocking is how long a reliable KEEP_ALL writer waits for room in
	// a full history before Write fails with ErrTimeout. Default 100 ms.
	MaxBlocking time.Duration
	// Deadline is the longest period between samples a writer offers or a
	// reader requests; zero means infinite.
	Deadline time.Duration
	// Lifespan is how long a written sample stays valid; zero means
	// infinite. Expired samples are not sent (or resent).
	Lifespan time.Duration
	// Liveliness and LivelinessLease are the LIVELINESS policy; a zero
	// lease means infinite.
	Liveliness      LivelinessKind
	LivelinessLease time.Duration
	// UserData is announced with the endpoint as its USER_DATA.
	UserData []byte
	// Partition names the partitions of the endpoint; empty means the
	// default partition "".
	Partition []string
}

// resolve validates q and applies defaults.
func (q QoS) resolve() (QoS, error) {
	if q.Reliability != Reliable && q.Reliability != BestEffort {
		return q, fmt.Errorf("%w: unknown reliability %d", ErrInvalidQoS, int(q.Reliability))
	}
	if q.Durability != Volatile && q.Durability != TransientLocal {
		return q, fmt.Errorf("%w: unknown durability %d", ErrInvalidQoS, int(q.Durability))
	}
	if q.History != KeepLast && q.History != KeepAll {
		return q, fmt.Errorf("%w: unknown history kind %d", ErrInvalidQoS, int(q.History))
	}
	if q.Liveliness < Automatic || q.Liveliness > ManualByTopic {
		return q, fmt.Errorf("%w: unknown liveliness kind %d", ErrInvalidQoS, int(q.Liveliness))
	}
	switch {
	case q.Depth < 0:
		return q, fmt.Errorf("%w: negative history depth %d", ErrInvalidQoS, q.Depth)
	case q.Depth == 0:
		q.Depth = DefaultDepth
	}
	switch {
	case q.MaxSamples < 0:
		return q, fmt.Errorf("%w: negative MaxSamples %d", ErrInvalidQoS, q.MaxSamples)
	case q.MaxSamples == 0:
		q.MaxSamples = max(DefaultMaxSamples, q.Depth)
	}
	if q.History == KeepLast && q.Depth > q.MaxSamples {
		return q, fmt.Errorf("%w: depth %d above MaxSamples %d", ErrInvalidQoS, q.Depth, q.MaxSamples)
	}
	switch {
	case q.MaxBlocking < 0:
		return q, fmt.Errorf("%w: negative MaxBlocking", ErrInvalidQoS)
	case q.MaxBlocking == 0:
		q.MaxBlocking = DefaultMaxBlocking
	}
	if q.Deadline < 0 || q.Lifespan < 0 || q.LivelinessLease < 0 {
		return q, fmt.Errorf("%w: negative deadline, lifespan or liveliness lease", ErrInvalidQoS)
	}
	if len(q.UserData) > 4096 {
		return q, fmt.Errorf("%w: USER_DATA of %d bytes (at most 4096)", ErrInvalidQoS, len(q.UserData))
	}
	if len(q.Partition) > 64 {
		return q, fmt.Errorf("%w: %d partitions (at most 64)", ErrInvalidQoS, len(q.Partition))
	}
	for _, p := range q.Partition {
		if len(p) > 256 {
			return q, fmt.Errorf("%w: partition name of %d bytes (at most 256)", ErrInvalidQoS, len(p))
		}
	}
	return q, nil
}

// backlog puts before opts the backlog that a reader's sub keeps for its
// first consumer: as deep as the history (KEEP_ALL: MaxSamples, at most
// afor.MaxBacklog).
func (q QoS) backlog(opts []afor.Option) []afor.Option {
	n := q.Depth
	switch {
	case q.History == KeepAll:
		n = min(max(q.MaxSamples, DefaultDepth), afor.MaxBacklog)
	case n <= 0:
		n = DefaultDepth
	}
	return append([]afor.Option{afor.WithBacklog(n)}, opts...)
}

// limit is the number of samples the history holds.
func (q *QoS) limit() int {
	if q.History == KeepLast {
		return q.Depth
	}
	return q.MaxSamples
}
