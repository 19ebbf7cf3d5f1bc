package dds

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/afor-go/afor/transport/dds/internal/rtps"
)

// Tests of issue 25: each drives one attack of a misbehaving peer at a
// live participant (scaled down, with smaller limits where the defaults
// would take long to reach) and checks what it costs the victim:
// memory, CPU time, datagrams sent, and a legitimate stream (200
// samples/s, reliable KEEP_ALL) that must lose nothing. The bounds are
// generous on purpose (a loaded 2-core machine, the race detector): the
// unbounded behaviour they guard against is orders of magnitude above.

var (
	legitTopic  = Topic{Name: "rt/legit", TypeName: "std_msgs::msg::dds_::String_"}
	victimTopic = Topic{Name: "rt/victim", TypeName: "std_msgs::msg::dds_::String_"}
)

// TestAttackSPDPFlood: thousands of fake participants (lease 1 h, locators
// on a port nobody answers) from many sources, beyond MaxParticipants.
func TestAttackSPDPFlood(t *testing.T) {
	v := newVictim(t, Limits{MaxParticipants: 64})
	l := newLegit(t, v, legitTopic, 64)
	h := newHostile(t, v, 50)
	sk := newSink(t, [4]byte{127, 0, 0, 1})
	b := startBudget()
	wait := l.run(400, 5*time.Millisecond)
	for i := range 2000 {
		h.spdp(i%50, randomPrefix(), time.Hour, sk.addr())
		if i%100 == 99 {
			time.Sleep(50 * time.Millisecond) // 2000/s
		}
	}
	// A new reader of the legitimate topic matches despite the flood.
	r2, err := NewReader(v, legitTopic, QoS{Reliability: Reliable})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if err := r2.WaitMatched(waitCtx(t), 1); err != nil {
		t.Fatalf("new reader not matched: %v", err)
	}
	wait()
	st := v.Stats()
	if st.RemoteParticipants > 65 {
		t.Errorf("%d remote participants known, want at most 64 fakes + 1", st.RemoteParticipants)
	}
	if st.ByLimit[LimitParticipants] == 0 || st.ParticipantsRefused == 0 {
		t.Errorf("no participant refused for MaxParticipants: %+v", st)
	}
	// After the burst at discovery, what goes to the fakes' locators
	// backs off: measure a second of it.
	n0 := sk.n.Load()
	time.Sleep(time.Second)
	rate := sk.n.Load() - n0
	t.Logf("to the fakes' locators: %d datagrams in total, %d in the last second; refused %d", sk.n.Load(), rate, st.ParticipantsRefused)
	if rate > 500 {
		t.Errorf("%d datagrams/s to the fakes' locators, want at most 500", rate)
	}
	b.check(t, 30*time.Second, 64<<20)
}

// TestAttackSPDPFloodDefaults: the default limits against 10,000 fake
// participants at 5000/s from one socket: the receive side keeps up,
// refuses them cheaply, and the legitimate stream loses nothing.
func TestAttackSPDPFloodDefaults(t *testing.T) {
	v := newVictim(t, Limits{})
	l := newLegit(t, v, legitTopic, 64)
	h := newHostile(t, v, 1)
	sk := newSink(t, [4]byte{127, 0, 0, 1})
	b := startBudget()
	wait := l.run(400, 5*time.Millisecond)
	const n = 10000
	for i := range n {
		h.spdp(0, randomPrefix(), time.Hour, sk.addr())
		if i%50 == 49 {
			time.Sleep(10 * time.Millisecond)
		}
	}
	wait()
	st := v.Stats()
	t.Logf("received %d, refused %d, known %d, sent to the fakes %d", st.Received, st.ParticipantsRefused, st.RemoteParticipants, sk.n.Load())
	if st.RemoteParticipants > DefaultMaxParticipantsPerSource+1 {
		t.Errorf("%d remote participants known, want at most %d from one socket", st.RemoteParticipants, DefaultMaxParticipantsPerSource)
	}
	if st.ParticipantsRefused < n/2 {
		t.Errorf("only %d of %d fakes handled (refused): the receive side starves", st.ParticipantsRefused, n)
	}
	if got := sk.n.Load(); got > 50*DefaultMaxParticipantsPerSource {
		t.Errorf("%d datagrams to the fakes' locators, want at most %d", got, 50*DefaultMaxParticipantsPerSource)
	}
	b.check(t, 30*time.Second, 64<<20)
}

