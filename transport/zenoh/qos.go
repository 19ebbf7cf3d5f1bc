package zenoh

import (
	"fmt"
	"strconv"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// CongestionControl tells what a publication does when a link's transmit
// queue is full (the remote node, or the network, does not keep up).
type CongestionControl int

const (
	// CongestionDrop, the default for publications as in Rust Zenoh, waits
	// briefly (DropWait) for room and then drops the sample for that link;
	// Put still returns nil, and Publisher.Dropped counts the loss.
	CongestionDrop CongestionControl = iota
	// CongestionBlock waits for room, as long as the Put's ctx allows
	// (returning ctx's error if it ends first): nothing is dropped, and a
	// slow subscriber slows the publisher down. rmw_zenoh uses it for
	// KEEP_ALL publishers, and Rust Zenoh for queries and replies.
	CongestionBlock
)

// String returns "drop" or "block".
func (c CongestionControl) String() string {
	switch c {
	case CongestionDrop:
		return "drop"
	case CongestionBlock:
		return "block"
	}
	return "CongestionControl(" + strconv.Itoa(int(c)) + ")"
}

// DropWait is how long a CongestionDrop publication waits for room in a
// full transmit queue before it drops the sample (Rust Zenoh's
// congestion_control.drop.wait_before_drop).
const DropWait = time.Millisecond

// DropWaitFragments is how long a CongestionDrop publication too large for
// one batch (sent in fragments) waits for room before it is dropped: the
// cap of Rust Zenoh's deadline for multi-fragment messages
// (congestion_control.drop.max_wait_before_drop_fragments). With DropWait
// alone a camera image would be dropped whenever the link still carried
// the previous one.
const DropWaitFragments = 50 * time.Millisecond

// Priority is a Zenoh message priority, carried in the QoS extension of
// samples, queries and replies. PriorityRealTime is the highest,
// PriorityBackground the lowest; PriorityData is the default. (Priority 0,
// Control, is reserved for Zenoh's own messages.)
type Priority uint8

// Priorities a publication may take.
const (
	PriorityRealTime        Priority = 1
	PriorityInteractiveHigh Priority = 2
	PriorityInteractiveLow  Priority = 3
	PriorityDataHigh        Priority = 4
	PriorityData            Priority = 5
	PriorityDataLow         Priority = 6
	PriorityBackground      Priority = 7
)

// String returns the priority's name as Rust Zenoh spells it
// ("real_time", "data", ...).
func (p Priority) String() string {
	switch p {
	case PriorityRealTime:
		return "real_time"
	case PriorityInteractiveHigh:
		return "interactive_high"
	case PriorityInteractiveLow:
		return "interactive_low"
	case PriorityDataHigh:
		return "data_high"
	case PriorityData:
		return "data"
	case PriorityDataLow:
		return "data_low"
	case PriorityBackground:
		return "background"
	}
	return "Priority(" + strconv.Itoa(int(p)) + ")"
}

// WithCongestionControl sets what a publication does when a link's
// transmit queue is full (default CongestionDrop).
func WithCongestionControl(c CongestionControl) PutOption {
	return func(o *putOptions) { o.cc = c }
}

// WithPriority sets the priority carried by the samples (default
// PriorityData). Receivers and routers with priority lanes honour it; the
// links of this package have a single lane, so it does not reorder what
// this session sends.
func WithPriority(p Priority) PutOption { return func(o *putOptions) { o.prio = p } }

// WithExpress marks the samples express: each is written to the socket at
// once when the link is free, rather than possibly waiting to be batched
// with the next ones, and routers forward it the same way.
func WithExpress(express bool) PutOption { return func(o *putOptions) { o.express = express } }

// wireQoS checks the QoS options and returns their wire form.
func (o *putOptions) wireQoS() (wire.QoS, error) {
	p := o.prio
	if p == 0 {
		p = PriorityData
	}
	if p > PriorityBackground {
		return 0, fmt.Errorf("%w: priority %v", ErrInvalidQoS, p)
	}
	if o.cc != CongestionDrop && o.cc != CongestionBlock {
		return 0, fmt.Errorf("%w: %v", ErrInvalidQoS, o.cc)
	}
	return wire.NewQoS(wire.Priority(p), o.cc == CongestionBlock, o.express), nil
}

// qosQueryReply is the QoS of queries and replies: priority Data,
// congestion Block, as Rust Zenoh (and so rmw_zenoh) sends them.
var qosQueryReply = wire.NewQoS(wire.PriorityData, true, false)
