package dds

import (
	"context"
	"net/netip"
	"sync"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/transport/dds/internal/rtps"
)

// Reader-side limits and timing.
const (
	// preemptivePeriod is the first pause between pre-emptive ACKNACKs to
	// a reliable writer that has not sent a HEARTBEAT yet; it doubles
	// after each one, up to maxBackoff.
	preemptivePeriod = time.Second
	// preemptiveFirst is the pause before the first repeat: a writer of a
	// participant just discovered learns of this reader from the
	// announcement this participant sends back, and the first ACKNACK
	// may reach it before that (Fast DDS then ignores it, and announces
	// its history only with its periodic HEARTBEAT, a second later).
	preemptiveFirst = 100 * time.Millisecond
	// nackFragPeriod is the shortest pause between two requests for the
	// missing fragments of a sample (see onHeartbeat).
	nackFragPeriod = heartbeatPeriod
	// maxBackoff bounds the pause between two unanswered periodic
	// messages (pre-emptive ACKNACKs, HEARTBEATs) to one remote endpoint.
	maxBackoff = 30 * time.Second
	// maxReassemblies bounds the samples reassembled at once per writer.
	maxReassemblies = 4
	// countTimeout is how long after the last accepted HEARTBEAT (or
	// ACKNACK) one is accepted whatever its count, as Cyclone DDS does: a
	// peer that restarted its counts, or a spoofed count far ahead, stops
	// nothing for longer.
	countTimeout = 500 * time.Millisecond
	// maxJump bounds how far beyond the highest sequence number a writer
	// announced (or sent) a HEARTBEAT, GAP or sample may move its stream:
	// more is ignored (a writer that has been running can announce any
	// range in its first HEARTBEAT; after it, 2^24 samples between two
	// HEARTBEATs would be millions a second).
	maxJump = 1 << 24
)

// Sample is a sample received by a Reader.
type Sample struct {
	// Payload is the serialized sample, encapsulation header included. It
	// belongs to the receiver. A DATA payload may end with up to 3 zero
	// bytes of submessage padding when the sender did not record them in
	// the encapsulation options (plain CDR ignores them).
	Payload []byte
	// Writer is the GUID of the writer that sent the sample.
	Writer GUID
	// SN is the writer's sequence number of the sample.
	SN int64
	// SourceTime is the writer's timestamp (INFO_TS), zero if none.
	SourceTime time.Time
	// Related is the sample's inline RELATED_SAMPLE_IDENTITY (the
	// standard parameter, or eProsima's twin from Fast DDS), zero if it
	// carried none: a service request or reply's correlation.
	Related SampleIdentity
}

// inSample is a received sample before delivery.
type inSample struct {
	payload  []byte
	inline   []byte // inline QoS (copied), for builtin readers
	inlineLE bool   // byte order of inline
	key      bool
	gap      bool // an irrelevant SN (GAP) holding no sample
	writer   rtps.GUID
	sn       rtps.SequenceNumber
	ts       rtps.Time
	hasTS    bool
	related  rtps.SampleIdentity // inline RELATED_SAMPLE_IDENTITY (user readers)
	// reuse marks a reassembled payload a loaning reader takes back
	// once delivered (Reader.spare).
	reuse bool
}

// writerProxy is a reader's state for one matched remote writer.
type writerProxy struct {
	guid     rtps.GUID
	locs     []netip.AddrPort
	reliable bool
	// next is the next SN to deliver; 0 until the first HEARTBEAT.
	next rtps.SequenceNumber
	// lastDelivered is the highest SN delivered (best effort).
	lastDelivered rtps.SequenceNumber
	pending       map[rtps.SequenceNumber]*inSample
	pendingBytes  int
	hbSeen        bool
	hbCount       uint32
	hbAt          time.Time // when the last HEARTBEAT was accepted
	// known is the highest SN the writer announced in a HEARTBEAT or sent
	// (maxJump, GAP).
	known    rtps.SequenceNumber
	ackCount uint32
	nfCount  uint32
	nextAck  time.Time
	// preemptiveGap is the pause after the next pre-emptive ACKNACK (the
	// first repeat comes preemptiveFirst after the first one).
	preemptiveGap time.Duration
	frags         map[rtps.SequenceNumber]*reassembly
	// reasmBytes are the bytes of frags (Limits.MaxReassemblyBytesPerWriter);
	// largestDone is the largest sample reassembled (see reassembly).
	reasmBytes  int
	largestDone int
	// zeroBase makes pre-emptive ACKNACKs use base 0 (see sendPreemptive).
	zeroBase bool
	// nackFragAt is when missing fragments were last asked for.
	nackFragAt time.Time
	// Liveliness (liveliness.go): the writer's announced kind and lease
	// (0: infinite, nothing to track), its last assertion, and whether it
	// is alive.
	liveKind   LivelinessKind
	lease      time.Duration
	lastAssert time.Time
	alive      bool
}

