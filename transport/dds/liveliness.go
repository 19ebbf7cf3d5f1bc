package dds

import (
	"context"
	"errors"
	"time"

	"github.com/afor-go/afor/transport/dds/internal/rtps"
)

// Liveliness: the Writer Liveliness Protocol (WLP, RTPS 2.5 §8.4.13) and
// the liveliness of the writers a reader is matched with.
//
// A writer announces its LIVELINESS kind and lease through SEDP. A reader
// counts each matched writer alive from the match on, and not alive once
// a lease goes by without an assertion; an assertion brings it back. What
// asserts a writer: any DATA, DATA_FRAG or (AUTOMATIC writers) HEARTBEAT
// it sends, and a ParticipantMessageData of its participant on the WLP
// builtin topic (AUTOMATIC kind for AUTOMATIC writers, MANUAL kind for
// MANUAL_BY_PARTICIPANT ones), as Fast DDS and Cyclone DDS send them.
//
// The participant's own WLP writer sends an AUTOMATIC assertion every
// third of the shortest lease of its AUTOMATIC writers, so that the
// readers of other vendors keep them alive.

// wlpMessageLen is the length of a ParticipantMessageData as Fast DDS
// sends it: encapsulation, GUID prefix, kind, data length, and 4 bytes of
// padding.
const wlpMessageLen = 4 + 12 + 4 + 4 + 4

// The ParticipantMessageData kinds of WLP.
var (
	wlpAutomatic = rtps.EntityID{0, 0, 0, 1}
	wlpManual    = rtps.EntityID{0, 0, 0, 2}
)

// newWLPEndpoints creates the WLP builtin writer and reader.
func (p *Participant) newWLPEndpoints() {
	q := QoS{Reliability: Reliable, Durability: TransientLocal, History: KeepAll, MaxSamples: 1000}
	q, _ = q.resolve()
	t := Topic{Name: "DCPSParticipantMessage", TypeName: "ParticipantMessageData"}
	p.wlpW = newWriter(p, rtps.EntityWLPWriter, t, q, true)
	p.wlpR = newReader(p, rtps.EntityWLPReader, t, q, true, p.onWLP)
}

// onWLP handles a ParticipantMessageData: it asserts the liveliness of the
// sending participant's writers of the kind it names.
func (p *Participant) onWLP(s *inSample) {
	prefix, lk, ok, err := parseWLP(s.payload, s.key)
	if err != nil {
		p.stats.malformed.Add(1)
		return
	}
	if !ok || prefix == p.prefix || prefix != s.writer.Prefix {
		return
	}
	p.mu.RLock()
	rs := make([]*Reader, 0, len(p.readers))
	for _, r := range p.readers {
		rs = append(rs, r)
	}
	p.mu.RUnlock()
	now := time.Now()
	for _, r := range rs {
		r.assertParticipant(prefix, lk, now)
	}
}

// parseWLP reads a ParticipantMessageData (or its key, for a key-only
// sample): the participant it asserts and the liveliness kind. ok is false
// for a kind WLP does not define (a vendor's own); a message too short for
// its data is an error.
func parseWLP(payload []byte, key bool) (prefix rtps.GuidPrefix, lk LivelinessKind, ok bool, err error) {
	min := 4 + 12 + 4 + 4 // encapsulation, prefix, kind, data length
	if key {
		min = 4 + 12 + 4
	}
	if len(payload) < min {
		return prefix, 0, false, errWLPShort
	}
	copy(prefix[:], payload[4:16])
	var kind rtps.EntityID
	copy(kind[:], payload[16:20])
	if !key {
		n := uint32(payload[20]) | uint32(payload[21])<<8 | uint32(payload[22])<<16 | uint32(payload[23])<<24
		if payload[1]&1 == 0 { // big endian
			n = uint32(payload[20])<<24 | uint32(payload[21])<<16 | uint32(payload[22])<<8 | uint32(payload[23])
		}
		if uint64(n) > uint64(len(payload)-min) {
			return prefix, 0, false, errWLPShort
		}
	}
	switch kind {
	case wlpAutomatic:
		return prefix, Automatic, true, nil
	case wlpManual:
		return prefix, ManualByParticipant, true, nil
	}
	return prefix, 0, false, nil
}

