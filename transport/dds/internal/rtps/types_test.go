package rtps

import (
	"math/rand/v2"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestEntityID(t *testing.T) {
	for _, c := range []struct {
		id              EntityID
		reader, builtin bool
	}{
		{EntityParticipant, false, true},
		{EntitySPDPWriter, false, true},
		{EntitySPDPReader, true, true},
		{EntitySEDPPubReader, true, true},
		{EntitySEDPSubWriter, false, true},
		{EntityWLPReader, true, true},
		{NewUserEntityID(0x13, KindWriterNoKey), false, false},
		{NewUserEntityID(0x13, KindReaderNoKey), true, false},
		{NewUserEntityID(0x13, KindWriterKey), false, false},
		{NewUserEntityID(0x13, KindReaderKey), true, false},
	} {
		if c.id.IsReader() != c.reader || c.id.IsBuiltin() != c.builtin {
			t.Errorf("%v: reader %v builtin %v", c.id, c.id.IsReader(), c.id.IsBuiltin())
		}
	}
	if id := NewUserEntityID(0x123456, KindWriterNoKey); id != (EntityID{0x12, 0x34, 0x56, 0x03}) || id.Key() != 0x123456 || id.Kind() != 3 {
		t.Errorf("NewUserEntityID: %v", id)
	}
	if EntitySEDPPubWriter != (EntityID{0, 0, 3, 0xc2}) || EntityWLPWriter != (EntityID{0, 2, 0, 0xc2}) {
		t.Error("builtin ids")
	}
}

func TestTimeConversions(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		tm := time.Unix(r.Int64N(1<<31), r.Int64N(1e9))
		if got := TimeFrom(tm).Time(); !got.Equal(tm) {
			t.Fatalf("Time round trip %v -> %v", tm, got)
		}
		// Cyclone truncates the fraction back to nanoseconds.
		if f := TimeFrom(tm).Frac; int64(uint64(f)*1e9>>32) != int64(tm.Nanosecond()) {
			t.Fatalf("fraction %#x truncates to %d ns, want %d", f, uint64(f)*1e9>>32, tm.Nanosecond())
		}
		d := time.Duration(r.Int64N(int64(1<<31-1) * int64(time.Second)))
		if got := DurationFrom(d).Duration(); got != d {
			t.Fatalf("Duration round trip %v -> %v", d, got)
		}
	}
	if DurationFrom(100*time.Millisecond) != (Duration{0, 0x1999999a}) {
		t.Errorf("100 ms = %+v, Fast DDS sends 9a999919", DurationFrom(100*time.Millisecond))
	}
	if DurationFrom(Infinite) != DurationInfinite || DurationInfinite.Duration() != Infinite {
		t.Error("infinite duration")
	}
	if (Duration{0x7fffffff, 0}).Duration() != Infinite || DurationFrom(-time.Second) != (Duration{}) {
		t.Error("duration edge cases")
	}
	if !TimeInvalid.Time().IsZero() {
		t.Error("TimeInvalid")
	}
}

func TestLocator(t *testing.T) {
	l := LocatorUDPv4(netip.MustParseAddr("192.0.2.2"), 7410)
	if ap, ok := l.AddrPort(); !ok || ap.String() != "192.0.2.2:7410" {
		t.Errorf("AddrPort %v %v", ap, ok)
	}
	if l.Addr != [16]byte{12: 192, 13: 0, 14: 2, 15: 2} {
		t.Errorf("addr bytes %x", l.Addr)
	}
	shm := Locator{Kind: 16 + 3, Port: 7410}
	if _, ok := shm.AddrPort(); ok {
		t.Error("SHM locator has an AddrPort")
	}
	if _, ok := (Locator{Kind: LocatorKindUDPv4, Port: 70000}).AddrPort(); ok {
		t.Error("port over 16 bits accepted")
	}
}

func TestSNSet(t *testing.T) {
	s := SNSet{Base: 100}
	for _, sn := range []SequenceNumber{100, 131, 132, 355} {
		if !s.Set(sn) {
			t.Errorf("Set(%d) refused", sn)
		}
	}
	if s.Set(99) || s.Set(356) {
		t.Error("Set outside the window accepted")
	}
	if s.NumBits != 256 || !s.Has(355) || s.Has(101) || s.Has(356) {
		t.Errorf("set %+v", s)
	}
	if got := collect(s.All()); !reflect.DeepEqual(got, []SequenceNumber{100, 131, 132, 355}) {
		t.Errorf("All %v", got)
	}
	if s.Bits[0] != 0x80000001 || s.Bits[1] != 0x80000000 || s.Bits[7] != 1 {
		t.Errorf("bit layout %x", s.Bits)
	}
	// Extreme bases do not overflow.
	e := SNSet{Base: -1 << 63}
	if e.Set(1<<63-1) || e.Has(1<<63-1) {
		t.Error("overflowing Set accepted")
	}
	f := FNSet{Base: 1}
	f.Set(1)
	f.Set(256)
	if !f.Has(256) || f.Has(257) || f.Set(257) || f.NumBits != 256 {
		t.Errorf("FNSet %+v", f)
	}
	// Bits past NumBits on the wire are cleared.
	msg := hx(t, fastHeader, "06011c00 000003c7 000003c2 00000000 01000000 02000000 ffffffff 01000000")
	ev := parseAll(t, msg)
	if ev[0].an.State.Bits[0] != 0xc0000000 {
		t.Errorf("tail bits kept: %x", ev[0].an.State.Bits[0])
	}
}