// serialAfter reports whether count a comes after b in serial number
// arithmetic (RFC 1982 on 32 bits), as RTPS counts wrap.
func serialAfter(a, b uint32) bool { return int32(a-b) > 0 }

// acceptCount reports whether a HEARTBEAT or ACKNACK with count c is new
// (after prev, or anything countTimeout after the last accepted one), and
// records it.
func acceptCount(c uint32, seen *bool, prev *uint32, at *time.Time, now time.Time) bool {
	if *seen && !serialAfter(c, *prev) && now.Sub(*at) < countTimeout {
		return false
	}
	*seen, *prev, *at = true, c, now
	return true
}

// Reader receives the samples of a topic from the matched writers and
// hands them, in order per writer, to its deliver function.
type Reader struct {
	p       *Participant
	guid    rtps.GUID
	topic   Topic
	qos     QoS
	status  *endpointStatus
	builtin bool
	deliver func(*inSample)
	onClose func()
	sub     *afor.Sub[Sample]

	dmu     sync.Mutex // serialises delivery, held around mu
	mu      sync.Mutex
	proxies map[rtps.GUID]*writerProxy
	closed  bool
	b       rtps.Builder
	out     []*inSample
	// droppedWriter names a participant whose writer went over a limit
	// that drops it (dropLimit); unlock drops it once the locks are
	// released.
	droppedWriter rtps.GuidPrefix
	dropLimit     string
	// loan makes the reader lend its samples' payloads to deliver (see
	// NewReaderLoan): an in-order DATA payload is a slice of the received
	// datagram, and a reassembled one goes back to spare once delivered
	// for the next reassembly of a sample of at most its size (both
	// under dmu).
	loan  bool
	spare []byte
	// free holds delivered samples for the next ones (newSample), under
	// dmu.
	free []*inSample
}

func newReader(p *Participant, id rtps.EntityID, t Topic, q QoS, builtin bool, deliver func(*inSample)) *Reader {
	return &Reader{
		p: p, guid: rtps.GUID{Prefix: p.prefix, Entity: id}, topic: t, qos: q, builtin: builtin,
		status: newEndpointStatus(), deliver: deliver, proxies: map[rtps.GUID]*writerProxy{},
	}
}

// budget is the reassembly budget of wp.
func (r *Reader) budget(wp *writerProxy) reasmBudget {
	b := reasmBudget{p: r.p, writer: &wp.reasmBytes, limit: r.p.cfg.lim.MaxReassemblyBytesPerWriter}
	if r.loan {
		b.spare = &r.spare
	}
	return b
}

// maxSpare bounds the reassembly buffer a loaning reader keeps for the
// next sample.
const maxSpare = 8 << 20

// dropFrag ends the reassembly of sn from wp.
func (r *Reader) dropFrag(wp *writerProxy, sn rtps.SequenceNumber) {
	r.budget(wp).release(wp.frags[sn])
	delete(wp.frags, sn)
}

// maxPending returns the bound of the bytes held out of order from one
// writer: for the SEDP readers, a participant's discovery data.
func (r *Reader) maxPending() int {
	if r.builtin {
		return r.p.cfg.lim.MaxDiscoveryBytesPerParticipant
	}
	return r.p.cfg.lim.MaxPendingBytesPerWriter
}

// addPending counts n bytes held (or released, n < 0) from wp.
func (r *Reader) addPending(wp *writerProxy, n int) {
	wp.pendingBytes += n
	r.p.stats.pendingBytes.Add(int64(n))
}

// GUID returns the reader's GUID.
func (r *Reader) GUID() GUID { return fromRTPS(r.guid) }

// Topic returns the reader's topic.
func (r *Reader) Topic() Topic { return r.topic }

