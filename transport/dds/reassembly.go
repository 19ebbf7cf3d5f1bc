package dds

import (
	"math/bits"
	"time"

	"github.com/afor-go/afor/transport/dds/internal/rtps"
)

// reassembly collects the fragments of one sample by offset straight into
// the buffer that becomes the sample's payload. The buffer (and the
// bitmap of fragments received) grow as fragments arrive, not to the
// announced sample size at once: a DATA_FRAG that announces 64 MiB and
// carries 2 bytes costs 2 bytes. What they hold is charged to the writer
// proxy's budget and to the participant's (Limits.MaxReassemblyBytes*).
// A writer that completed a sample of at least this size before gets its
// buffer in one allocation (no copy as it grows).
type reassembly struct {
	buf      []byte // len(buf) == cap(buf): the bytes allocated so far
	size     int    // the sample's size
	fragSize int
	nfrags   uint32
	got      []uint64 // bit n-1 set: fragment n received (grown as needed)
	have     uint32
	received int // bytes received (eviction: the least advanced goes first)
	charged  int // bytes charged to the budgets: cap(buf) + 8·cap(got)
	started  time.Time
	// ts is the source timestamp of the first fragment that came with
	// one: Cyclone puts INFO_TS only before a sample's first fragment.
	ts    rtps.Time
	hasTS bool
}

// reasmBudget is what a reassembly charges: the writer proxy's count and
// limit, and the participant's.
type reasmBudget struct {
	p      *Participant
	writer *int
	limit  int
	spare  *[]byte // a loaning reader's spare buffer (Reader.spare), or nil
}

// charge takes n more bytes from the budgets, or reports which limit
// refuses them.
func (b reasmBudget) charge(n int) string {
	if *b.writer+n > b.limit {
		return LimitReassemblyBytesPerWriter
	}
	if b.p.reasmBytes.Add(int64(n)) > int64(b.p.cfg.lim.MaxReassemblyBytes) {
		b.p.reasmBytes.Add(-int64(n))
		return LimitReassemblyBytes
	}
	*b.writer += n
	return ""
}

// release returns ra's bytes to the budgets.
func (b reasmBudget) release(ra *reassembly) {
	if ra == nil || ra.charged == 0 {
		return
	}
	*b.writer -= ra.charged
	b.p.reasmBytes.Add(-int64(ra.charged))
	ra.charged = 0
}

// newReassembly starts reassembling the sample of d, or returns nil if it
// is malformed or beyond the participant's size limit. prealloc is the
// size of the largest sample the writer completed: up to it, the buffer
// is allocated whole at the first fragment.
func (p *Participant) newReassembly(d *rtps.DataFrag, maxSample int) *reassembly {
	size := int(d.SampleSize)
	if d.FragSize == 0 || size == 0 || size > maxSample {
		p.stats.dropped.Add(1)
		return nil
	}
	n := uint32((size + int(d.FragSize) - 1) / int(d.FragSize))
	return &reassembly{size: size, fragSize: int(d.FragSize), nfrags: n, started: time.Now()}
}

// grow makes room for the bytes up to end and the bits up to fragment n,
// within budget. whole allocates the full sample at once.
func (ra *reassembly) grow(end int, n uint32, whole bool, b reasmBudget) string {
	if end > len(ra.buf) {
		c := min(ra.size, max(end, 2*len(ra.buf)))
		if whole {
			c = ra.size
		}
		if why := b.charge(c - len(ra.buf)); why != "" {
			return why
		}
		ra.charged += c - len(ra.buf)
		var nb []byte
		if whole && b.spare != nil && cap(*b.spare) >= c {
			// A loaning reader's last delivered sample: every byte of
			// it is overwritten before this one is delivered.
			nb, *b.spare = (*b.spare)[:c], nil
		} else {
			nb = make([]byte, c)
		}
		copy(nb, ra.buf)
		ra.buf = nb
	}
	if w := int((n + 63) / 64); w > len(ra.got) {
		c := min(int((ra.nfrags+63)/64), max(w, 2*len(ra.got)))
		if why := b.charge(8 * (c - len(ra.got))); why != "" {
			return why
		}
		ra.charged += 8 * (c - len(ra.got))
		ng := make([]uint64, c)
		copy(ng, ra.got)
		ra.got = ng
	}
	return ""
}

// add copies the fragments of d; it reports whether the sample is
// complete, and the limit that refused a fragment, if any. Fragments
// inconsistent with the first are ignored.
func (ra *reassembly) add(d *rtps.DataFrag, whole bool, b reasmBudget) (done bool, refused string) {
	if int(d.FragSize) != ra.fragSize || int(d.SampleSize) != ra.size {
		return false, ""
	}
	src := d.Payload
	for i := range uint32(d.FragsInSubmsg) {
		n := d.FragStart + i
		if n < 1 || n > ra.nfrags || len(src) == 0 {
			break
		}
		off := int(n-1) * ra.fragSize
		want := min(ra.fragSize, ra.size-off)
		if len(src) < want {
			break
		}
		if int((n-1)/64) >= len(ra.got) || ra.got[(n-1)/64]&(1<<((n-1)%64)) == 0 {
			if why := ra.grow(off+want, n, whole, b); why != "" {
				return false, why
			}
			copy(ra.buf[off:off+want], src[:want])
			ra.got[(n-1)/64] |= 1 << ((n - 1) % 64)
			ra.have++
			ra.received += want
		}
		src = src[min(ra.fragSize, len(src)):]
	}
	return ra.have == ra.nfrags, ""
}

// missing returns the set of missing fragments, from the first missing
// one (at most 256).
func (ra *reassembly) missing() rtps.FNSet {
	var s rtps.FNSet
	// The first missing fragment: skip the full words of the bitmap.
	first := uint32(len(ra.got)) * 64
	for w, word := range ra.got {
		if word != ^uint64(0) {
			first = uint32(w)*64 + uint32(bits.TrailingZeros64(^word))
			break
		}
	}
	first++ // 1-based
	if first > ra.nfrags {
		s.Base = ra.nfrags + 1
		return s
	}
	s.Base = first
	for n := first; n <= ra.nfrags && n-first < 256; n++ {
		if int((n-1)/64) < len(ra.got) && ra.got[(n-1)/64]&(1<<((n-1)%64)) != 0 {
			continue
		}
		s.Set(n)
	}
	return s
}
