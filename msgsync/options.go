package msgsync

import (
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/afor-go/afor"
)

// DefaultQueueSize is the queue size of a synchronizer given no
// [QueueSize].
const DefaultQueueSize = 10

// Option configures a synchronizer.
type Option func(*config)

type config struct {
	queueSize      int
	maxInterval    time.Duration
	hasMaxInterval bool
	agePenalty     float64
	lowerBounds    map[int]time.Duration
	approxOnly     string // the first option given that only the approximate policy takes
	logger         *slog.Logger
	subOpts        []afor.Option
}

func collect(opts []Option) *config {
	c := &config{queueSize: DefaultQueueSize}
	for _, o := range opts {
		o(c)
	}
	return c
}

// QueueSize bounds what a synchronizer keeps waiting. For the exact
// policy, it is the number of stamps whose set is incomplete; for the
// approximate policy, the number of messages kept per input. The default
// is [DefaultQueueSize]. A size below 1 is a programming error: QueueSize
// panics.
func QueueSize(n int) Option {
	if n < 1 {
		panic(fmt.Sprintf("msgsync: QueueSize(%d): the queue size must be at least 1", n))
	}
	return func(c *config) { c.queueSize = n }
}

// MaxInterval makes the approximate policy never emit a set whose messages
// are more than d apart (message_filters' max_interval_duration); by
// default any span goes. A negative d is a programming error: MaxInterval
// panics, and so does the exact policy given it.
func MaxInterval(d time.Duration) Option {
	if d < 0 {
		panic(fmt.Sprintf("msgsync: MaxInterval(%v): negative duration", d))
	}
	return func(c *config) {
		c.maxInterval, c.hasMaxInterval = d, true
		c.approxOnly = first(c.approxOnly, "MaxInterval")
	}
}

// AgePenalty makes the approximate policy prefer earlier sets: when the
// spans of two sets are compared, how far the later one reaches past the
// earlier counts (1+p) times (message_filters' age_penalty). A penalty
// above 0 emits sets sooner, at some cost in how close they are. The
// default is 0. A negative, infinite or NaN p is a programming error:
// AgePenalty panics, and so does the exact policy given it.
func AgePenalty(p float64) Option {
	if !(p >= 0) || math.IsInf(p, 1) {
		panic(fmt.Sprintf("msgsync: AgePenalty(%v): the penalty must be finite and at least 0", p))
	}
	return func(c *config) {
		c.agePenalty = p
		c.approxOnly = first(c.approxOnly, "AgePenalty")
	}
}

// InterMessageLowerBound tells the approximate policy that two messages of
// input i (0 for the first input) are stamped at least d apart
// (message_filters' inter-message lower bound). As long as the messages
// keep it, it never changes which sets come out, only how soon: with it, a
// set can be proven best before the next message of every input has
// arrived. A bound the messages break is logged once. A negative d is a programming error and panics, and so
// do an input that does not exist and the exact policy given it.
func InterMessageLowerBound(i int, d time.Duration) Option {
	if d < 0 || i < 0 {
		panic(fmt.Sprintf("msgsync: InterMessageLowerBound(%d, %v): negative input or duration", i, d))
	}
	return func(c *config) {
		if c.lowerBounds == nil {
			c.lowerBounds = map[int]time.Duration{}
		}
		c.lowerBounds[i] = d
		c.approxOnly = first(c.approxOnly, "InterMessageLowerBound")
	}
}

// WithLogger sets the logger for the synchronizer's warnings (a message
// stamped earlier than the previous one of its input, a broken lower
// bound) and debug lines. The default is [slog.Default].
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithSubOptions passes opts to the synchronizer's output sub (its name,
// logger, default queue size).
func WithSubOptions(opts ...afor.Option) Option {
	return func(c *config) { c.subOpts = append(c.subOpts, opts...) }
}

func first(have, name string) string {
	if have != "" {
		return have
	}
	return name
}