// QoS returns the reader's QoS, defaults applied.
func (r *Reader) QoS() QoS { return r.qos }

// Status returns the number of matched writers and the count of
// incompatible ones.
func (r *Reader) Status() MatchStatus { return r.status.get() }

// IncompatibleQoS returns the count of writers on the reader's topic and
// type that were not matched because of their QoS, and the last policy at
// fault.
func (r *Reader) IncompatibleQoS() IncompatibleQoSStatus { return r.status.get().Incompatible }

// WaitMatched waits until at least n writers are matched.
func (r *Reader) WaitMatched(ctx context.Context, n int) error {
	return r.status.waitFor(ctx, func(s MatchStatus) bool { return s.Matched >= n })
}

// WaitStatus waits until cond holds for the reader's match status.
func (r *Reader) WaitStatus(ctx context.Context, cond func(MatchStatus) bool) error {
	return r.status.waitFor(ctx, cond)
}

// flush delivers the samples collected under mu. Call with dmu held and
// mu released.
func (r *Reader) flush() {
	for i, s := range r.out {
		r.deliver(s)
		if s.reuse && cap(s.payload) <= maxSpare {
			r.spare = s.payload
		}
		r.out[i] = nil
		if !r.builtin && len(r.free) < maxFreeSamples {
			// A user reader's deliver keeps nothing of s (the in-memory
			// path hands it one struct for every sample, too).
			*s = inSample{}
			r.free = append(r.free, s)
		}
	}
	r.out = r.out[:0]
}

// maxFreeSamples bounds Reader.free.
const maxFreeSamples = 64

// newSample returns a cleared inSample: one delivered before, or a new
// one. Call with dmu held.
func (r *Reader) newSample() *inSample {
	if n := len(r.free); n > 0 {
		s := r.free[n-1]
		r.free = r.free[:n-1]
		return s
	}
	return new(inSample)
}

// lock takes dmu then mu; unlock releases mu, delivers, releases dmu.
func (r *Reader) lock() {
	r.dmu.Lock()
	r.mu.Lock()
}

func (r *Reader) unlock() {
	drop, why := r.droppedWriter, r.dropLimit
	r.dropLimit = ""
	r.mu.Unlock()
	r.flush()
	r.dmu.Unlock()
	if why != "" {
		r.p.dropParticipant(drop, why)
	}
}

// accept takes a complete sample from wp: it is delivered now if in order,
// else held until the SNs before it are received or written off.
func (r *Reader) accept(wp *writerProxy, s *inSample) {
	if !wp.reliable {
		if s.sn > wp.lastDelivered {
			wp.lastDelivered = s.sn
			r.out = append(r.out, s)
		}
		return
	}
	if wp.next == 0 && s.sn == 1 {
		// Nothing comes before a writer's first sample: deliver it now,
		// not at the writer's first HEARTBEAT we hear, which can be its
		// periodic one (3 s in Fast DDS) when the one it sent on
		// matching us arrived before we had matched it.
		wp.next = 1
	}
	if wp.next != 0 && s.sn < wp.next {
		return
	}
	if _, dup := wp.pending[s.sn]; dup {
		return
	}
	if wp.next == s.sn {
		r.out = append(r.out, s)
		wp.next++
		r.drain(wp)
		return
	}
	if wp.next != 0 && s.sn-wp.next >= maxJump {
		r.p.hitLimit(LimitImplausible, "writer", wp.guid, "sn", s.sn)
		return
	}
	if len(wp.pending) >= r.qos.MaxSamples {
		return // dropped; the writer resends it
	}
	if why := r.overPending(wp, len(s.payload)); why != "" {
		r.p.stats.dropped.Add(1)
		if r.builtin && why == LimitPendingBytesPerWriter {
			// No participant announces that much discovery data.
			r.droppedWriter = wp.guid.Prefix
			r.dropLimit = LimitDiscoveryBytesPerParticipant
			return
		}
		r.p.hitLimit(why, "writer", wp.guid)
		return // dropped; the writer resends it
	}
	if wp.pending == nil {
		wp.pending = map[rtps.SequenceNumber]*inSample{}
	}
	wp.pending[s.sn] = s
	r.addPending(wp, len(s.payload))
	wp.known = max(wp.known, s.sn)
}

