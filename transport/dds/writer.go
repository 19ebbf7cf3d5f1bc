package dds

import (
	"context"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/afor-go/afor/transport/dds/internal/rtps"
)

// Sizes of what a writer sends.
const (
	// maxDatagram bounds every datagram sent.
	maxDatagram = 65500
	// fragSize is the fragment size of DATA_FRAG (one fragment per
	// datagram); a payload above it is fragmented.
	fragSize = 64000
	// heartbeatPeriod is the pause between HEARTBEATs while a reliable
	// reader has not acknowledged everything.
	heartbeatPeriod = 100 * time.Millisecond
	// keepLastAckGap is the shortest pause between two HEARTBEATs that ask
	// a reader of a KEEP_LAST writer for an answer (see Writer.wantAck): as
	// long as the periodic ones, so that a steady stream costs a reader
	// one ACKNACK per heartbeatPeriod, not one per few samples.
	keepLastAckGap = heartbeatPeriod
	// unsyncedAskGap is the shortest pause between two HEARTBEATs after
	// new data that ask an unsynced reader (readerProxy.unsynced) for an
	// answer.
	unsyncedAskGap = 5 * time.Millisecond
	// blockedAskPeriod is the pause between two HEARTBEATs asking for
	// acknowledgments while a KEEP_ALL write waits for room.
	blockedAskPeriod = 20 * time.Millisecond
	// unackedBytes bounds the payload bytes a volatile KEEP_ALL writer
	// has sent and its reliable readers have not all acknowledged (its
	// window starts there and adapts below, window.go): a write that
	// would go beyond waits for acknowledgments as one beyond MaxSamples
	// does (one sample may always be in flight, whatever its size).
	// Without it a fast writer of large samples overruns the receive
	// buffers of its readers (Linux caps them at net.core.rmem_max, often
	// a few MiB; Cyclone DDS asks for 2 MiB, which holds about 1.4 MiB of
	// 12 KiB datagrams), and every datagram lost costs a repair round
	// trip; Cyclone throttles its writers the same way (WhcHigh). Between
	// two processes, 1 MiB carried 4 KiB and 64 KiB streams to a Go reader
	// 5-10% faster than 2 MiB, and to a Cyclone reader without a datagram
	// lost (2 MiB lost thousands a second and resent a tenth of the
	// stream); two participants of one process, sharing its cores, went
	// 20% faster with 2 MiB.
	unackedBytes = 1 << 20
	// answeredBackoff bounds the pause between two unanswered HEARTBEATs
	// to a reader that answered before (readerProxy.heard).
	answeredBackoff = time.Second
	// Resend credits (readerProxy.credit): what NACKs can make a writer
	// resend to one reader, in datagrams. A reader starts with
	// resendCreditInit, earns one credit per sample it acknowledges for
	// the first time and resendCreditRate a second, up to
	// resendCreditMax; each datagram resent costs one. A writer of large
	// samples earns each reader the datagrams of its largest sample a
	// second, up to twice that, if more (Writer.largestFrags): a reader
	// repairing a 6 MB sample over a link that dropped half of it needs
	// thousands of resends, and would otherwise wait a minute for them.
	// A reader that repairs a lossy stream acknowledges what it gets and
	// keeps its credit; one that only NACKs gets a trickle, not one resend per
	// request (an ACKNACK flood would otherwise turn each datagram of it
	// into hundreds sent to wherever its locator points).
	resendCreditInit = 1024
	resendCreditMax  = 8192
	resendCreditRate = 64
)