// errWLPShort is the error of a ParticipantMessageData shorter than its
// fields.
var errWLPShort = errors.New("dds: ParticipantMessageData too short")

// assertParticipant asserts the liveliness of the matched writers of the
// participant prefix whose kind is lk.
func (r *Reader) assertParticipant(prefix rtps.GuidPrefix, lk LivelinessKind, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	changed := false
	for g, wp := range r.proxies {
		if g.Prefix == prefix && wp.liveKind == lk {
			changed = r.assertLocked(wp, now) || changed
		}
	}
	if changed {
		r.updateLivelinessLocked()
	}
}

// assertLocked records an assertion of wp's liveliness at now and reports
// whether it came back to life. Call with r.mu held.
func (r *Reader) assertLocked(wp *writerProxy, now time.Time) bool {
	wp.lastAssert = now
	if wp.alive {
		return false
	}
	wp.alive = true
	return true
}

// assertWriter is assertLocked for a sample or HEARTBEAT from wp, which
// updates the status if wp came back to life.
func (r *Reader) assertWriter(wp *writerProxy) {
	if wp.lease == 0 && wp.alive {
		return // nothing to track
	}
	if r.assertLocked(wp, time.Now()) {
		r.updateLivelinessLocked()
	}
}

// updateLivelinessLocked counts the alive and not alive writers into the
// status. Call with r.mu held.
func (r *Reader) updateLivelinessLocked() {
	alive, notAlive := 0, 0
	for _, wp := range r.proxies {
		if wp.alive {
			alive++
		} else {
			notAlive++
		}
	}
	r.status.setLiveliness(alive, notAlive)
}

// expireLivelinessLocked marks not alive the writers whose lease went by
// without an assertion, and returns when the next lease could run out
// (zero if none). Call with r.mu held.
func (r *Reader) expireLivelinessLocked(now time.Time) time.Time {
	var next time.Time
	changed := false
	for _, wp := range r.proxies {
		if wp.lease == 0 || !wp.alive {
			continue
		}
		end := wp.lastAssert.Add(wp.lease)
		if now.After(end) {
			wp.alive = false
			changed = true
			continue
		}
		next = earliest(next, end.Add(time.Millisecond))
	}
	if changed {
		r.updateLivelinessLocked()
	}
	return next
}

// assertAutomatic sends the participant's AUTOMATIC liveliness assertion
// when one is due, and returns when the next one is (zero if none: no
// writer of the participant has an AUTOMATIC finite lease).
func (p *Participant) assertAutomatic(now time.Time) time.Time {
	p.mu.RLock()
	var lease time.Duration
	for _, w := range p.writers {
		if w.qos.Liveliness == Automatic && w.qos.LivelinessLease > 0 && (lease == 0 || w.qos.LivelinessLease < lease) {
			lease = w.qos.LivelinessLease
		}
	}
	p.mu.RUnlock()
	if lease == 0 {
		return time.Time{}
	}
	period := max(lease/3, tickPeriod)
	p.wlpMu.Lock()
	due := !now.Before(p.wlpNext)
	if due {
		p.wlpNext = now.Add(period)
	} else if p.wlpNext.Sub(now) > period { // a shorter lease appeared
		p.wlpNext, due = now.Add(period), true
	}
	next := p.wlpNext
	p.wlpMu.Unlock()
	if due {
		payload := make([]byte, wlpMessageLen)
		payload[1] = 0x01 // CDR_LE
		copy(payload[4:16], p.prefix[:])
		copy(payload[16:20], wlpAutomatic[:])
		_, _ = p.wlpW.write(context.Background(), &change{
			payload: payload, instance: rtps.GUID{Prefix: p.prefix, Entity: wlpAutomatic}, ts: rtps.TimeFrom(now),
		}, true, now)
	}
	return next
}