// overPending returns the limit n more bytes held from wp would exceed,
// or "".
func (r *Reader) overPending(wp *writerProxy, n int) string {
	switch {
	case wp.pendingBytes+n > r.maxPending():
		return LimitPendingBytesPerWriter
	case r.p.stats.pendingBytes.Load()+int64(n) > int64(r.p.cfg.lim.MaxPendingBytes):
		return LimitPendingBytes
	}
	return ""
}

// drain delivers the held samples that are now in order.
func (r *Reader) drain(wp *writerProxy) {
	for len(wp.pending) > 0 {
		s, ok := wp.pending[wp.next]
		if !ok {
			break
		}
		delete(wp.pending, wp.next)
		r.addPending(wp, -len(s.payload))
		if !s.gap {
			r.out = append(r.out, s)
		}
		wp.next++
	}
	if len(wp.frags) > 0 {
		for sn := range wp.frags {
			if sn < wp.next {
				r.dropFrag(wp, sn)
			}
		}
	}
	wp.known = max(wp.known, wp.next-1)
}

// writeOff makes next the next SN to deliver, dropping what is held below
// it, and delivers what follows in order.
func (r *Reader) writeOff(wp *writerProxy, next rtps.SequenceNumber) {
	for sn, s := range wp.pending {
		if sn < next {
			delete(wp.pending, sn)
			r.addPending(wp, -len(s.payload))
		}
	}
	wp.next = next
	r.drain(wp)
}

// onData handles a DATA from writer g.
func (r *Reader) onData(g rtps.GUID, c *rtps.Context, d *rtps.Data) {
	r.lock()
	defer r.unlock()
	r.onDataLocked(g, c, d)
}

// onDataLocked is onData with r's locks held (lock): the sample is
// delivered when they are released (unlock).
func (r *Reader) onDataLocked(g rtps.GUID, c *rtps.Context, d *rtps.Data) {
	wp := r.proxies[g]
	if wp == nil || r.closed || d.SN < 1 {
		return
	}
	r.assertWriter(wp)
	if r.stale(wp, d.SN) {
		return
	}
	payload := d.Payload
	if payload != nil && !d.Key && knownEncapsulation(payload) {
		if pad := int(payload[3] & 3); len(payload) >= 4+pad {
			payload = payload[:len(payload)-pad]
		}
	}
	s := r.newSample()
	s.writer, s.sn, s.key, s.ts, s.hasTS = g, d.SN, d.Key, c.Timestamp, c.HaveTimestamp
	switch {
	case payload == nil:
	case r.loan && r.inOrder(wp, d.SN):
		// Delivered before this returns, before the datagram's buffer
		// is reused (unlock, flush).
		s.payload = payload
	default:
		s.payload = append(make([]byte, 0, len(payload)), payload...)
	}
	r.keepInline(s, c, d.InlineQoS, d.LittleEndian)
	r.accept(wp, s)
}

// inOrder reports whether a sample sn from wp, not stale, is delivered at
// once by accept rather than held.
func (r *Reader) inOrder(wp *writerProxy, sn rtps.SequenceNumber) bool {
	return !wp.reliable || wp.next == sn || (wp.next == 0 && sn == 1)
}

// stale reports whether sn was delivered or written off already.
func (r *Reader) stale(wp *writerProxy, sn rtps.SequenceNumber) bool {
	if !wp.reliable {
		return sn <= wp.lastDelivered
	}
	if wp.next != 0 && sn < wp.next {
		return true
	}
	_, held := wp.pending[sn]
	return held
}