// readerProxy is a writer's state for one matched remote reader.
type readerProxy struct {
	guid     rtps.GUID
	locs     []netip.AddrPort
	reliable bool
	// floor is the lowest SN relevant to this reader: 1 for a late
	// joiner that gets the history, else the first SN written after the
	// match.
	floor rtps.SequenceNumber
	// acked: every SN below is acknowledged (or irrelevant).
	acked    rtps.SequenceNumber
	ackSeen  bool
	ackCount uint32
	nfSeen   bool
	nfCount  uint32
	// solicited is when a HEARTBEAT after new data last asked this
	// reader for an answer (KEEP_LAST writers, see Writer.wantAck).
	solicited time.Time
	// askedAt is Writer.written when a volatile KEEP_ALL writer last
	// asked this reader for an answer because of the bytes it held
	// (Writer.askForBytes).
	askedAt int64
	// index is the proxy's position in Writer.proxies.
	index int
	// nextHB is when the reader is next sent a periodic HEARTBEAT while it
	// has not acknowledged everything, hbGap the pause after that one; it
	// doubles while the reader does not answer (answered, set by an
	// ACKNACK), up to maxBackoff, or up to answeredBackoff for a reader
	// that answered before (heard, set with answered).
	nextHB   time.Time
	hbGap    time.Duration
	answered bool
	heard    bool
	ackAt    time.Time // when the last ACKNACK was accepted
	// credit is the reader's resend budget (resendCreditInit), as of
	// creditAt; histEnd is the last SN written before a late joiner
	// matched or held back while it repairs (hold), histSent the highest
	// of those sent to it once: sending them the first time costs no
	// credit.
	credit   float64
	creditAt time.Time
	histEnd  rtps.SequenceNumber
	histSent rtps.SequenceNumber
	// repairing marks a reader whose last ACKNACK asked for samples again:
	// new samples are held back from it until one asks for nothing
	// (resend.go).
	repairing bool
	// group is the key of the best-effort readers of one participant on
	// the same locators (groupKey), "" for the others; follower marks one
	// that is not its group's first: new samples go once to the group,
	// sent by the first to ENTITYID_UNKNOWN, which every reader of the
	// participant matched with the writer takes, as Cyclone DDS and Fast
	// DDS address readers that share a locator. A participant announcing
	// many readers then costs one datagram per sample, not one per reader.
	group    string
	follower bool
	grouped  bool // the first of a group of more than one
	// unsynced marks a reader that drops data until its first HEARTBEAT
	// from the writer and then counts every SN up to that HEARTBEAT's
	// last as history it does not want (a volatile Cyclone DDS reader of
	// a writer of another vendor). Until it shows that it saw one (its
	// first final ACKNACK: Cyclone sets the flag only then), HEARTBEATs
	// to it announce nothing from floor on, so that it starts at floor and
	// asks for what it dropped once they announce the real range.
	unsynced bool
	// batch holds new samples waiting to go out together (batch.go).
	batch batchState
	// local is the reader when it belongs to the writer's participant:
	// samples then go to it in memory (local.go), and it is treated as
	// acknowledging each at once.
	local *Reader
	// pending and pendingBytes count the samples queued for the local
	// reader and not yet delivered, and their bytes (localRoom bounds
	// them).
	pending      atomic.Int32
	pendingBytes atomic.Int64
}

// dataID returns the reader id of the DATA sent to pr.
func (pr *readerProxy) dataID() rtps.EntityID {
	if pr.grouped {
		return rtps.EntityUnknown
	}
	return pr.guid.Entity
}

// groupKey returns the group of a best-effort remote reader (see
// readerProxy.group).
func groupKey(g rtps.GUID, locs []netip.AddrPort) string {
	b := append([]byte(nil), g.Prefix[:]...)
	for _, l := range locs {
		b = l.AppendTo(b)
		b = append(b, ',')
	}
	return string(b)
}

// Writer sends samples of a topic to the matched readers. Its methods are
// safe for concurrent use.
type Writer struct {
	p      *Participant
	guid   rtps.GUID
	topic  Topic
	qos    QoS
	status *endpointStatus
	// builtin marks an SEDP writer: history keyed by instance, sent to
	// metatraffic locators, never blocking.
	builtin bool

	mu      sync.Mutex
	hist    history
	lastSN  rtps.SequenceNumber
	proxies []*readerProxy
	byGUID  map[rtps.GUID]*readerProxy // the proxies, by reader
	groups  map[string][]*readerProxy  // best-effort readers by group
	hbCount uint32
	room    chan struct{} // closed and replaced when history room may have appeared
	// localWait counts the writes waiting for a local reader's queue to
	// shrink (localRoom); the deliverer then signals room.
	localWait atomic.Int32
	closed    bool
	b         rtps.Builder
	// dirty: queued on the participant's flusher. lastSend and rxAtSend
	// tell whether the writer is idle (batch.go).
	dirty    bool
	lastSend time.Time
	rxAtSend uint64
	// spare holds changes the history dropped, reused for the next
	// samples (keep, spares.go).
	spare spares
	// written counts the payload bytes written (askForBytes);
	// largestFrags is the datagrams of the largest sample written (spend).
	written      int64
	largestFrags int
	// win bounds the unacknowledged bytes of a volatile KEEP_ALL writer
	// (window.go).
	win flowWindow
}

func newWriter(p *Participant, id rtps.EntityID, t Topic, q QoS, builtin bool) *Writer {
	return &Writer{
		p: p, guid: rtps.GUID{Prefix: p.prefix, Entity: id}, topic: t, qos: q, builtin: builtin,
		status: newEndpointStatus(), room: make(chan struct{}), byGUID: map[rtps.GUID]*readerProxy{},
		groups: map[string][]*readerProxy{}, win: flowWindow{size: unackedBytes},
	}
}

// GUID returns the writer's GUID.
func (w *Writer) GUID() GUID { return fromRTPS(w.guid) }

// Topic returns the writer's topic.
func (w *Writer) Topic() Topic { return w.topic }

// QoS returns the writer's QoS, defaults applied.
func (w *Writer) QoS() QoS { return w.qos }

// Status returns the number of matched readers and the count of
// incompatible ones.
func (w *Writer) Status() MatchStatus { return w.status.get() }

// IncompatibleQoS returns the count of readers on the writer's topic and
// type that were not matched because of their QoS, and the last policy at
// fault.
func (w *Writer) IncompatibleQoS() IncompatibleQoSStatus { return w.status.get().Incompatible }

// WaitMatched waits until at least n readers are matched.
func (w *Writer) WaitMatched(ctx context.Context, n int) error {
	return w.status.waitFor(ctx, func(s MatchStatus) bool { return s.Matched >= n })
}

