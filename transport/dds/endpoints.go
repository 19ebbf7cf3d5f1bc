package dds

import (
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/transport/dds/internal/rtps"
)

// NewWriter creates a writer of topic t with QoS q and announces it. The
// zero QoS is the ROS 2 default (RELIABLE, VOLATILE, KEEP_LAST 10).
func NewWriter(p *Participant, t Topic, q QoS) (*Writer, error) {
	if err := t.validate(); err != nil {
		return nil, err
	}
	q, err := q.resolve()
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrClosed
	}
	p.nextKey++
	kind, _ := t.kinds()
	w := newWriter(p, rtps.NewUserEntityID(p.nextKey, kind), t, q, false)
	p.writers[w.guid.Entity] = w
	res := p.remoteOnTopicLocked(t.Name, true)
	p.mu.Unlock()
	ed := p.endpointData(w.guid, t, q)
	p.publish(&ed)
	for _, re := range res {
		p.matchWriter(w, re)
	}
	if q.Liveliness == Automatic && q.LivelinessLease > 0 {
		p.dueBy(time.Now()) // its first liveliness assertion (assertAutomatic)
	}
	return w, nil
}

// NewReader creates a reader of topic t with QoS q and announces it. Its
// samples feed the afor.Sub returned by Sub, built with opts; closing that
// Sub closes the reader. Until its first consumer, the Sub keeps as many
// samples for it as the reader's history holds ([afor.WithBacklog]; opts may
// change that): a transient-local writer's history, which may arrive before
// NewReader returns, is not lost.
func NewReader(p *Participant, t Topic, q QoS, opts ...afor.Option) (*Reader, error) {
	sub := afor.NewSub[Sample](q.backlog(opts)...)
	r, err := newUserReader(p, t, q, func(s *inSample) {
		if s.payload == nil || s.key {
			return
		}
		sub.Input(s.sample())
	})
	if err != nil {
		sub.CloseWithError(err)
		return nil, err
	}
	r.sub = sub
	sub.OnClose(func() { r.Close() })
	return r, nil
}

// sample converts a received sample for delivery.
func (s *inSample) sample() Sample {
	out := Sample{Payload: s.payload, Writer: fromRTPS(s.writer), SN: int64(s.sn)}
	if s.hasTS {
		out.SourceTime = s.ts.Time()
	}
	if s.related != (rtps.SampleIdentity{}) {
		out.Related = identityFromRTPS(s.related)
	}
	return out
}

// newUserReader creates, registers and announces a user reader.
func newUserReader(p *Participant, t Topic, q QoS, deliver func(*inSample)) (*Reader, error) {
	return newUserReaderWith(p, t, q, deliver, nil)
}

// newUserReaderWith is newUserReader with set, if not nil, applied to the
// reader before it is registered.
func newUserReaderWith(p *Participant, t Topic, q QoS, deliver func(*inSample), set func(*Reader)) (*Reader, error) {
	if err := t.validate(); err != nil {
		return nil, err
	}
	q, err := q.resolve()
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrClosed
	}
	p.nextKey++
	_, kind := t.kinds()
	r := newReader(p, rtps.NewUserEntityID(p.nextKey, kind), t, q, false, deliver)
	if set != nil {
		set(r)
	}
	p.readers[r.guid.Entity] = r
	wes := p.remoteOnTopicLocked(t.Name, false)
	p.mu.Unlock()
	for _, re := range wes {
		p.matchReader(r, re)
	}
	ed := p.endpointData(r.guid, t, q)
	p.publish(&ed)
	return r, nil
}

// Sub returns the afor.Sub fed with the reader's samples (nil for a reader
// made by SubscribeCodec or NewReaderFunc).
func (r *Reader) Sub() *afor.Sub[Sample] { return r.sub }

// Close unmatches the reader, announces its end and closes its Sub. It is
// idempotent.
func (r *Reader) Close() error {
	r.p.removeLocalReader(r)
	r.close()
	if r.sub != nil {
		r.sub.Close()
	}
	if r.onClose != nil {
		r.onClose()
	}
	return nil
}

// removeLocalWriter forgets a closed writer and announces its end.
func (p *Participant) removeLocalWriter(w *Writer) {
	p.mu.Lock()
	if p.writers[w.guid.Entity] != w {
		p.mu.Unlock()
		return
	}
	delete(p.writers, w.guid.Entity)
	for _, re := range p.remoteOnTopicLocked(w.topic.Name, true) {
		delete(re.matchedW, w.guid.Entity)
	}
	self := p.forgetEndpointLocked(w.guid)
	if self != nil {
		p.emitLocked(p.endpointEventLocked(EndpointLost, self))
	}
	closed := p.closed
	p.mu.Unlock()
	if self != nil {
		p.unmatchRemote(self)
	}
	if !closed {
		p.unpublish(w.guid)
	}
}

// removeLocalReader forgets a closed reader and announces its end.
func (p *Participant) removeLocalReader(r *Reader) {
	p.mu.Lock()
	if p.readers[r.guid.Entity] != r {
		p.mu.Unlock()
		return
	}
	delete(p.readers, r.guid.Entity)
	for _, re := range p.remoteOnTopicLocked(r.topic.Name, false) {
		re.unmatchReader(r.guid.Entity)
	}
	self := p.forgetEndpointLocked(r.guid)
	if self != nil {
		p.emitLocked(p.endpointEventLocked(EndpointLost, self))
	}
	closed := p.closed
	p.mu.Unlock()
	if self != nil {
		p.unmatchRemote(self)
	}
	if !closed {
		p.unpublish(r.guid)
	}
}