// onDataFrag handles a DATA_FRAG from writer g.
func (r *Reader) onDataFrag(g rtps.GUID, c *rtps.Context, d *rtps.DataFrag) {
	r.lock()
	defer r.unlock()
	wp := r.proxies[g]
	if wp == nil || r.closed || d.SN < 1 {
		return
	}
	r.assertWriter(wp)
	if r.stale(wp, d.SN) {
		return
	}
	if wp.next != 0 && d.SN-wp.next >= maxJump {
		r.p.hitLimit(LimitImplausible, "writer", g, "sn", d.SN)
		return
	}
	maxSample := r.p.cfg.maxSample
	if r.builtin {
		maxSample = min(maxSample, r.p.cfg.lim.MaxDiscoveryBytesPerParticipant)
	}
	ra := wp.frags[d.SN]
	if ra != nil && (int(d.FragSize) != ra.fragSize || int(d.SampleSize) != ra.size) && ra.received < len(d.Payload) {
		// Fragments that disagree with the reassembly in progress: the
		// one with more bytes behind it wins, so that a few spoofed
		// bytes cannot hold up a real sample.
		r.dropFrag(wp, d.SN)
		ra = nil
	}
	if ra == nil {
		if len(wp.frags) >= maxReassemblies {
			// Drop the least advanced reassembly (the oldest of those):
			// a best-effort writer has moved on, a reliable one resends
			// it, and a stream of bogus first fragments does not push
			// out a sample that is nearly complete.
			var victim rtps.SequenceNumber
			for sn, o := range wp.frags {
				v := wp.frags[victim]
				if v == nil || o.received < v.received || (o.received == v.received && sn < victim) {
					victim = sn
				}
			}
			r.dropFrag(wp, victim)
		}
		ra = r.p.newReassembly(d, maxSample)
		if ra == nil {
			return
		}
		r.p.dueBy(ra.started.Add(r.p.cfg.reassemblyTimeout + time.Millisecond))
		if wp.frags == nil {
			wp.frags = map[rtps.SequenceNumber]*reassembly{}
		}
		wp.frags[d.SN] = ra
	}
	if c.HaveTimestamp && !ra.hasTS {
		ra.ts, ra.hasTS = c.Timestamp, true
	}
	done, refused := ra.add(d, ra.size <= wp.largestDone, r.budget(wp))
	if refused != "" {
		r.p.stats.dropped.Add(1)
		r.p.hitLimit(refused, "writer", g, "sn", d.SN, "size", ra.size)
	}
	if !done {
		return
	}
	r.dropFrag(wp, d.SN)
	wp.largestDone = max(wp.largestDone, ra.size)
	s := &inSample{writer: g, sn: d.SN, key: d.Key, ts: ra.ts, hasTS: ra.hasTS, payload: ra.buf, reuse: r.loan}
	r.keepInline(s, c, d.InlineQoS, d.LittleEndian)
	ra.buf = nil
	r.accept(wp, s)
}

// onHeartbeat handles a HEARTBEAT from writer g: it writes off what the
// writer no longer has and asks for what is missing. Counts compare in
// serial number arithmetic, and any count is accepted countTimeout after
// the last accepted one, so that a spoofed count far ahead silences the
// writer for no longer than that; a HEARTBEAT that would move the stream
// more than maxJump beyond what the writer announced is ignored.
func (r *Reader) onHeartbeat(g rtps.GUID, h *rtps.Heartbeat) {
	r.lock()
	defer r.unlock()
	wp := r.proxies[g]
	if wp == nil || !wp.reliable || r.closed || h.First < 1 || h.Last < h.First-1 {
		return
	}
	if wp.hbSeen && (h.Last-wp.known >= maxJump || h.First-wp.known > maxJump) {
		r.p.hitLimit(LimitImplausible, "writer", g, "first", h.First, "last", h.Last)
		return
	}
	if wp.liveKind == Automatic {
		r.assertWriter(wp)
	}
	now := time.Now()
	if !acceptCount(h.Count, &wp.hbSeen, &wp.hbCount, &wp.hbAt, now) {
		return
	}
	wp.known = max(wp.known, h.Last)
	if wp.next == 0 || h.First > wp.next {
		r.writeOff(wp, h.First)
	}
	missing := wp.next <= h.Last
	if h.Final && !missing {
		return
	}
	// A writer answers an ACKNACK that is not final with a HEARTBEAT, and
	// this reader the HEARTBEAT with what it misses: while only fragments
	// are missing, the two would have them resent at every round trip,
	// faster than a slow link carries them (each copy queued behind the
	// last). They are asked for again at most every nackFragPeriod.
	if len(wp.frags) > 0 && time.Since(wp.nackFragAt) < nackFragPeriod && !missesWhole(wp, h.Last) {
		return
	}
	r.sendAckNack(wp, h.Last)
}

// missesWhole reports whether a sample up to last is missing that is not
// being reassembled.
func missesWhole(wp *writerProxy, last rtps.SequenceNumber) bool {
	base := max(wp.next, 1)
	for sn := base; sn <= last && sn < base+256; sn++ {
		_, pending := wp.pending[sn]
		_, partial := wp.frags[sn]
		if !pending && !partial {
			return true
		}
	}
	return false
}