// WaitStatus waits until cond holds for the writer's match status.
func (w *Writer) WaitStatus(ctx context.Context, cond func(MatchStatus) bool) error {
	return w.status.waitFor(ctx, cond)
}

// keeps reports whether written samples stay in the history (for resends
// or late joiners).
func (w *Writer) keeps() bool {
	return w.builtin || w.qos.Reliability == Reliable || w.qos.Durability == TransientLocal
}

// Write sends payload (a serialized sample, encapsulation header included)
// to every matched reader. The writer copies what it keeps. A reliable
// KEEP_ALL writer whose history is full of unacknowledged samples
// (QoS.MaxSamples, or 2 MiB of them when volatile) waits up to
// QoS.MaxBlocking for room, then fails with ErrTimeout; ctx bounds the
// wait too. Samples for readers of the writer's own participant are
// delivered in memory, usually by Write itself before it returns (their
// callbacks run then, in the calling goroutine): call it with no lock held
// that such a callback takes.
func (w *Writer) Write(ctx context.Context, payload []byte) error {
	if len(payload) > w.p.cfg.maxSample {
		return ErrTooLarge
	}
	now := time.Now()
	_, err := w.write(ctx, &change{payload: payload, ts: rtps.TimeFrom(now)}, false, now)
	return err
}

// WriteAt is [Writer.Write] with ts as the sample's source timestamp
// instead of the current time (DDS's write_w_timestamp). Readers get it
// as [Sample.SourceTime], to the nanosecond.
func (w *Writer) WriteAt(ctx context.Context, payload []byte, ts time.Time) error {
	if len(payload) > w.p.cfg.maxSample {
		return ErrTooLarge
	}
	_, err := w.write(ctx, &change{payload: payload, ts: rtps.TimeFrom(ts)}, false, time.Now())
	return err
}

// WriteBuffer is [Writer.Write] for a payload the writer may keep instead
// of copying it: the caller hands payload over and must not use it again.
// WriteBuffer returns a buffer for the caller to serialize its next sample
// into: the payload of a sample the history dropped, payload itself when
// the history did not keep it (or the write failed), or nil. A publisher
// of large samples that serializes into the returned buffer saves a copy
// of every sample.
func (w *Writer) WriteBuffer(ctx context.Context, payload []byte) ([]byte, error) {
	if len(payload) > w.p.cfg.maxSample {
		return payload, ErrTooLarge
	}
	now := time.Now()
	return w.write(ctx, &change{payload: payload, ts: rtps.TimeFrom(now)}, true, now)
}

// write adds c to the history and sends it. When owned is false the
// caller keeps c's payload and the history keeps a copy; when it is true
// the history may keep the payload itself, and write returns the buffer
// the caller may reuse (WriteBuffer). now is the time of the call (the
// caller's reading, often c's timestamp too: one clock read per sample).
// It delivers the samples it queued for local readers once w.mu is
// released (local.go).
func (w *Writer) write(ctx context.Context, c *change, owned bool, now time.Time) (spare []byte, err error) {
	defer w.p.local.run()
	w.mu.Lock()
	defer w.mu.Unlock()
	if owned {
		spare = c.payload // until the history keeps it
	}
	if w.closed {
		return spare, ErrClosed
	}
	blocked := false // for room in the history
	if !w.builtin && w.qos.History == KeepAll && w.keeps() {
		var deadline, again <-chan time.Time
		ask := false
		for w.hist.len() >= w.qos.MaxSamples || w.overBytes(len(c.payload)) {
			if w.hist.changes[0].sn < w.minAcked() {
				w.spare.put(w.hist.dropFirst())
				continue
			}
			if deadline == nil || ask {
				// Ask the readers that have not acknowledged everything,
				// and again every blockedAskPeriod while the write waits: a
				// HEARTBEAT or its answer lost to a full socket buffer
				// must not cost the whole MaxBlocking.
				for _, pr := range w.proxies {
					if pr.reliable && pr.acked <= w.lastSN {
						w.sendHeartbeat(pr, false)
					}
				}
				ask = false
			}
			if deadline == nil {
				t := time.NewTimer(w.qos.MaxBlocking)
				defer t.Stop()
				deadline = t.C
				tk := time.NewTicker(blockedAskPeriod)
				defer tk.Stop()
				again = tk.C
			}
			blocked = true
			ask, err = w.waitRoomLocked(ctx, deadline, again)
			if err != nil {
				return spare, err
			}
			if w.closed {
				return spare, ErrClosed
			}
		}
	}
	waited, err := w.localRoom(ctx, len(c.payload))
	if err != nil {
		return spare, err
	}
	if waited || blocked {
		now = time.Now()
	}
	w.lastSN++
	c.sn = w.lastSN
	w.written += int64(len(c.payload))
	w.largestFrags = max(w.largestFrags, fragments(c))
	if w.qos.Lifespan > 0 {
		c.expires = now.Add(w.qos.Lifespan)
	}
	if w.needsHistory() {
		// A copy (in a spare change), so that c stays on the caller's
		// stack when nothing is kept.
		kc := w.spare.get()
		switch {
		case owned: // the history keeps c.payload
			spare = nil
			if kc != nil {
				spare = kc.payload
			}
		case c.payload != nil:
			c.payload = keep(kc, c.payload)
		}
		if kc == nil {
			kc = new(change)
		}
		if w.builtin {
			w.hist.removeInstance(c.instance)
		}
		*kc = *c
		w.hist.add(kc)
		if !w.builtin && w.qos.History == KeepLast {
			for w.hist.len() > w.qos.Depth {
				w.spare.put(w.hist.dropFirst())
			}
		}
		if owned && spare == nil {
			if kc := w.spare.get(); kc != nil {
				spare = kc.payload
			}
		}
	}
	direct := w.idle(now)
	var related rtps.SampleIdentity
	sent, parsed := false, false
	for _, pr := range w.proxies {
		if pr.local != nil {
			if !parsed {
				related, parsed = relatedOf(c), true
			}
			pr.acked = c.sn + 1
			w.queueLocal(pr, c, related)
			continue
		}
		if pr.follower {
			continue // its group's first sends to it too
		}
		w.sendNew(pr, c, direct, w.wantAck(pr, c.sn, now))
		sent = true
	}
	if direct && sent {
		w.sentNow()
	}
	w.wakeTimers(now)
	return spare, nil
}

