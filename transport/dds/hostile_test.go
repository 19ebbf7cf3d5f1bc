package dds

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"net"
	"net/netip"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/afor-go/afor/transport/dds/internal/rtps"
)

// A hostile peer for the tests of issue 25: it hand-crafts RTPS datagrams
// (SPDP, SEDP, HEARTBEAT, GAP, DATA_FRAG, ACKNACK) and sends them to a
// victim participant from a socket of its own, in the tests' loopback
// namespace. The victim also gets a legitimate stream (legitStream) that
// must lose nothing, whatever the attack.

// hostile sends crafted datagrams to a victim.
type hostile struct {
	t      testing.TB
	conns  []*net.UDPConn // source sockets, used in turn by sendFrom
	victim *Participant
	meta   netip.AddrPort // the victim's metatraffic unicast port
	user   netip.AddrPort // its user unicast port
	acks   netip.AddrPort // its writers' acknowledgment port
	b      rtps.Builder
	sent   atomic.Int64
}

// newHostile opens nsrc source sockets aimed at victim.
func newHostile(t testing.TB, victim *Participant, nsrc int) *hostile {
	t.Helper()
	lo := netip.AddrFrom4([4]byte{127, 0, 0, 1})
	h := &hostile{
		t: t, victim: victim,
		meta: netip.AddrPortFrom(lo, uint16(metaUnicastPort(victim.DomainID(), victim.Index()))),
		user: netip.AddrPortFrom(lo, uint16(userUnicastPort(victim.DomainID(), victim.Index()))),
		acks: netip.AddrPortFrom(lo, victim.socks.acks.LocalAddr().(*net.UDPAddr).AddrPort().Port()),
	}
	for range max(nsrc, 1) {
		c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetWriteBuffer(4 << 20)
		t.Cleanup(func() { c.Close() })
		h.conns = append(h.conns, c)
	}
	return h
}

// randomPrefix returns a GUID prefix of a fake participant.
func randomPrefix() rtps.GuidPrefix {
	var p rtps.GuidPrefix
	_, _ = rand.Read(p[:])
	p[0], p[1] = 0x01, 0x10 // looks like Cyclone's
	return p
}

// header returns the RTPS header of a message from prefix.
func hostileHeader(prefix rtps.GuidPrefix) rtps.Header {
	return rtps.Header{Version: rtps.ProtocolVersion24, Vendor: rtps.VendorCyclone, Prefix: prefix}
}

// send sends b to dst from source socket i (mod the sockets).
func (h *hostile) sendFrom(i int, b []byte, dst netip.AddrPort) {
	c := h.conns[i%len(h.conns)]
	if _, err := c.WriteToUDPAddrPort(b, dst); err == nil {
		h.sent.Add(1)
	}
}

// msg builds a message from prefix with fill and sends it to dst from
// source socket 0.
func (h *hostile) msg(prefix rtps.GuidPrefix, dst netip.AddrPort, fill func(b *rtps.Builder)) {
	h.msgFrom(0, prefix, dst, fill)
}

func (h *hostile) msgFrom(src int, prefix rtps.GuidPrefix, dst netip.AddrPort, fill func(b *rtps.Builder)) {
	h.b.Reset(hostileHeader(prefix))
	fill(&h.b)
	h.sendFrom(src, h.b.Bytes(), dst)
}

