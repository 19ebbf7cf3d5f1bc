package dds

import "github.com/afor-go/afor/transport/dds/internal/rtps"

// Flow control of a volatile KEEP_ALL writer. Its history holds what its
// reliable readers have not acknowledged, and a write waits once that is
// more than the writer's window of bytes (Writer.overBytes). The window
// starts at unackedBytes and adapts as TCP's congestion window does: a
// NACK of a sample written after the last change of the window (a reader
// lost data: usually its socket's receive buffer overflowed) halves it,
// down to windowMin; an acknowledgment without a NACK of every sample
// written up to the last change adds windowStep, up to unackedBytes: one
// step per round trip of the whole window. A reader with a large receive buffer
// (a Go one asks for 8 MiB) never NACKs and keeps the writer at full
// window; one with a small buffer (Cyclone DDS asks for 1-2 MiB) settles
// the writer where it loses nothing, instead of having a third of a 4 KiB
// stream sent twice.
const (
	windowMin  = 256 << 10
	windowStep = 16 << 10
)

// flowWindow is a writer's window (see above).
type flowWindow struct {
	size int
	// changedAt is the last SN written when the window last changed:
	// NACKs up to it come from a loss already counted, and the window
	// grows once acknowledgments pass it.
	changedAt rtps.SequenceNumber
}

// lost records a NACK of sn (w.mu held).
func (w *Writer) lost(sn rtps.SequenceNumber) {
	if sn <= w.win.changedAt {
		return
	}
	w.win.size = max(windowMin, w.win.size/2)
	w.win.changedAt = w.lastSN
}

// ackedClean records an acknowledgment without a NACK of every sample
// before base (w.mu held).
func (w *Writer) ackedClean(base rtps.SequenceNumber) {
	if base <= w.win.changedAt || w.win.size >= unackedBytes {
		return
	}
	w.win.size = min(unackedBytes, w.win.size+windowStep)
	w.win.changedAt = w.lastSN
}