// overBytes reports whether a new sample of n bytes would take the
// history of a volatile KEEP_ALL writer beyond its window (a volatile
// KEEP_ALL history holds what some reliable reader has not acknowledged,
// see prune). Call with w.mu held.
func (w *Writer) overBytes(n int) bool {
	return w.qos.Durability == Volatile && w.hist.bytes > 0 && w.hist.bytes+n > w.win.size
}

// keep returns the copy of payload that the history keeps: in the
// payload of spare, a change the history dropped (or nil), when it fits
// and is not more than twice the size, so that a writer does not allocate
// one per sample (see sparesMax), else in a new one. Nothing but the
// history refers to a payload it keeps: local readers get copies of their
// own, and sends and batches copy it into datagrams under w.mu. Call with
// w.mu held.
func keep(spare *change, payload []byte) []byte {
	if spare == nil || len(payload) == 0 || cap(spare.payload) < len(payload) || cap(spare.payload)/2 > len(payload) {
		return slices.Clone(payload)
	}
	return append(spare.payload[:0], payload...)
}

// waitRoomLocked releases w.mu until room may have appeared in the
// history or a local reader's queue (signalRoom), tick fires (then it
// reports true), deadline passes (ErrTimeout) or ctx ends; it returns with
// w.mu held again. Call with w.mu held.
func (w *Writer) waitRoomLocked(ctx context.Context, deadline, tick <-chan time.Time) (ticked bool, err error) {
	room := w.room
	w.mu.Unlock()
	defer w.mu.Lock()
	select {
	case <-room:
	case <-tick:
		return true, nil
	case <-deadline:
		return false, ErrTimeout
	case <-ctx.Done():
		return false, context.Cause(ctx)
	}
	return false, nil
}

// wantAck reports whether the HEARTBEAT that follows new sample sn asks
// reader pr for an answer (an ACKNACK, one more datagram each way). A
// reader that misses something answers a final HEARTBEAT anyway, so the
// acknowledgment itself is asked for only when it matters: once half the
// history is unacknowledged, for a KEEP_ALL or builtin writer (whose
// history is freed, and whose writes block, on acknowledgments); a
// KEEP_LAST writer drops its oldest sample whatever the readers acknowledged,
// so it asks at most every keepLastAckGap as well (Cyclone DDS also asks
// rarely: its ping and pong exchange one datagram per sample); the
// periodic HEARTBEATs leave out a reader asked less than half a period
// ago. Call with w.mu held.
func (w *Writer) wantAck(pr *readerProxy, sn rtps.SequenceNumber, now time.Time) bool {
	if pr.unsynced {
		if now.Sub(pr.solicited) < unsyncedAskGap {
			return false
		}
		pr.solicited = now
		return true
	}
	if sn-pr.acked < rtps.SequenceNumber(max(1, w.qos.limit()/2)) && !w.askForBytes(pr) {
		return false
	}
	if w.builtin || w.qos.History == KeepAll {
		return true
	}
	if now.Sub(pr.solicited) < keepLastAckGap {
		return false
	}
	pr.solicited = now
	return true
}

// askForBytes reports whether a volatile KEEP_ALL writer should ask pr
// for an acknowledgment because of the bytes it holds: from half of its
// window (window.go) on, once per eighth of it written, so that acknowledgments
// come back before writes wait for them (overBytes). Call with w.mu held.
func (w *Writer) askForBytes(pr *readerProxy) bool {
	if w.qos.History != KeepAll || w.qos.Durability != Volatile || w.hist.bytes < w.win.size/2 ||
		w.written-pr.askedAt < int64(w.win.size/8) {
		return false
	}
	pr.askedAt = w.written
	return true
}

// minAcked returns the lowest SN some reliable reader has not
// acknowledged (lastSN+1 if none).
func (w *Writer) minAcked() rtps.SequenceNumber {
	m := w.lastSN + 1
	for _, pr := range w.proxies {
		if pr.reliable && pr.acked < m {
			m = pr.acked
		}
	}
	return m
}

