package mcap

import (
	"cmp"
	"container/heap"
	"encoding/binary"
	"fmt"
	"iter"
	"slices"
)

// ReadOptions select the messages [Reader.Messages] yields.
type ReadOptions struct {
	// Channels lists the channels to read; nil reads them all.
	Channels []uint16
	// Start and End bound the log times read: Start <= t < End. An End
	// of 0 means no end.
	Start, End uint64
}

func (o *ReadOptions) wants(t uint64) bool {
	return t >= o.Start && (o.End == 0 || t < o.End)
}

// cursor walks the selected messages of one loaded segment.
type cursor struct {
	msgs  []Message
	pos   int
	order int // the segment's position in the file, to break ties
	size  int64
}

type cursorHeap []*cursor

func (h cursorHeap) Len() int { return len(h) }
func (h cursorHeap) Less(i, j int) bool {
	a, b := h[i].msgs[h[i].pos].LogTime, h[j].msgs[h[j].pos].LogTime
	if a != b {
		return a < b
	}
	return h[i].order < h[j].order
}
func (h cursorHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *cursorHeap) Push(x any)   { *h = append(*h, x.(*cursor)) }
func (h *cursorHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

// Messages yields the selected messages in log-time order, messages of
// equal times in file order. Chunks are read one after the other as the
// merge reaches their start time, so only chunks whose times overlap are
// held at once (within Limits.MaxBuffered: beyond, an error matching
// ErrLimit ends the iteration). A damaged chunk is yielded as an error in
// its place, with the messages before the damage, and the iteration goes
// on; the damage found when opening the file (a truncated data section)
// is yielded last. Message data are views of a buffer that nothing
// writes again: read-only, and the caller may keep them.
//
// A Reader is not safe for concurrent use, but any number of iterations
// may run one after the other.
func (rd *Reader) Messages(o ReadOptions) iter.Seq2[Message, error] {
	return func(yield func(Message, error) bool) {
		var want map[uint16]bool
		if o.Channels != nil {
			want = map[uint16]bool{}
			for _, id := range o.Channels {
				want[id] = true
			}
		}
		var segs []int
		for i, s := range rd.segments {
			if s.bad == nil {
				if o.End != 0 && s.startTime >= o.End || s.endTime < o.Start {
					continue
				}
				if want != nil && s.channels != nil && !anyWanted(s.channels, want) {
					continue
				}
			}
			segs = append(segs, i)
		}
		slices.SortStableFunc(segs, func(a, b int) int { return cmp.Compare(rd.segments[a].startTime, rd.segments[b].startTime) })
		var h cursorHeap
		var buffered int64
		next := 0
		for {
			for next < len(segs) && (len(h) == 0 || rd.segments[segs[next]].startTime <= h[0].msgs[h[0].pos].LogTime) {
				i := segs[next]
				next++
				seg := &rd.segments[i]
				if seg.bad != nil {
					if !yield(Message{}, seg.bad) {
						return
					}
					continue
				}
				msgs, size, err := rd.load(seg, &o, want)
				if size+buffered > rd.lim.MaxBuffered && len(h) > 0 {
					yield(Message{}, fmt.Errorf("%w: more than %d bytes of chunks overlap in time (the limit of chunks held at once to merge them)", ErrLimit, rd.lim.MaxBuffered))
					return
				}
				if err != nil && !yield(Message{}, err) {
					return
				}
				if len(msgs) > 0 {
					buffered += size
					heap.Push(&h, &cursor{msgs: msgs, order: i, size: size})
				}
			}
			if len(h) == 0 {
				break
			}
			c := h[0]
			m := c.msgs[c.pos]
			c.msgs[c.pos] = Message{}
			c.pos++
			if c.pos == len(c.msgs) {
				heap.Pop(&h)
				buffered -= c.size
			} else {
				heap.Fix(&h, 0)
			}
			if !yield(m, nil) {
				return
			}
		}
		for _, p := range rd.Problems {
			if !yield(Message{}, p) {
				return
			}
		}
	}
}

func anyWanted(have, want map[uint16]bool) bool {
	for id := range have {
		if want[id] {
			return true
		}
	}
	return false
}

// load reads a segment's selected messages, sorted by log time (stable:
// file order among equal times), and the bytes they hold on to. The
// messages before a damage are returned with the error.
func (rd *Reader) load(seg *segment, o *ReadOptions, want map[uint16]bool) ([]Message, int64, error) {
	var records []byte
	if seg.chunk {
		var hb [recordHeaderLen]byte
		if _, err := rd.r.ReadAt(hb[:], int64(seg.offset)); err != nil {
			return nil, 0, fmt.Errorf("mcap: chunk at %d: %w", seg.offset, err)
		}
		if hb[0] != OpChunk || binary.LittleEndian.Uint64(hb[1:]) != seg.length-recordHeaderLen {
			return nil, 0, fmt.Errorf("%w: the chunk index points at %d, where there is no chunk record of %d bytes", ErrCorrupt, seg.offset, seg.length)
		}
		_, r, err := rd.readChunk(seg.offset, seg.length-recordHeaderLen)
		if err != nil {
			return nil, 0, err
		}
		records = r
	} else {
		if seg.length > uint64(rd.lim.MaxRecord)+runMax {
			return nil, 0, fmt.Errorf("%w: records of %d bytes at %d, the limit is %d", ErrLimit, seg.length, seg.offset, rd.lim.MaxRecord)
		}
		records = make([]byte, seg.length)
		if _, err := rd.r.ReadAt(records, int64(seg.offset)); err != nil {
			return nil, 0, fmt.Errorf("mcap: records at %d: %w", seg.offset, err)
		}
	}
	var msgs []Message
	unknown := 0
	err := forRecords(records, func(op byte, content []byte, _ int) error {
		if op != OpMessage {
			return nil
		}
		m, err := ParseMessage(content)
		if err != nil {
			return err
		}
		if want != nil && !want[m.ChannelID] || !o.wants(m.LogTime) {
			return nil
		}
		if rd.Channels[m.ChannelID] == nil {
			unknown++
			return nil
		}
		m.Data = m.Data[:len(m.Data):len(m.Data)]
		msgs = append(msgs, m)
		return nil
	})
	if err != nil {
		where := "chunk"
		if !seg.chunk {
			where = "records"
		}
		err = fmt.Errorf("%s at %d: %w", where, seg.offset, err)
	} else if unknown > 0 {
		err = fmt.Errorf("%w: %d messages at %d on channels the file does not define", ErrCorrupt, unknown, seg.offset)
	}
	if !slices.IsSortedFunc(msgs, func(a, b Message) int { return cmp.Compare(a.LogTime, b.LogTime) }) {
		slices.SortStableFunc(msgs, func(a, b Message) int { return cmp.Compare(a.LogTime, b.LogTime) })
	}
	return msgs, int64(len(records)), err
}