// sendAckNack acknowledges what wp delivered and requests the SNs missing
// up to last, with NACK_FRAGs for samples partly reassembled.
func (r *Reader) sendAckNack(wp *writerProxy, last rtps.SequenceNumber) {
	base := max(wp.next, 1)
	set := rtps.SNSet{Base: base}
	complete := true
	for sn := base; sn <= last && sn < base+256; sn++ {
		if _, ok := wp.pending[sn]; ok {
			continue
		}
		complete = false
		if _, ok := wp.frags[sn]; ok {
			continue
		}
		set.Set(sn)
	}
	b := &r.b
	b.Reset(r.p.header())
	b.InfoDst(wp.guid.Prefix)
	wp.ackCount++
	b.AckNack(&rtps.AckNack{ReaderID: r.guid.Entity, WriterID: wp.guid.Entity, State: set, Count: wp.ackCount, Final: complete})
	for sn, ra := range wp.frags {
		if sn > last {
			continue
		}
		wp.nfCount++
		b.NackFrag(&rtps.NackFrag{ReaderID: r.guid.Entity, WriterID: wp.guid.Entity, SN: sn, State: ra.missing(), Count: wp.nfCount})
		wp.nackFragAt = time.Now()
	}
	r.p.sendTo(b.Bytes(), wp.locs)
}

// onGap handles a GAP from writer g. It writes off only SNs up to the
// highest one the writer announced: a GAP beyond says nothing of samples
// that do not exist yet (and a spoofed one would end the stream).
func (r *Reader) onGap(g rtps.GUID, gp *rtps.Gap) {
	r.lock()
	defer r.unlock()
	wp := r.proxies[g]
	if wp == nil || !wp.reliable || r.closed || wp.next == 0 || gp.Start < 1 {
		return
	}
	end := min(gp.List.Base, wp.known+1) // [Start, end) is irrelevant
	if gp.List.Base > end || gp.List.NumBits > 0 && gp.List.Base+rtps.SequenceNumber(gp.List.NumBits) > wp.known+1 {
		r.p.hitLimit(LimitImplausible, "writer", g, "gapStart", gp.Start, "gapBase", gp.List.Base)
	}
	if gp.Start <= wp.next && end > wp.next {
		r.writeOff(wp, end)
	} else if gp.Start > wp.next {
		for sn := gp.Start; sn < end && sn < wp.next+256; sn++ {
			r.holdGap(wp, sn)
		}
	}
	for sn := range gp.List.All() {
		if sn <= wp.known {
			r.holdGap(wp, sn)
		}
	}
	r.drain(wp)
}

// holdGap marks sn irrelevant.
func (r *Reader) holdGap(wp *writerProxy, sn rtps.SequenceNumber) {
	if sn < wp.next || len(wp.pending) >= r.qos.MaxSamples {
		return
	}
	if _, ok := wp.pending[sn]; ok {
		return
	}
	if wp.pending == nil {
		wp.pending = map[rtps.SequenceNumber]*inSample{}
	}
	wp.pending[sn] = &inSample{sn: sn, gap: true}
}

// onHeartbeatFrag handles a HEARTBEAT_FRAG: it is accepted and ignored, as
// the HEARTBEAT that follows a fragmented sample triggers the NACK_FRAGs.
func (r *Reader) onHeartbeatFrag(rtps.GUID, *rtps.HeartbeatFrag) {}

// tick sends pre-emptive ACKNACKs to reliable writers not heard from yet
// and drops reassemblies that took too long. It returns when it is next
// needed (zero if not). It delivers nothing, so it takes mu alone, not
// dmu: a callback of the reader that waits (a KEEP_ALL Write waiting for
// acknowledgments) must not hold up the participant's timers, whose
// HEARTBEATs ask for those acknowledgments.
func (r *Reader) tick(now time.Time) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return time.Time{}
	}
	next := r.expireLivelinessLocked(now)
	for _, wp := range r.proxies {
		for sn, ra := range wp.frags {
			if now.Sub(ra.started) > r.p.cfg.reassemblyTimeout {
				r.dropFrag(wp, sn)
				continue
			}
			next = earliest(next, ra.started.Add(r.p.cfg.reassemblyTimeout+time.Millisecond))
		}
		if wp.reliable && !wp.hbSeen {
			if !now.Before(wp.nextAck) {
				// Unanswered: back off, so that a writer that never
				// answers (a locator nobody listens on) costs less and
				// less.
				r.sendPreemptive(wp)
				wp.nextAck = now.Add(wp.preemptiveGap)
				wp.preemptiveGap = min(2*wp.preemptiveGap, maxBackoff)
			}
			next = earliest(next, wp.nextAck)
		}
	}
	return next
}