// WaitAcknowledged waits until every reliable reader matched with the
// writer has acknowledged every sample written before the call (and a
// reader of its own participant has taken them), as rclcpp's
// wait_for_all_acked does: a program that ends right after its last writes
// waits with it, since a reader that missed a datagram asks the writer,
// which must still be there, to send it again. It returns nil at once
// without reliable readers, an error matching ErrClosed once the writer
// is closed, and ctx's cause when ctx ends first. A reader that stops
// answering keeps it waiting until ctx ends or the reader is unmatched.
func (w *Writer) WaitAcknowledged(ctx context.Context) error {
	w.localWait.Add(1) // local deliveries signal room while we wait
	defer w.localWait.Add(-1)
	w.mu.Lock()
	target := w.lastSN + 1
	// Ask the readers behind for an acknowledgment now rather than at the
	// next periodic HEARTBEAT (a KEEP_LAST writer asks rarely).
	now := time.Now()
	for _, pr := range w.proxies {
		if pr.local == nil && pr.reliable && pr.acked < target && !w.closed {
			pr.solicited = now
			w.sendHeartbeat(pr, false)
		}
	}
	for {
		if w.closed {
			w.mu.Unlock()
			return ErrClosed
		}
		if w.ackedUpTo(target) {
			w.mu.Unlock()
			return nil
		}
		room := w.room
		w.mu.Unlock()
		select {
		case <-room:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
		w.mu.Lock()
	}
}

// ackedUpTo reports whether every reliable reader acknowledged the samples
// before sn (a local one: took them). Call with w.mu held.
func (w *Writer) ackedUpTo(sn rtps.SequenceNumber) bool {
	for _, pr := range w.proxies {
		switch {
		case pr.local != nil:
			if pr.pending.Load() > 0 {
				return false
			}
		case pr.reliable && pr.acked < sn:
			return false
		}
	}
	return true
}

// signalRoom wakes writers waiting for history room. Call with w.mu held.
func (w *Writer) signalRoom() {
	close(w.room)
	w.room = make(chan struct{})
}

// header is the RTPS header of this participant's messages.
func (p *Participant) header() rtps.Header {
	return rtps.Header{Version: rtps.ProtocolVersion24, Vendor: rtps.VendorAfor, Prefix: p.prefix}
}

// sendChange sends c to pr: one DATA, or DATA_FRAGs of fragSize bytes,
// followed by a HEARTBEAT when hb is set (final unless solicit is set).
func (w *Writer) sendChange(pr *readerProxy, c *change, hb, solicit bool) {
	w.flushProxy(pr)
	if len(c.payload)+len(c.inline) <= fragSize {
		b := &w.b
		b.Reset(w.p.header())
		b.InfoDst(pr.guid.Prefix)
		w.appendChange(b, pr, c)
		if hb {
			w.appendHeartbeat(pr, !solicit)
		}
		w.p.sendTo(b.Bytes(), pr.locs)
		return
	}
	n := uint32((len(c.payload) + fragSize - 1) / fragSize)
	for i := uint32(1); i <= n; i++ {
		w.sendFrag(pr, c, i, hb && i == n)
	}
}

// appendChange appends c to the message b builds for pr: INFO_TS and
// DATA (c fits one DATA).
func (w *Writer) appendChange(b *rtps.Builder, pr *readerProxy, c *change) {
	b.InfoTS(c.ts)
	off := b.Len()
	b.Data(&rtps.Data{ReaderID: pr.dataID(), WriterID: w.guid.Entity, SN: c.sn, InlineQoS: c.inline, Payload: c.payload, Key: c.key})
	if c.inline == nil && !c.key {
		markPadding(b.Bytes()[off+24:], len(c.payload))
	}
}

// sendFrag sends fragment i (1-based) of c to pr.
func (w *Writer) sendFrag(pr *readerProxy, c *change, i uint32, hb bool) {
	w.flushProxy(pr)
	off := int(i-1) * fragSize
	if off >= len(c.payload) {
		return
	}
	end := min(off+fragSize, len(c.payload))
	b := &w.b
	b.Reset(w.p.header())
	b.InfoDst(pr.guid.Prefix)
	b.InfoTS(c.ts)
	body := c.payload[off:end]
	at := b.DataFragSplit(&rtps.DataFrag{
		ReaderID: pr.dataID(), WriterID: w.guid.Entity, SN: c.sn,
		FragStart: i, FragsInSubmsg: 1, FragSize: fragSize, SampleSize: uint32(len(c.payload)),
		InlineQoS: c.inline, Payload: body, Key: c.key,
	})
	if at < 0 {
		return
	}
	if hb {
		w.appendHeartbeat(pr, false)
	}
	// The fragment goes from the history to the socket without a copy.
	msg := b.Bytes()
	w.p.sendPartsTo(msg[:at], body, msg[at:], pr.locs)
}

// markPadding records in the encapsulation options of a serialized
// payload how many padding bytes the DATA submessage added (XTypes
// 7.6.3.1.2), so that the receiver restores the exact length. Payloads
// without a known encapsulation header are left alone.
func markPadding(payload []byte, n int) {
	pad := (4 - n%4) % 4
	if pad == 0 || n < 4 || !knownEncapsulation(payload) {
		return
	}
	payload[3] = payload[3]&^3 | byte(pad)
}

// knownEncapsulation reports whether b starts with a CDR, PL_CDR or XCDR2
// encapsulation identifier.
func knownEncapsulation(b []byte) bool { return len(b) >= 4 && b[0] == 0 && b[1] <= 0x0b }

// heartbeatRange returns the first and last SNs announced to pr.
func (w *Writer) heartbeatRange(pr *readerProxy) (first, last rtps.SequenceNumber) {
	if pr.unsynced {
		return pr.floor, pr.floor - 1
	}
	first = max(w.hist.first(w.lastSN+1), pr.floor)
	if !w.keeps() {
		first = w.lastSN + 1
	}
	return first, w.lastSN
}

// appendHeartbeat appends a HEARTBEAT for pr to the message being built.
func (w *Writer) appendHeartbeat(pr *readerProxy, final bool) {
	first, last := w.heartbeatRange(pr)
	w.hbCount++
	w.b.Heartbeat(&rtps.Heartbeat{ReaderID: pr.guid.Entity, WriterID: w.guid.Entity, First: first, Last: last, Count: w.hbCount, Final: final})
}

// sendHeartbeat sends a HEARTBEAT alone to pr.
func (w *Writer) sendHeartbeat(pr *readerProxy, final bool) {
	w.flushProxy(pr)
	w.b.Reset(w.p.header())
	w.b.InfoDst(pr.guid.Prefix)
	w.appendHeartbeat(pr, final)
	w.p.sendTo(w.b.Bytes(), pr.locs)
}

// sendGaps sends GAPs for the sorted SNs in gone to pr.
func (w *Writer) sendGaps(pr *readerProxy, gone []rtps.SequenceNumber) {
	w.flushProxy(pr)
	b := &w.b
	b.Reset(w.p.header())
	b.InfoDst(pr.guid.Prefix)
	for i := 0; i < len(gone); {
		j := i + 1
		for j < len(gone) && gone[j] == gone[j-1]+1 {
			j++
		}
		b.Gap(&rtps.Gap{ReaderID: pr.guid.Entity, WriterID: w.guid.Entity, Start: gone[i], List: rtps.SNSet{Base: gone[j-1] + 1}})
		i = j
		if b.Len() > maxDatagram-64 {
			w.p.sendTo(b.Bytes(), pr.locs)
			b.Reset(w.p.header())
			b.InfoDst(pr.guid.Prefix)
		}
	}
	w.p.sendTo(b.Bytes(), pr.locs)
}

// proxy returns the proxy of reader g, or nil.
func (w *Writer) proxy(g rtps.GUID) *readerProxy { return w.byGUID[g] }

// spend takes n resend credits from pr, after adding what it earned with
// time; it reports false, taking nothing, when pr has fewer. A reader of
// the writer's own history that it never got is not charged (histSent).
func (w *Writer) spend(pr *readerProxy, sn rtps.SequenceNumber, n int, now time.Time) bool {
	if sn > pr.histSent && sn <= pr.histEnd {
		pr.histSent = sn
		return true
	}
	rate, most := float64(max(resendCreditRate, w.largestFrags)), float64(max(resendCreditMax, 2*w.largestFrags))
	pr.credit = min(most, pr.credit+now.Sub(pr.creditAt).Seconds()*rate)
	pr.creditAt = now
	if pr.credit < float64(n) {
		w.p.hitLimit(LimitResendBudget, "writer", w.guid, "reader", pr.guid)
		return false
	}
	pr.credit -= float64(n)
	return true
}

// fragments returns the number of datagrams c takes.
func fragments(c *change) int {
	if len(c.payload)+len(c.inline) <= fragSize {
		return 1
	}
	return (len(c.payload) + fragSize - 1) / fragSize
}

// onAckNack handles an ACKNACK from reader g.
func (w *Writer) onAckNack(g rtps.GUID, a *rtps.AckNack) {
	w.mu.Lock()
	defer w.mu.Unlock()
	pr := w.proxy(g)
	if pr == nil || !pr.reliable || pr.local != nil || w.closed {
		return
	}
	now := time.Now()
	// A pre-emptive ACKNACK (base 0, or base 1 with count 0 from
	// Cyclone) is always taken; others by count (see acceptCount).
	preemptive := a.State.Base < 1 || (a.State.Base == 1 && a.Count == 0 && a.State.NumBits == 0)
	if !acceptCount(a.Count, &pr.ackSeen, &pr.ackCount, &pr.ackAt, now) && !preemptive {
		return
	}
	if !pr.answered && pr.hbGap > heartbeatPeriod {
		// Answering again after a silence: back to the normal pace.
		pr.hbGap, pr.nextHB = heartbeatPeriod, now.Add(heartbeatPeriod)
		w.p.dueBy(pr.nextHB)
	}
	pr.answered, pr.heard = true, true
	synced := pr.unsynced && a.Final
	if synced {
		pr.unsynced = false
	}
	base, acked0 := min(a.State.Base, w.lastSN+1), pr.acked
	if base > pr.acked {
		if pr.acked >= 1 {
			pr.credit = min(float64(max(resendCreditMax, 2*w.largestFrags)), pr.credit+float64(base-pr.acked))
		}
		pr.acked = base
		w.prune()
		w.signalRoom()
	}
	var gone []rtps.SequenceNumber
	resent, missing, quiet, rs := false, false, false, resends{w: w, pr: pr, now: now}
	for sn := range a.State.All() {
		// A reader does not miss what it acknowledged: a NACK below
		// that is a lie, or a stale ACKNACK.
		if sn < 1 || sn > w.lastSN || sn < pr.acked {
			continue
		}
		missing = true
		c := w.hist.get(sn)
		if c == nil || sn < pr.floor || (!c.expires.IsZero() && now.After(c.expires)) {
			gone = append(gone, sn)
			continue
		}
		if c.resentTo == pr && now.Sub(c.resentAt) < resendQuiet {
			quiet = true
			continue
		}
		if !w.spend(pr, sn, fragments(c), now) {
			break
		}
		if sn > pr.histEnd {
			w.lost(sn)
		}
		rs.add(c)
		resent = true
	}
	if base > acked0 && a.State.NumBits == 0 {
		w.ackedClean(base)
	}
	if pr.repairing && !missing {
		resent = w.release(pr, &rs, now) || resent
	}
	pr.repairing = missing
	if len(gone) > 0 {
		rs.flush(false)
		w.sendGaps(pr, gone)
	}
	switch {
	case resent || len(gone) > 0 || (synced && pr.acked <= w.lastSN):
		// After a sync, the real range: the reader asks for what it
		// dropped.
		if !rs.flush(true) {
			w.sendHeartbeat(pr, false)
		}
	case quiet:
		// Answered already: the resends it crossed carry a HEARTBEAT.
	case !a.Final:
		w.sendHeartbeat(pr, pr.acked > w.lastSN)
	}
}

// onNackFrag handles a NACK_FRAG from reader g: it resends the requested
// fragments, or a GAP if the sample is gone.
func (w *Writer) onNackFrag(g rtps.GUID, n *rtps.NackFrag) {
	w.mu.Lock()
	defer w.mu.Unlock()
	pr := w.proxy(g)
	if pr == nil || !pr.reliable || pr.local != nil || w.closed {
		return
	}
	if pr.nfSeen && !serialAfter(n.Count, pr.nfCount) {
		return
	}
	pr.nfSeen, pr.nfCount = true, n.Count
	pr.answered, pr.heard = true, true
	c := w.hist.get(n.SN)
	if c == nil || n.SN < pr.floor {
		if n.SN >= 1 && n.SN <= w.lastSN {
			w.sendGaps(pr, []rtps.SequenceNumber{n.SN})
		}
		return
	}
	now := time.Now()
	if len(c.payload)+len(c.inline) <= fragSize {
		if w.spend(pr, n.SN, 1, now) {
			w.sendChange(pr, c, false, false)
		}
		return
	}
	for i := range n.State.All() {
		if !w.spend(pr, 0, 1, now) {
			return
		}
		w.sendFrag(pr, c, i, false)
	}
}

// prune drops the changes of a volatile KEEP_ALL writer that every
// reliable reader acknowledged. Call with w.mu held.
func (w *Writer) prune() {
	if w.builtin || w.qos.History != KeepAll || w.qos.Durability != Volatile {
		return
	}
	m := w.minAcked()
	for w.hist.len() > 0 && w.hist.changes[0].sn < m {
		w.spare.put(w.hist.dropFirst())
	}
}

// tick sends periodic HEARTBEATs to readers with unacknowledged samples and
// drops expired samples. It returns when it is next needed (zero if not).
func (w *Writer) tick(now time.Time) time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return time.Time{}
	}
	var next time.Time
	if w.qos.Lifespan > 0 && w.hist.len() > 0 {
		w.hist.dropExpired(now)
		if w.hist.len() > 0 {
			next = now.Add(tickPeriod)
		}
	}
	for _, pr := range w.proxies {
		if !pr.reliable || pr.acked > w.lastSN || pr.local != nil {
			continue
		}
		if !now.Before(pr.nextHB) {
			// Back off while the reader does not answer: one that never
			// does (a locator nobody listens on, a reader gone) costs
			// less and less, down to one HEARTBEAT every maxBackoff.
			if pr.answered {
				pr.hbGap = heartbeatPeriod
			} else {
				// A reader that answered before is on a lossy or
				// congested link, not gone: its ACKNACKs are lost, and
				// backing off to maxBackoff stalled the repair of a 6 MB
				// image over a 50 Mbit/s link for half a minute.
				most := maxBackoff
				if pr.heard {
					most = answeredBackoff
				}
				pr.hbGap = min(max(2*pr.hbGap, heartbeatPeriod), most)
			}
			pr.answered = false
			pr.nextHB = now.Add(pr.hbGap)
			if now.Sub(pr.solicited) >= keepLastAckGap/2 {
				// else a HEARTBEAT after new data just asked it
				w.sendHeartbeat(pr, false)
				pr.solicited = now
			}
		}
		next = earliest(next, latest(pr.nextHB, now.Add(tickPeriod)))
	}
	return next
}