// TestAttackReflector: one fake participant whose locators name a third
// host, with an infinite lease: what the victim sends there backs off
// and ends with the clamped lease.
func TestAttackReflector(t *testing.T) {
	v := newVictim(t, Limits{MaxLease: 2 * time.Second})
	l := newLegit(t, v, legitTopic, 64)
	h := newHostile(t, v, 1)
	third := newSink(t, [4]byte{127, 0, 0, 3})
	wait := l.run(200, 5*time.Millisecond)
	h.spdp(0, randomPrefix(), rtps.Infinite, third.addr())
	eventually(t, "the fake participant", func() bool { return v.Stats().RemoteParticipants == 2 })
	wait()
	eventually(t, "the lease to end", func() bool { return v.Stats().RemoteParticipants == 1 })
	n := third.n.Load()
	time.Sleep(time.Second)
	after := third.n.Load() - n
	t.Logf("to the third host: %d datagrams while known, %d in the second after", n, after)
	if n > 30 {
		t.Errorf("%d datagrams to the third host in 2 s, want at most 30", n)
	}
	if after > 0 {
		t.Errorf("%d datagrams to the third host after the lease ended", after)
	}
}

// TestAttackSEDPEndpoints: one fake participant announces thousands of
// reliable writers and readers on the victim's topics, with locators
// nobody answers on.
func TestAttackSEDPEndpoints(t *testing.T) {
	v := newVictim(t, Limits{MaxEndpointsPerParticipant: 256})
	l := newLegit(t, v, legitTopic, 64)
	vw, err := NewWriter(v, victimTopic, QoS{Reliability: Reliable})
	if err != nil {
		t.Fatal(err)
	}
	h := newHostile(t, v, 1)
	sk := newSink(t, [4]byte{127, 0, 0, 1})
	pre := randomPrefix()
	h.spdp(0, pre, time.Hour, sk.addr())
	eventually(t, "the fake participant", func() bool { return v.Stats().RemoteParticipants == 2 })
	b := startBudget()
	wait := l.run(400, 5*time.Millisecond)
	go func() {
		for i := range 200 {
			_ = vw.Write(context.Background(), cdrString("victim"))
			_ = i
			time.Sleep(5 * time.Millisecond)
		}
	}()
	for i := range 1000 {
		h.sedp(pre, rtps.SequenceNumber(i+1), uint32(i+1), i%2 == 0, victimTopic, sk.addr(), true, nil)
		h.sedp(pre, rtps.SequenceNumber(i+1), uint32(i+1), i%2 == 1, victimTopic, sk.addr(), true, nil)
	}
	wait()
	eventually(t, "the fake participant's end", func() bool { return v.Stats().RemoteParticipants == 1 })
	st := v.Stats()
	t.Logf("endpoints %d, dropped %d, to the fake locators %d", st.RemoteEndpoints, st.ParticipantsDropped, sk.n.Load())
	if st.ParticipantsDropped == 0 || st.ByLimit[LimitEndpointsPerParticipant] == 0 {
		t.Errorf("the fake participant was not dropped: %+v", st)
	}
	if st.RemoteEndpoints > 2 {
		t.Errorf("%d remote endpoints left, want the legit writer's", st.RemoteEndpoints)
	}
	if got := sk.n.Load(); got > 20000 {
		t.Errorf("%d datagrams to the fake endpoints, want at most 20000", got)
	}
	b.check(t, 30*time.Second, 64<<20)
}

