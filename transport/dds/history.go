package dds

import (
	"time"

	"github.com/afor-go/afor/transport/dds/internal/rtps"
)

// change is a sample in a writer's history.
type change struct {
	sn rtps.SequenceNumber
	// payload is the serialized payload (encapsulation header included),
	// owned by the history; nil for a disposal without key payload.
	payload []byte
	// key reports that payload is a serialized key (a disposal).
	key bool
	// inline is the inline QoS (ParameterList with SENTINEL) or nil.
	inline []byte
	// instance is the instance a keyed builtin change belongs to.
	instance rtps.GUID
	ts       rtps.Time
	expires  time.Time // zero: never (lifespan)
	// resentTo is the reader the change was last resent to, at resentAt
	// (resendQuiet).
	resentTo *readerProxy
	resentAt time.Time
}

// history holds a writer's changes in increasing SN order.
type history struct {
	changes []*change
	bytes   int // the payload bytes of changes
}

func (h *history) len() int { return len(h.changes) }

// first returns the lowest SN held, or next when empty.
func (h *history) first(next rtps.SequenceNumber) rtps.SequenceNumber {
	if len(h.changes) == 0 {
		return next
	}
	return h.changes[0].sn
}

// get returns the change with sn, or nil.
func (h *history) get(sn rtps.SequenceNumber) *change {
	cs := h.changes
	lo, hi := 0, len(cs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if cs[m].sn < sn {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(cs) && cs[lo].sn == sn {
		return cs[lo]
	}
	return nil
}

func (h *history) add(c *change) {
	h.changes = append(h.changes, c)
	h.bytes += len(c.payload)
}

// dropFirst removes the oldest change and returns it.
func (h *history) dropFirst() *change {
	c := h.changes[0]
	h.bytes -= len(c.payload)
	h.changes[0] = nil
	h.changes = h.changes[1:]
	if cap(h.changes) > 64 && len(h.changes) < cap(h.changes)/4 {
		h.changes = append([]*change(nil), h.changes...)
	}
	return c
}

// removeInstance removes the change of instance g, if any.
func (h *history) removeInstance(g rtps.GUID) {
	for i, c := range h.changes {
		if c.instance == g {
			h.bytes -= len(c.payload)
			h.changes = append(h.changes[:i], h.changes[i+1:]...)
			return
		}
	}
}

// dropExpired removes the changes whose lifespan ended before now.
func (h *history) dropExpired(now time.Time) {
	out := h.changes[:0]
	h.bytes = 0
	for _, c := range h.changes {
		if c.expires.IsZero() || now.Before(c.expires) {
			out = append(out, c)
			h.bytes += len(c.payload)
		}
	}
	clear(h.changes[len(out):])
	h.changes = out
}