// unacked reports whether a reliable reader has not acknowledged every
// sample (w.mu held).
func (w *Writer) unacked() bool {
	for _, pr := range w.proxies {
		if pr.reliable && pr.acked <= w.lastSN {
			return true
		}
	}
	return false
}

// nextTick returns when the writer's tick is next needed while it has
// unacknowledged samples (w.mu held).
func (w *Writer) nextTick(now time.Time) time.Time {
	var next time.Time
	for _, pr := range w.proxies {
		if pr.reliable && pr.acked <= w.lastSN && pr.local == nil {
			next = earliest(next, pr.nextHB)
		}
	}
	return latest(next, now.Add(tickPeriod))
}

// wakeTimers asks the participant's timer loop to tick when the writer
// next needs it, after a write or a new match (w.mu held).
func (w *Writer) wakeTimers(now time.Time) {
	switch {
	case w.qos.Lifespan > 0 && w.hist.len() > 0:
		w.p.dueBy(now.Add(tickPeriod))
	case w.unacked():
		w.p.dueBy(w.nextTick(now))
	}
}

// addProxy matches reader g: it announces the history with a HEARTBEAT (a
// reliable reader then asks for what it misses) or, to a best-effort late
// joiner of a TRANSIENT_LOCAL writer, sends it at once. A reader of the
// writer's own participant gets a TRANSIENT_LOCAL history in memory.
func (w *Writer) addProxy(g rtps.GUID, locs []netip.AddrPort, reliable, lateJoiner, startsAtHeartbeat bool) {
	var local *Reader
	if !w.builtin {
		local = w.p.localReader(g) // before w.mu: it takes p.mu
	}
	defer w.p.local.run()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || w.proxy(g) != nil {
		return
	}
	pr := &readerProxy{guid: g, locs: locs, reliable: reliable && w.qos.Reliability == Reliable}
	pr.floor = w.lastSN + 1
	if w.builtin || (lateJoiner && w.qos.Durability == TransientLocal) {
		pr.floor = 1
	}
	pr.acked = pr.floor
	pr.unsynced = pr.reliable && startsAtHeartbeat && !lateJoiner && !w.builtin
	if local != nil {
		pr.local, pr.locs, pr.acked = local, nil, w.lastSN+1
	}
	now := time.Now()
	pr.credit, pr.creditAt = resendCreditInit, now
	if pr.floor == 1 {
		pr.histEnd = w.lastSN
	}
	pr.hbGap, pr.nextHB = heartbeatPeriod, now.Add(heartbeatPeriod)
	pr.index = len(w.proxies)
	w.proxies = append(w.proxies, pr)
	w.byGUID[g] = pr
	if !pr.reliable && local == nil && !w.builtin {
		pr.group = groupKey(g, locs)
		members := append(w.groups[pr.group], pr)
		w.groups[pr.group] = members
		pr.follower = len(members) > 1
		members[0].grouped = len(members) > 1
	}
	w.status.setMatched(len(w.proxies))
	switch {
	case local != nil:
		if pr.floor == 1 {
			w.queueHistory(pr)
		}
	case pr.reliable:
		w.sendHeartbeat(pr, false)
		pr.solicited = time.Now()
		w.wakeTimers(pr.solicited)
	case pr.floor == 1:
		for _, c := range w.hist.changes {
			w.sendChange(pr, c, false, false)
		}
	}
}