// TestAttackSEDPUserData: writers with 21 KB of topic, type and USER_DATA
// each, under the default limits.
func TestAttackSEDPUserData(t *testing.T) {
	v := newVictim(t, Limits{})
	l := newLegit(t, v, legitTopic, 64)
	h := newHostile(t, v, 1)
	sk := newSink(t, [4]byte{127, 0, 0, 1})
	pre := randomPrefix()
	h.spdp(0, pre, time.Hour, sk.addr())
	eventually(t, "the fake participant", func() bool { return v.Stats().RemoteParticipants == 2 })
	b := startBudget()
	wait := l.run(400, 5*time.Millisecond)
	big := Topic{Name: "rt/" + string(bytes.Repeat([]byte{'t'}, 7000)), TypeName: string(bytes.Repeat([]byte{'y'}, 7000))}
	ud := bytes.Repeat([]byte{'u'}, 7000)
	for i := range 1000 {
		h.sedp(pre, rtps.SequenceNumber(i+1), uint32(i+1), false, big, sk.addr(), true, ud)
		if i%100 == 99 {
			time.Sleep(10 * time.Millisecond)
		}
	}
	wait()
	st := v.Stats()
	t.Logf("discovery bytes %d, endpoints %d, dropped %d", st.DiscoveryBytes, st.RemoteEndpoints, st.ParticipantsDropped)
	if st.DiscoveryBytes > DefaultMaxDiscoveryBytesPerParticipant {
		t.Errorf("%d discovery bytes held, want at most %d", st.DiscoveryBytes, DefaultMaxDiscoveryBytesPerParticipant)
	}
	if st.ByLimit[LimitDiscoveryBytesPerParticipant] == 0 {
		t.Errorf("MaxDiscoveryBytesPerParticipant not hit: %+v", st)
	}
	b.check(t, 30*time.Second, 64<<20)
}

// fakeWriter announces a fake participant with a writer on topic, and
// returns its GUID once the victim matched it.
func fakeWriter(t *testing.T, h *hostile, v *Participant, topic Topic, loc *sink, reliable bool) rtps.GUID {
	t.Helper()
	pre := randomPrefix()
	h.spdp(0, pre, time.Hour, loc.addr())
	eventually(t, "the fake participant", func() bool {
		p, _ := v.vendorOf(pre)
		return p == rtps.VendorCyclone
	})
	h.sedp(pre, 1, 1, false, topic, loc.addr(), reliable, nil)
	g := rtps.GUID{Prefix: pre, Entity: rtps.NewUserEntityID(1, rtps.KindWriterNoKey)}
	eventually(t, "the fake writer", func() bool {
		v.mu.RLock()
		defer v.mu.RUnlock()
		re := v.remoteWriters[g]
		return re != nil && len(re.matchedR) > 0
	})
	return g
}

// dataFrag sends a DATA_FRAG of writer g to the victim's user port.
func (h *hostile) dataFrag(g rtps.GUID, sn rtps.SequenceNumber, start uint32, fragSize uint16, sampleSize uint32, body []byte) {
	h.msg(g.Prefix, h.user, func(b *rtps.Builder) {
		b.InfoDst(h.victim.prefix)
		b.DataFrag(&rtps.DataFrag{WriterID: g.Entity, SN: sn, FragStart: start,
			FragsInSubmsg: uint16(max(1, len(body)/int(fragSize))), FragSize: fragSize, SampleSize: sampleSize, Payload: body})
	})
}