// spdp announces a fake participant with prefix, whose locators point at
// loc (metatraffic and user), from source socket src.
func (h *hostile) spdp(src int, prefix rtps.GuidPrefix, lease time.Duration, loc netip.AddrPort) {
	pd := rtps.ParticipantData{
		GUID:    rtps.GUID{Prefix: prefix, Entity: rtps.EntityParticipant},
		Version: rtps.ProtocolVersion24, Vendor: rtps.VendorCyclone,
		DomainID: uint32(h.victim.DomainID()), DomainIDPresent: true,
		MetatrafficUnicast: []rtps.Locator{rtps.LocatorUDPv4(loc.Addr(), loc.Port())},
		DefaultUnicast:     []rtps.Locator{rtps.LocatorUDPv4(loc.Addr(), loc.Port())},
		LeaseDuration:      lease,
		BuiltinEndpoints: rtps.BuiltinParticipantAnnouncer | rtps.BuiltinParticipantDetector |
			rtps.BuiltinPublicationsAnnouncer | rtps.BuiltinPublicationsDetector |
			rtps.BuiltinSubscriptionsAnnouncer | rtps.BuiltinSubscriptionsDetector,
	}
	payload := pd.Append(nil)
	h.msgFrom(src, prefix, h.meta, func(b *rtps.Builder) {
		b.Data(&rtps.Data{ReaderID: rtps.EntitySPDPReader, WriterID: rtps.EntitySPDPWriter, SN: 1, Payload: payload})
	})
}

// sedp announces endpoint key of a fake participant on topic (a writer,
// or a reader), with SEDP sequence number sn, its unicast locator loc,
// reliable or not, and userData.
func (h *hostile) sedp(prefix rtps.GuidPrefix, sn rtps.SequenceNumber, key uint32, reader bool, topic Topic, loc netip.AddrPort, reliable bool, userData []byte) {
	kind := byte(rtps.KindWriterNoKey)
	sedpW, sedpR := rtps.EntitySEDPPubWriter, rtps.EntitySEDPPubReader
	if reader {
		kind = rtps.KindReaderNoKey
		sedpW, sedpR = rtps.EntitySEDPSubWriter, rtps.EntitySEDPSubReader
	}
	q := QoS{Reliability: BestEffort}
	if reliable {
		q.Reliability = Reliable
	}
	q, _ = q.resolve()
	ed := rtps.EndpointData{
		EndpointGUID:    rtps.GUID{Prefix: prefix, Entity: rtps.NewUserEntityID(key, kind)},
		ParticipantGUID: rtps.GUID{Prefix: prefix, Entity: rtps.EntityParticipant},
		TopicName:       topic.Name, TypeName: topic.TypeName,
		QoS:             q.wire(!reader),
		UserData:        userData,
		UnicastLocators: []rtps.Locator{rtps.LocatorUDPv4(loc.Addr(), loc.Port())},
	}
	payload := ed.Append(nil)
	h.msg(prefix, h.meta, func(b *rtps.Builder) {
		b.InfoDst(h.victim.prefix)
		b.Data(&rtps.Data{ReaderID: sedpR, WriterID: sedpW, SN: sn, Payload: payload})
	})
}

// sink is a socket that counts the datagrams sent to it: the locator a
// fake participant or endpoint names.
type sink struct {
	c *net.UDPConn
	n atomic.Int64
}

// newSink listens on addr (port 0: any), counting datagrams until the
// test ends.
func newSink(t testing.TB, ip [4]byte) *sink {
	t.Helper()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(ip[0], ip[1], ip[2], ip[3])})
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadBuffer(8 << 20)
	s := &sink{c: c}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 65536)
		for {
			if _, _, err := c.ReadFromUDPAddrPort(buf); err != nil {
				return
			}
			s.n.Add(1)
		}
	}()
	t.Cleanup(func() { c.Close(); <-done })
	return s
}

func (s *sink) addr() netip.AddrPort { return s.c.LocalAddr().(*net.UDPAddr).AddrPort() }

// legit is a legitimate publisher in another participant, writing to a
// reliable reader of the victim: the stream must lose nothing.
type legit struct {
	t      testing.TB
	topic  Topic
	pub    *Participant
	w      *Writer
	r      *Reader
	mu     sync.Mutex
	got    []int64 // the sequence numbers received, in order
	size   int
	writeE atomic.Value
}

// newLegit matches a KEEP_ALL writer of a new participant in victim's
// domain with a reliable reader of the victim on topic. Payloads are size
// bytes (at least 16).
func newLegit(t testing.TB, victim *Participant, topic Topic, size int) *legit {
	return newLegitQoS(t, victim, topic, size, QoS{Reliability: Reliable, History: KeepAll, MaxBlocking: 30 * time.Second})
}

