package dds

import (
	"context"
	"fmt"
	"time"

	"github.com/afor-go/afor/transport/dds/internal/rtps"
)

// SampleIdentity names a sample by its writer's GUID and the sequence
// number the writer gave it, as DDS-RPC does to tie a reply to its
// request. The zero SampleIdentity means none.
type SampleIdentity struct {
	Writer GUID
	SN     int64
}

// SNUnknown is SEQUENCENUMBER_UNKNOWN ({-1, 0}), the sequence number of a
// related sample identity that names an entity rather than a sample (a
// Fast DDS service client names its reply reader this way).
const SNUnknown int64 = -1 << 32

// IsZero reports whether si is the zero SampleIdentity.
func (si SampleIdentity) IsZero() bool { return si == SampleIdentity{} }

func (si SampleIdentity) wire() rtps.SampleIdentity {
	return rtps.SampleIdentity{Writer: rtps.GUIDFromBytes(si.Writer[:]), SN: rtps.SequenceNumber(si.SN)}
}

func identityFromRTPS(si rtps.SampleIdentity) SampleIdentity {
	return SampleIdentity{Writer: fromRTPS(si.Writer), SN: int64(si.SN)}
}

// WriteRelated writes payload as Write does, with related carried as the
// sample's inline RELATED_SAMPLE_IDENTITY, in both its standard (0x0083)
// and its eProsima (0x800f) parameter, as rmw_fastrtps writes service
// requests and replies. It returns the identity of the written sample
// (this writer's GUID and the sample's sequence number).
func (w *Writer) WriteRelated(ctx context.Context, payload []byte, related SampleIdentity) (SampleIdentity, error) {
	if len(payload) > w.p.cfg.maxSample {
		return SampleIdentity{}, ErrTooLarge
	}
	var pw rtps.PLWriter
	pw.Reset(make([]byte, 0, 2*28+4))
	ri := related.wire()
	pw.SampleIdentity(rtps.PIDRelatedSampleIdentity, ri)
	pw.SampleIdentity(rtps.PIDCustomRelatedSampleIdentity, ri)
	pw.Sentinel()
	now := time.Now()
	c := &change{payload: payload, inline: pw.Bytes(), ts: rtps.TimeFrom(now)}
	if _, err := w.write(ctx, c, false, now); err != nil {
		return SampleIdentity{}, err
	}
	return SampleIdentity{Writer: w.GUID(), SN: int64(c.sn)}, nil
}

// MatchedReader reports whether the writer is matched with reader g.
func (w *Writer) MatchedReader(g GUID) bool {
	rg := rtps.GUIDFromBytes(g[:])
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.proxy(rg) != nil
}

// WaitMatchedReader waits until the writer is matched with reader g (as a
// Fast DDS service server waits for a client's reply reader before it
// answers). It fails with ErrClosed when the writer closes, or with ctx's
// cause.
func (w *Writer) WaitMatchedReader(ctx context.Context, g GUID) error {
	for {
		w.status.mu.Lock()
		ch, closed := w.status.changed, w.status.closed
		w.status.mu.Unlock()
		if w.MatchedReader(g) {
			return nil
		}
		if closed {
			return ErrClosed
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// NewReaderFunc creates a reader of topic t with QoS q that hands every
// sample to fn, in order per writer: on the participant's receive
// goroutine, or, for a writer of the same participant, on the goroutine
// delivering in memory (see the package documentation). fn must return
// quickly and must not close the reader; the sample's Payload belongs to
// fn. The reader has no Sub.
func NewReaderFunc(p *Participant, t Topic, q QoS, fn func(Sample)) (*Reader, error) {
	if fn == nil {
		return nil, fmt.Errorf("dds: NewReaderFunc: nil fn")
	}
	return newUserReader(p, t, q, func(s *inSample) {
		if s.payload == nil || s.key {
			return
		}
		fn(s.sample())
	})
}

// NewReaderLoan is [NewReaderFunc] whose fn borrows each sample: its
// Payload is valid only until fn returns, after which the reader reuses
// the memory (the received datagram, or the buffer a fragmented sample
// was reassembled in), so fn must copy what it keeps. A sample then costs
// no allocation and no copy of its payload, as with Cyclone DDS's loans;
// a sample received out of order is still copied while it waits.
func NewReaderLoan(p *Participant, t Topic, q QoS, fn func(Sample)) (*Reader, error) {
	if fn == nil {
		return nil, fmt.Errorf("dds: NewReaderLoan: nil fn")
	}
	return newUserReaderWith(p, t, q, func(s *inSample) {
		if s.payload == nil || s.key {
			return
		}
		fn(s.sample())
	}, func(r *Reader) { r.loan = true })
}

// keepInline records what s needs of a DATA's inline QoS: a builtin
// reader keeps the raw parameters (for disposals), a user reader the
// related sample identity. Inline QoS that does not parse is counted as
// malformed and ignored; the sample is still delivered.
func (r *Reader) keepInline(s *inSample, c *rtps.Context, inline []byte, le bool) {
	if inline == nil {
		return
	}
	if r.builtin {
		s.inline, s.inlineLE = append([]byte(nil), inline...), le
		return
	}
	q, err := rtps.ParseInlineQoS(inline, le, c.SourceVendor)
	if err != nil {
		r.p.stats.malformed.Add(1)
		return
	}
	if q.HasRelated {
		s.related = q.Related
	}
}