// TestAttackDataFragChurn: DATA_FRAGs of 70 bytes that announce 64 MiB
// samples with 1-byte fragments, a new SN each, 500 a second.
func TestAttackDataFragChurn(t *testing.T) {
	v := newVictim(t, Limits{})
	l := newLegit(t, v, legitTopic, 64)
	h := newHostile(t, v, 1)
	sk := newSink(t, [4]byte{127, 0, 0, 1})
	g := fakeWriter(t, h, v, legitTopic, sk, true)
	b := startBudget()
	wait := l.run(400, 5*time.Millisecond)
	body := make([]byte, 2)
	peak := int64(0)
	for i := range 1000 {
		h.dataFrag(g, rtps.SequenceNumber(i+1), 1, 1, 64<<20, body)
		peak = max(peak, v.Stats().ReassemblyBytes)
		if i%10 == 9 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	wait()
	t.Logf("reassembly bytes at most %d", peak)
	if peak > 1<<20 {
		t.Errorf("%d bytes held for reassembly, want at most 1 MiB", peak)
	}
	b.check(t, 30*time.Second, 64<<20)
}

// TestAttackDataFragHold: the same DATA_FRAGs, some spoofing the
// legitimate writer's GUID and its next SNs, beside a stream of 1 MiB
// samples.
func TestAttackDataFragHold(t *testing.T) {
	v := newVictim(t, Limits{})
	l := newLegit(t, v, legitTopic, 1<<20)
	h := newHostile(t, v, 1)
	sk := newSink(t, [4]byte{127, 0, 0, 1})
	g := fakeWriter(t, h, v, legitTopic, sk, true)
	b := startBudget()
	wait := l.run(10, 200*time.Millisecond)
	body := make([]byte, 2)
	for i := range 20 {
		h.dataFrag(g, rtps.SequenceNumber(i+1), 1, 1, 64<<20, body)
		// Spoofed: the legitimate writer's next samples.
		h.dataFrag(l.w.guid, rtps.SequenceNumber(i+2), 1, 1, 64<<20, body)
		time.Sleep(100 * time.Millisecond)
	}
	wait()
	st := v.Stats()
	t.Logf("reassembly bytes %d", st.ReassemblyBytes)
	if st.ReassemblyBytes > 1<<20 {
		t.Errorf("%d bytes held for reassembly, want at most 1 MiB", st.ReassemblyBytes)
	}
	b.check(t, 30*time.Second, 96<<20)
}

// spoof sends a HEARTBEAT or GAP as the legitimate writer.
func (h *hostile) spoof(l *legit, fill func(b *rtps.Builder, w rtps.EntityID)) {
	h.msg(l.w.guid.Prefix, h.user, func(b *rtps.Builder) {
		b.InfoDst(h.victim.prefix)
		fill(b, l.w.guid.Entity)
	})
}

// TestAttackSpoofedCount: one HEARTBEAT with count 0xFFFFFFFF (then one
// with 0x7FFFFFF0) from the legitimate writer's GUID; its KEEP_ALL writer
// needs acknowledgments every 20 samples and would time out without.
func TestAttackSpoofedCount(t *testing.T) {
	for _, count := range []uint32{0xFFFFFFFF, 0x7FFFFFF0} {
		v := newVictim(t, Limits{})
		l := newLegitQoS(t, v, legitTopic, 64, QoS{Reliability: Reliable, History: KeepAll, MaxSamples: 20, MaxBlocking: 3 * time.Second})
		h := newHostile(t, v, 1)
		wait := l.run(400, 5*time.Millisecond)
		time.Sleep(100 * time.Millisecond)
		h.spoof(l, func(b *rtps.Builder, w rtps.EntityID) {
			b.Heartbeat(&rtps.Heartbeat{WriterID: w, First: 1, Last: 1, Count: count})
		})
		wait()
	}
}

// TestAttackSpoofedGap: one GAP from the legitimate writer's GUID that
// writes off everything up to 2^62.
func TestAttackSpoofedGap(t *testing.T) {
	v := newVictim(t, Limits{})
	l := newLegit(t, v, legitTopic, 64)
	h := newHostile(t, v, 1)
	wait := l.run(400, 5*time.Millisecond)
	time.Sleep(200 * time.Millisecond)
	h.spoof(l, func(b *rtps.Builder, w rtps.EntityID) {
		b.Gap(&rtps.Gap{WriterID: w, Start: 1, List: rtps.SNSet{Base: 1 << 62}})
	})
	wait()
	if v.Stats().ByLimit[LimitImplausible] == 0 {
		t.Error("the GAP was not counted as implausible")
	}
}

// TestAttackSpoofedHeartbeatRange: one HEARTBEAT first = last = 2^62 from
// the legitimate writer's GUID. RTPS cannot tell it from a writer that
// moved on (Cyclone DDS loses the stream); this participant ignores a
// jump of more than 2^24 samples past what the writer announced.
func TestAttackSpoofedHeartbeatRange(t *testing.T) {
	v := newVictim(t, Limits{})
	l := newLegit(t, v, legitTopic, 64)
	h := newHostile(t, v, 1)
	wait := l.run(400, 5*time.Millisecond)
	time.Sleep(200 * time.Millisecond)
	h.spoof(l, func(b *rtps.Builder, w rtps.EntityID) {
		b.Heartbeat(&rtps.Heartbeat{WriterID: w, First: 1 << 62, Last: 1 << 62, Count: 1 << 30})
	})
	wait()
}

// TestAttackAckNackFlood: a fake reliable reader NACKs 256 samples of 8 KB
// 200 times a second: the resends to its locator are bounded by its
// credit, not by its requests.
func TestAttackAckNackFlood(t *testing.T) {
	v := newVictim(t, Limits{})
	l := newLegit(t, v, legitTopic, 64)
	vw, err := NewWriter(v, victimTopic, QoS{Reliability: Reliable, History: KeepLast, Depth: 256})
	if err != nil {
		t.Fatal(err)
	}
	h := newHostile(t, v, 1)
	sk := newSink(t, [4]byte{127, 0, 0, 1})
	pre := randomPrefix()
	h.spdp(0, pre, time.Hour, sk.addr())
	eventually(t, "the fake participant", func() bool { return v.Stats().RemoteParticipants == 2 })
	h.sedp(pre, 1, 1, true, victimTopic, sk.addr(), true, nil)
	if err := vw.WaitMatched(waitCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	payload := make([]byte, 8<<10)
	copy(payload, []byte{0, 1, 0, 0})
	for range 256 {
		_ = vw.Write(context.Background(), payload)
	}
	n0 := sk.n.Load()
	wait := l.run(400, 5*time.Millisecond)
	reader := rtps.NewUserEntityID(1, rtps.KindReaderNoKey)
	for i := range 400 { // 2 s at 200/s
		set := rtps.SNSet{Base: 1}
		for sn := rtps.SequenceNumber(1); sn <= 256; sn++ {
			set.Set(sn)
		}
		h.msg(pre, h.acks, func(b *rtps.Builder) {
			b.InfoDst(v.prefix)
			b.AckNack(&rtps.AckNack{ReaderID: reader, WriterID: vw.guid.Entity, State: set, Count: uint32(i + 1)})
		})
		time.Sleep(5 * time.Millisecond)
	}
	wait()
	got := sk.n.Load() - n0
	t.Logf("%d datagrams to the flooding reader for 400 ACKNACKs of 256 NACKs", got)
	if got > resendCreditInit+2*resendCreditRate+2*400+500 {
		t.Errorf("%d datagrams to the flooding reader, want at most about its credit", got)
	}
}

// TestAttackPendingHold: fake writers send SNs 2.. (never 1) of 60 KB
// samples: what is held out of order is bounded in total.
func TestAttackPendingHold(t *testing.T) {
	lim := Limits{MaxPendingBytes: 16 << 20, MaxPendingBytesPerWriter: 4 << 20}
	v := newVictim(t, lim)
	l := newLegit(t, v, legitTopic, 64)
	h := newHostile(t, v, 1)
	sk := newSink(t, [4]byte{127, 0, 0, 1})
	var ws []rtps.GUID
	for range 6 {
		ws = append(ws, fakeWriter(t, h, v, legitTopic, sk, true))
	}
	b := startBudget()
	wait := l.run(400, 5*time.Millisecond)
	payload := make([]byte, 60<<10)
	copy(payload, []byte{0, 1, 0, 0})
	peak := int64(0)
	for sn := rtps.SequenceNumber(2); sn < 200; sn++ {
		for _, g := range ws {
			h.msg(g.Prefix, h.user, func(b *rtps.Builder) {
				b.InfoDst(v.prefix)
				b.Data(&rtps.Data{WriterID: g.Entity, SN: sn, Payload: payload})
			})
		}
		peak = max(peak, v.Stats().PendingBytes)
		time.Sleep(2 * time.Millisecond)
	}
	wait()
	t.Logf("pending bytes at most %d", peak)
	if peak > int64(lim.MaxPendingBytes) {
		t.Errorf("%d bytes held out of order, want at most %d", peak, lim.MaxPendingBytes)
	}
	b.check(t, 30*time.Second, 64<<20)
}

// TestAttackSEDPPending: fake participants send SEDP samples 2.. (never
// 1) of 60 KB: each is dropped once it holds more than its discovery
// bytes.
func TestAttackSEDPPending(t *testing.T) {
	v := newVictim(t, Limits{})
	l := newLegit(t, v, legitTopic, 64)
	h := newHostile(t, v, 1)
	sk := newSink(t, [4]byte{127, 0, 0, 1})
	var pres []rtps.GuidPrefix
	for range 3 {
		pre := randomPrefix()
		h.spdp(0, pre, time.Hour, sk.addr())
		pres = append(pres, pre)
	}
	eventually(t, "the fake participants", func() bool { return v.Stats().RemoteParticipants == 4 })
	b := startBudget()
	wait := l.run(400, 5*time.Millisecond)
	payload := make([]byte, 60<<10)
	copy(payload, []byte{0, 3, 0, 0})
	peak := int64(0)
	for sn := rtps.SequenceNumber(2); sn < 200; sn++ {
		for _, pre := range pres {
			h.msg(pre, h.meta, func(b *rtps.Builder) {
				b.InfoDst(v.prefix)
				b.Data(&rtps.Data{ReaderID: rtps.EntitySEDPPubReader, WriterID: rtps.EntitySEDPPubWriter, SN: sn, Payload: payload})
			})
		}
		peak = max(peak, v.Stats().PendingBytes)
		time.Sleep(2 * time.Millisecond)
	}
	wait()
	st := v.Stats()
	t.Logf("dropped %d participants, pending at most %d", st.ParticipantsDropped, peak)
	if st.ParticipantsDropped != 3 {
		t.Errorf("%d fake participants dropped, want 3", st.ParticipantsDropped)
	}
	b.check(t, 30*time.Second, 64<<20)
}

// TestAttackBestEffortReaders: one fake participant announces a thousand
// best-effort readers of the victim's topic on one locator (under the
// default limits): each sample goes there once, to ENTITYID_UNKNOWN, not
// once per reader.
func TestAttackBestEffortReaders(t *testing.T) {
	v := newVictim(t, Limits{})
	vw, err := NewWriter(v, victimTopic, QoS{Reliability: Reliable})
	if err != nil {
		t.Fatal(err)
	}
	h := newHostile(t, v, 1)
	sk := newSink(t, [4]byte{127, 0, 0, 1})
	pre := randomPrefix()
	h.spdp(0, pre, time.Hour, sk.addr())
	eventually(t, "the fake participant", func() bool { return v.Stats().RemoteParticipants == 1 })
	const readers = 1000
	for i := range readers {
		h.sedp(pre, rtps.SequenceNumber(i+1), uint32(i+1), true, victimTopic, sk.addr(), false, nil)
	}
	eventually(t, "the fake readers", func() bool { return vw.Status().Matched == readers })
	n0 := sk.n.Load()
	for range 100 {
		if err := vw.Write(context.Background(), cdrString("victim")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	got := sk.n.Load() - n0
	t.Logf("%d datagrams for 100 samples to %d readers", got, readers)
	if got > 200 {
		t.Errorf("%d datagrams for 100 samples, want at most 200 (one a sample, and batches)", got)
	}
}