// sendPreemptive sends an ACKNACK that asks for nothing (no bits, not
// final), which makes the writer announce its history with a HEARTBEAT.
//
// The base is 1, as the spec wants, except to Fast DDS and RTI writers,
// which get base 0: Fast DDS answers only that form with a HEARTBEAT at
// once; base 1 only keeps its periodic HEARTBEAT armed (3 s by default),
// so when its HEARTBEAT on matching us came before we matched it, a
// TRANSIENT_LOCAL history (ros_discovery_info) arrived seconds late.
// Cyclone accepts base 0 only from those two vendors.
func (r *Reader) sendPreemptive(wp *writerProxy) {
	b := &r.b
	b.Reset(r.p.header())
	b.InfoDst(wp.guid.Prefix)
	wp.ackCount++
	base := rtps.SequenceNumber(1)
	if wp.zeroBase {
		base = 0
	}
	b.AckNack(&rtps.AckNack{ReaderID: r.guid.Entity, WriterID: wp.guid.Entity, State: rtps.SNSet{Base: base}, Count: wp.ackCount})
	r.p.sendTo(b.Bytes(), wp.locs)
}

// addProxy matches writer g, alive, whose liveliness is of kind lk with
// lease (0: infinite).
func (r *Reader) addProxy(g rtps.GUID, locs []netip.AddrPort, reliable bool, lk LivelinessKind, lease time.Duration) {
	vendor, _ := r.p.vendorOf(g.Prefix) // before r.mu: it takes p.mu
	r.lock()
	defer r.unlock()
	if r.closed || r.proxies[g] != nil {
		return
	}
	wp := &writerProxy{
		guid: g, locs: locs, reliable: reliable && r.qos.Reliability == Reliable,
		zeroBase: vendor == rtps.VendorEProsima || vendor == rtps.VendorRTI,
		liveKind: lk, lease: lease, lastAssert: time.Now(), alive: true,
	}
	r.proxies[g] = wp
	r.status.setMatched(len(r.proxies))
	if g.Prefix == r.p.prefix {
		// A writer of this participant delivers in memory (local.go):
		// no RTPS traffic, no pre-emptive ACKNACK, always alive.
		wp.locs, wp.hbSeen, wp.lease = nil, true, 0
		r.updateLivelinessLocked()
		return
	}
	r.updateLivelinessLocked()
	if wp.lease > 0 {
		r.p.dueBy(wp.lastAssert.Add(wp.lease + time.Millisecond))
	}
	if wp.reliable {
		r.sendPreemptive(wp)
		wp.nextAck = time.Now().Add(preemptiveFirst)
		wp.preemptiveGap = preemptivePeriod
		r.p.dueBy(wp.nextAck)
	}
}

// releaseProxy returns what wp holds to the participant's budgets.
func (r *Reader) releaseProxy(wp *writerProxy) {
	for sn := range wp.frags {
		r.dropFrag(wp, sn)
	}
	r.addPending(wp, -wp.pendingBytes)
	wp.pending = nil
}

// removeProxy unmatches writer g.
func (r *Reader) removeProxy(g rtps.GUID) {
	r.lock()
	defer r.unlock()
	wp := r.proxies[g]
	if wp == nil {
		return
	}
	r.releaseProxy(wp)
	delete(r.proxies, g)
	r.status.setMatched(len(r.proxies))
	r.updateLivelinessLocked()
}

// close unmatches every writer; the reader delivers nothing after it.
func (r *Reader) close() {
	r.lock()
	if r.closed {
		r.unlock()
		return
	}
	r.closed = true
	for _, wp := range r.proxies {
		r.releaseProxy(wp)
	}
	r.proxies = map[rtps.GUID]*writerProxy{}
	r.unlock()
	r.status.close()
}