// removeProxy unmatches reader g.
func (w *Writer) removeProxy(g rtps.GUID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	pr := w.byGUID[g]
	if pr == nil {
		return
	}
	delete(w.byGUID, g)
	if pr.group != "" {
		members := w.groups[pr.group]
		for i, m := range members {
			if m == pr {
				members = append(members[:i], members[i+1:]...)
				break
			}
		}
		if len(members) == 0 {
			delete(w.groups, pr.group)
		} else {
			w.groups[pr.group] = members
			members[0].follower, members[0].grouped = false, len(members) > 1
		}
	}
	last := len(w.proxies) - 1
	w.proxies[pr.index] = w.proxies[last]
	w.proxies[pr.index].index = pr.index
	w.proxies[last] = nil
	w.proxies = w.proxies[:last]
	w.status.setMatched(len(w.proxies))
	w.prune()
	w.signalRoom()
}

// Close unmatches every reader and announces the writer's end. Writes
// after Close fail with ErrClosed. Close is idempotent.
func (w *Writer) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	for _, pr := range w.proxies {
		w.flushProxy(pr)
	}
	w.closed = true
	w.proxies = nil
	w.byGUID = map[rtps.GUID]*readerProxy{}
	w.groups = map[string][]*readerProxy{}
	w.hist = history{}
	w.signalRoom()
	w.mu.Unlock()
	w.status.close()
	if !w.builtin {
		w.p.removeLocalWriter(w)
	}
	return nil
}