func TestCompatible(t *testing.T) {
	w, r := DefaultWriterQoS(), DefaultReaderQoS()
	if ok, why := Compatible(w, r); !ok {
		t.Errorf("defaults: %s", why)
	}
	mod := func(f func(w, r *QoS)) (bool, string) {
		w, r := DefaultWriterQoS(), DefaultReaderQoS()
		f(&w, &r)
		return Compatible(w, r)
	}
	cases := []struct {
		name string
		f    func(w, r *QoS)
		ok   bool
	}{
		{"reliable reader, best-effort writer", func(w, r *QoS) { w.Reliability, r.Reliability = BestEffort, Reliable }, false},
		{"best-effort reader, reliable writer", func(w, r *QoS) {}, true},
		{"transient-local reader, volatile writer", func(w, r *QoS) { r.Durability = TransientLocal }, false},
		{"volatile reader, transient-local writer", func(w, r *QoS) { w.Durability = TransientLocal }, true},
		{"deadline longer than requested", func(w, r *QoS) { w.Deadline, r.Deadline = time.Second, time.Millisecond }, false},
		{"deadline shorter", func(w, r *QoS) { w.Deadline, r.Deadline = time.Millisecond, time.Second }, true},
		{"liveliness kind weaker", func(w, r *QoS) { r.Liveliness = LivelinessManualByTopic }, false},
		{"liveliness lease longer", func(w, r *QoS) { r.LivelinessLease = time.Second }, false},
		{"ownership differs", func(w, r *QoS) { w.Ownership = OwnershipExclusive }, false},
		{"destination order weaker", func(w, r *QoS) { r.DestinationOrder = BySourceTimestamp }, false},
		{"partition disjoint", func(w, r *QoS) { w.Partition, r.Partition = []string{"a"}, []string{"b"} }, false},
		{"partition default vs named", func(w, r *QoS) { r.Partition = []string{"b"} }, false},
		{"partition wildcard", func(w, r *QoS) { w.Partition, r.Partition = []string{"cam/*"}, []string{"x", "cam/left"} }, true},
		{"partition two wildcards", func(w, r *QoS) { w.Partition, r.Partition = []string{"c*"}, []string{"ca?"} }, false},
		{"partition empty string matches empty list", func(w, r *QoS) { w.Partition = []string{""} }, true},
	}
	for _, c := range cases {
		ok, why := mod(c.f)
		policy, _, _ := strings.Cut(why, ":")
		known := map[string]bool{"reliability": true, "durability": true, "deadline": true, "latency budget": true,
			"liveliness": true, "ownership": true, "destination order": true, "partition": true}
		if ok != c.ok || (!ok && !known[policy]) {
			t.Errorf("%s: %v %q", c.name, ok, why)
		}
	}
	for _, c := range []struct {
		w, r []int16
		ok   bool
	}{
		{nil, nil, true}, {[]int16{XCDR1}, []int16{XCDR1, XCDR2}, true}, {[]int16{XCDR2}, nil, false},
		{nil, []int16{XCDR2}, false}, {[]int16{XCDR2, XCDR1}, []int16{XCDR2}, true},
	} {
		if ok, _ := CompatibleRepresentation(c.w, c.r); ok != c.ok {
			t.Errorf("representation %v %v: %v", c.w, c.r, ok)
		}
	}
	we := EndpointData{QoS: DefaultWriterQoS(), DataRepresentation: []int16{XCDR2}}
	re := EndpointData{QoS: DefaultReaderQoS()}
	if ok, _ := EndpointsCompatible(&we, &re); ok {
		t.Error("EndpointsCompatible ignored the representation")
	}
}

func TestGlob(t *testing.T) {
	for _, c := range []struct {
		p, s string
		ok   bool
	}{
		{"*", "", true}, {"a*c", "abbbc", true}, {"a*c", "abbb", false}, {"a?c", "abc", true},
		{"*a*", "bab", true}, {"**", "x", true}, {"a", "a", true}, {"?", "", false},
	} {
		if globMatch(c.p, c.s) != c.ok {
			t.Errorf("glob %q %q", c.p, c.s)
		}
	}
}
