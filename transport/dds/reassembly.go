package dds

import (
	"time"

	"github.com/afor-go/afor/transport/dds/internal/rtps"
)

// reassembly collects the fragments of one sample by offset straight into
// the buffer that becomes the sample's payload.
type reassembly struct {
	buf      []byte
	fragSize int
	nfrags   uint32
	got      []uint64 // bit n-1 set: fragment n received
	have     uint32
	started  time.Time
}

// newReassembly starts reassembling the sample of d, or returns nil if it
// is malformed or beyond the participant's size or memory limits.
func (p *Participant) newReassembly(d *rtps.DataFrag) *reassembly {
	size := int(d.SampleSize)
	if d.FragSize == 0 || size == 0 || size > p.cfg.maxSample {
		p.stats.dropped.Add(1)
		return nil
	}
	if p.reasmBytes.Add(int64(size)) > int64(p.cfg.maxReassemblyBytes) {
		p.reasmBytes.Add(-int64(size))
		p.stats.dropped.Add(1)
		return nil
	}
	n := uint32((size + int(d.FragSize) - 1) / int(d.FragSize))
	return &reassembly{
		buf: make([]byte, size), fragSize: int(d.FragSize), nfrags: n,
		got: make([]uint64, (n+63)/64), started: time.Now(),
	}
}

// releaseReassembly returns ra's bytes to the participant's budget.
func (p *Participant) releaseReassembly(ra *reassembly) {
	if ra != nil && ra.fragSize != 0 {
		p.reasmBytes.Add(-int64(len(ra.buf)))
		ra.fragSize = 0
	}
}

// add copies the fragments of d; it reports whether the sample is
// complete. Fragments inconsistent with the first are ignored.
func (ra *reassembly) add(d *rtps.DataFrag) bool {
	if int(d.FragSize) != ra.fragSize || int(d.SampleSize) != len(ra.buf) {
		return false
	}
	src := d.Payload
	for i := range uint32(d.FragsInSubmsg) {
		n := d.FragStart + i
		if n < 1 || n > ra.nfrags || len(src) == 0 {
			break
		}
		off := int(n-1) * ra.fragSize
		want := min(ra.fragSize, len(ra.buf)-off)
		if len(src) < want {
			break
		}
		if ra.got[(n-1)/64]&(1<<((n-1)%64)) == 0 {
			copy(ra.buf[off:off+want], src[:want])
			ra.got[(n-1)/64] |= 1 << ((n - 1) % 64)
			ra.have++
		}
		src = src[min(ra.fragSize, len(src)):]
	}
	return ra.have == ra.nfrags
}

// missing returns the set of missing fragments, from the first missing
// one (at most 256).
func (ra *reassembly) missing() rtps.FNSet {
	var s rtps.FNSet
	for n := uint32(1); n <= ra.nfrags; n++ {
		if ra.got[(n-1)/64]&(1<<((n-1)%64)) != 0 {
			continue
		}
		if s.Base == 0 {
			s.Base = n
		}
		if !s.Set(n) {
			break
		}
	}
	if s.Base == 0 {
		s.Base = ra.nfrags + 1
	}
	return s
}
