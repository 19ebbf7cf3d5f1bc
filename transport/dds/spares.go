package dds

// sparesMax bounds the payload bytes a writer keeps in spare changes: the
// changes its history dropped, reused for the next samples' copies
// (Writer.keep). A stream of 4 KiB samples through a volatile KEEP_ALL
// history frees them in runs of hundreds at each acknowledgment and takes
// them again as fast: without spares, one allocation (and its clearing
// and collection) per sample took a fifth of a publisher's CPU. The bound
// is what such a history holds at most (unackedBytes), counted as the
// history counts, in payload bytes (not in the capacity of their buffers,
// which Go rounds up to a size class: 4,100 bytes take 4,864, and a bound
// in capacity dropped a sixth of the changes of a full history at each
// acknowledgment, allocated again at the next writes): a writer keeps no
// more than its history needed at its peak. One spare is kept whatever
// its size (a KEEP_LAST writer of camera images swaps its oldest image for
// the newest).
const sparesMax = unackedBytes

// spares are a writer's spare changes, the most recently dropped last.
type spares struct {
	cs    []*change
	bytes int
}

// put keeps c, which the history dropped, if there is room.
func (s *spares) put(c *change) {
	if len(s.cs) > 0 && s.bytes+len(c.payload) > sparesMax {
		return
	}
	s.cs = append(s.cs, c)
	s.bytes += len(c.payload)
}

// get returns the most recently dropped spare change, or nil.
func (s *spares) get() *change {
	n := len(s.cs)
	if n == 0 {
		return nil
	}
	c := s.cs[n-1]
	s.cs[n-1] = nil
	s.cs = s.cs[:n-1]
	s.bytes -= len(c.payload)
	return c
}