// newLegitQoS is newLegit with the writer's QoS q.
func newLegitQoS(t testing.TB, victim *Participant, topic Topic, size int, q QoS) *legit {
	t.Helper()
	l := &legit{t: t, topic: topic, size: max(size, 16)}
	l.pub = newTestParticipant(t, Config{DomainID: victim.DomainID(), ExactDomain: true, Range: RangeLocalhost})
	var err error
	if l.w, err = NewWriter(l.pub, topic, q); err != nil {
		t.Fatal(err)
	}
	l.r, err = NewReaderFunc(victim, topic, QoS{Reliability: Reliable, History: KeepAll}, func(s Sample) {
		if len(s.Payload) < 16 {
			return
		}
		l.mu.Lock()
		l.got = append(l.got, int64(binary.LittleEndian.Uint64(s.Payload[8:])))
		l.mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := waitCtx(t)
	if err := l.w.WaitMatched(ctx, 1); err != nil {
		t.Fatalf("legit writer not matched: %v", err)
	}
	if err := l.r.WaitMatched(ctx, 1); err != nil {
		t.Fatalf("legit reader not matched: %v", err)
	}
	return l
}

// run writes n samples every period (in a goroutine), and returns a
// function that waits until they are all received and checks that none
// was lost.
func (l *legit) run(n int, period time.Duration) (wait func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		tk := time.NewTicker(period)
		defer tk.Stop()
		buf := make([]byte, l.size)
		copy(buf, []byte{0, 1, 0, 0})
		for i := range n {
			binary.LittleEndian.PutUint64(buf[8:], uint64(i))
			if err := l.w.Write(context.Background(), buf); err != nil {
				l.writeE.Store(err)
				return
			}
			<-tk.C
		}
	}()
	return func() {
		l.t.Helper()
		<-done
		if err, _ := l.writeE.Load().(error); err != nil {
			l.t.Fatalf("legit writer: %v", err)
		}
		ctx := waitCtx(l.t)
		for {
			l.mu.Lock()
			k := len(l.got)
			l.mu.Unlock()
			if k >= n {
				break
			}
			select {
			case <-ctx.Done():
				l.t.Fatalf("legit stream: %d of %d samples received", k, n)
			case <-time.After(10 * time.Millisecond):
			}
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		for i, sn := range l.got {
			if sn != int64(i) {
				l.t.Fatalf("legit stream: sample %d is %d (lost or out of order)", i, sn)
			}
		}
	}
}

// budget measures what the test process spends during an attack: CPU
// time and heap growth.
type budget struct {
	cpu0 time.Duration
	heap uint64
}

func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

func startBudget() budget { return budget{cpu0: cpuTime(), heap: heapInUse()} }

// check fails the test if the process took more than cpu of CPU time or
// grew its heap by more than heap bytes since startBudget.
func (b budget) check(t testing.TB, cpu time.Duration, heap uint64) {
	t.Helper()
	c := cpuTime() - b.cpu0
	h := heapInUse()
	grew := uint64(0)
	if h > b.heap {
		grew = h - b.heap
	}
	t.Logf("CPU %v, heap +%d KiB", c, grew>>10)
	if c > cpu {
		t.Errorf("CPU time %v, want at most %v", c, cpu)
	}
	if grew > heap {
		t.Errorf("heap grew by %d MiB, want at most %d MiB", grew>>20, heap>>20)
	}
}

// victim starts a participant in a fresh LOCALHOST domain with limits.
func newVictim(t testing.TB, lim Limits) *Participant {
	return newTestParticipant(t, Config{DomainID: nextDomain(), ExactDomain: true, Range: RangeLocalhost, Limits: lim})
}

// eventually waits until cond holds (or fails the test).
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	ctx := waitCtx(t)
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		case <-time.After(5 * time.Millisecond):
		}
	}
}
