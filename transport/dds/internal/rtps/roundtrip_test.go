package rtps

import (
	"encoding/binary"
	"net/netip"
	"reflect"
	"testing"
	"time"
)

// beEnc is a small big-endian submessage encoder, independent of Builder,
// to check that Parse reads both byte orders.
type beEnc struct{ b []byte }

func (e *beEnc) u16(v uint16)           { e.b = binary.BigEndian.AppendUint16(e.b, v) }
func (e *beEnc) u32(v uint32)           { e.b = binary.BigEndian.AppendUint32(e.b, v) }
func (e *beEnc) sn(s SequenceNumber)    { e.u32(uint32(int64(s) >> 32)); e.u32(uint32(s)) }
func (e *beEnc) ids(r, w EntityID)      { e.b = append(e.b, r[:]...); e.b = append(e.b, w[:]...) }
func (e *beEnc) sub(id, flags byte) int { e.b = append(e.b, id, flags, 0, 0); return len(e.b) }
func (e *beEnc) end(start int) {
	for len(e.b)%4 != 0 {
		e.b = append(e.b, 0)
	}
	binary.BigEndian.PutUint16(e.b[start-2:], uint16(len(e.b)-start))
}
func (e *beEnc) snSet(s SNSet) {
	e.sn(s.Base)
	e.u32(s.NumBits)
	for i := range s.words() {
		e.u32(s.Bits[i])
	}
}

// inlineBE encodes a related sample identity, a key hash and a status as a
// big-endian inline QoS list.
func (e *beEnc) inlineBE(si SampleIdentity, key GUID, status uint32) {
	e.u16(PIDRelatedSampleIdentity)
	e.u16(24)
	e.b = append(e.b, si.Writer.Prefix[:]...)
	e.b = append(e.b, si.Writer.Entity[:]...)
	e.sn(si.SN)
	e.u16(PIDKeyHash)
	e.u16(16)
	e.b = append(e.b, key.Prefix[:]...)
	e.b = append(e.b, key.Entity[:]...)
	e.u16(PIDStatusInfo)
	e.u16(4)
	e.u32(status)
	e.u16(PIDSentinel)
	e.u16(0)
}

func TestRoundTripBothEndians(t *testing.T) {
	wr, rd := NewUserEntityID(0x12, KindWriterNoKey), NewUserEntityID(0x34, KindReaderNoKey)
	si := SampleIdentity{Writer: GUID{cycPrefix, rd}, SN: 77}
	key := GUID{cycPrefix, wr}
	payload := []byte{0, 1, 0, 0, 5, 0, 0, 0, 'h', 'e', 'l', 'l', 'o', 0, 0, 0}
	acks := SNSet{Base: 5}
	acks.Set(5)
	acks.Set(70)
	acks.Set(260)
	gap := SNSet{Base: 10}
	gap.Set(12)
	var fn FNSet
	fn.Base = 3
	fn.Set(3)
	fn.Set(40)
	hdr := Header{Version: ProtocolVersion{2, 1}, Vendor: VendorCyclone, Prefix: cycPrefix}
	ts := TimeFrom(time.Date(2026, 12, 1, 12, 0, 0, 500_000_000, time.UTC))

	var b Builder
	b.Reset(hdr)
	b.InfoDst(ourPrefix)
	b.InfoTS(ts)
	b.DataWith(&Data{ReaderID: rd, WriterID: wr, SN: 3, Payload: payload}, func(w *PLWriter) {
		w.SampleIdentity(PIDRelatedSampleIdentity, si)
		w.KeyHash(key)
		w.StatusInfo(0)
	})
	b.DataFrag(&DataFrag{ReaderID: rd, WriterID: wr, SN: 4, FragStart: 2, FragsInSubmsg: 2, FragSize: 8, SampleSize: 40, Payload: payload})
	b.Heartbeat(&Heartbeat{ReaderID: rd, WriterID: wr, First: 1, Last: 4, Count: 9, Final: true, Liveliness: true})
	b.AckNack(&AckNack{ReaderID: rd, WriterID: wr, State: acks, Count: 2, Final: true})
	b.NackFrag(&NackFrag{ReaderID: rd, WriterID: wr, SN: 4, State: fn, Count: 3})
	b.HeartbeatFrag(&HeartbeatFrag{ReaderID: rd, WriterID: wr, SN: 4, LastFrag: 5, Count: 4})
	b.Gap(&Gap{ReaderID: rd, WriterID: wr, Start: 8, List: gap})
	b.InfoTS(TimeInvalid)
	b.Heartbeat(&Heartbeat{ReaderID: EntityUnknown, WriterID: wr, First: 1, Last: 0, Count: 10})
	if b.Err() != nil {
		t.Fatal(b.Err())
	}
	le := b.Bytes()

	e := &beEnc{b: append([]byte(nil), le[:HeaderSize]...)}
	s := e.sub(idInfoDst, 0)
	e.b = append(e.b, ourPrefix[:]...)
	e.end(s)
	s = e.sub(idInfoTS, 0)
	e.u32(uint32(ts.Sec))
	e.u32(ts.Frac)
	e.end(s)
	s = e.sub(idData, flagDataQ|flagDataD)
	e.u16(0)
	e.u16(16)
	e.ids(rd, wr)
	e.sn(3)
	e.inlineBE(si, key, 0)
	e.b = append(e.b, payload...)
	e.end(s)
	s = e.sub(idDataFrag, 0)
	e.u16(0)
	e.u16(28)
	e.ids(rd, wr)
	e.sn(4)
	e.u32(2)
	e.u16(2)
	e.u16(8)
	e.u32(40)
	e.b = append(e.b, payload...)
	e.end(s)
	s = e.sub(idHeartbeat, flagFinal|flagLiveliness)
	e.ids(rd, wr)
	e.sn(1)
	e.sn(4)
	e.u32(9)
	e.end(s)
	s = e.sub(idAckNack, flagFinal)
	e.ids(rd, wr)
	e.snSet(acks)
	e.u32(2)
	e.end(s)
	s = e.sub(idNackFrag, 0)
	e.ids(rd, wr)
	e.sn(4)
	e.u32(fn.Base)
	e.u32(fn.NumBits)
	for i := range fn.words() {
		e.u32(fn.Bits[i])
	}
	e.u32(3)
	e.end(s)
	s = e.sub(idHeartbeatFrag, 0)
	e.ids(rd, wr)
	e.sn(4)
	e.u32(5)
	e.u32(4)
	e.end(s)
	s = e.sub(idGap, 0)
	e.ids(rd, wr)
	e.sn(8)
	e.snSet(gap)
	e.end(s)
	e.sub(idInfoTS, flagInvalidate)
	s = e.sub(idHeartbeat, 0)
	e.ids(EntityUnknown, wr)
	e.sn(1)
	e.sn(0)
	e.u32(10)
	e.end(s)
	be := e.b

	evLE, evBE := parseAll(t, le), parseAll(t, be)
	if len(evLE) != 8 || len(evBE) != 8 {
		t.Fatalf("%d LE events, %d BE events", len(evLE), len(evBE))
	}
	for i := range evLE {
		a, z := evLE[i], evBE[i]
		if a.ctx.DestPrefix != ourPrefix || a.ctx.SourcePrefix != cycPrefix {
			t.Errorf("event %d context %+v", i, a.ctx)
		}
		if i < 7 && (!a.ctx.HaveTimestamp || a.ctx.Timestamp != ts) {
			t.Errorf("event %d timestamp %+v", i, a.ctx)
		}
		if i == 7 && a.ctx.HaveTimestamp {
			t.Errorf("INFO_TS invalidate ignored")
		}
		// The inline QoS bytes differ by byte order: compare decoded.
		qa, err1 := ParseInlineQoS(a.data.InlineQoS, a.data.LittleEndian, VendorCyclone)
		qz, err2 := ParseInlineQoS(z.data.InlineQoS, z.data.LittleEndian, VendorCyclone)
		if a.kind == "DATA" {
			if err1 != nil || err2 != nil || qa != qz || !qa.HasRelated || qa.Related != si || !qa.HasKeyHash || !qa.HasStatusInfo {
				t.Errorf("inline QoS %+v %v / %+v %v", qa, err1, qz, err2)
			}
			if !a.data.LittleEndian || z.data.LittleEndian {
				t.Errorf("LittleEndian flags %v %v", a.data.LittleEndian, z.data.LittleEndian)
			}
		}
		a.data.InlineQoS, z.data.InlineQoS = nil, nil
		a.data.LittleEndian, z.data.LittleEndian = false, false
		a.frag.LittleEndian, z.frag.LittleEndian = false, false
		if !reflect.DeepEqual(a, z) {
			t.Errorf("event %d differs:\nLE %+v\nBE %+v", i, a, z)
		}
	}
	want := []string{"DATA", "DATA_FRAG", "HEARTBEAT", "ACKNACK", "NACK_FRAG", "HEARTBEAT_FRAG", "GAP", "HEARTBEAT"}
	for i, k := range want {
		if evLE[i].kind != k {
			t.Errorf("event %d is %s, want %s", i, evLE[i].kind, k)
		}
	}
	if got := evLE[1].frag.Payload; len(got) != 16 {
		t.Errorf("fragment payload %d bytes", len(got))
	}
	if got := collect(evLE[3].an.State.All()); !reflect.DeepEqual(got, []SequenceNumber{5, 70, 260}) {
		t.Errorf("acknack set %v", got)
	}
	if got := collect(evLE[4].nf.State.All()); !reflect.DeepEqual(got, []uint32{3, 40}) {
		t.Errorf("nackfrag set %v", got)
	}
}

func TestInfoSrcAndReply(t *testing.T) {
	e := &beEnc{b: hx(t, fastHeader)}
	// INFO_REPLY LE with 5 unicast locators (one over the cap) and 1 multicast.
	s := e.sub(idInfoReply, flagE|flagReplyMulti)
	e.b = le32(e.b, 5)
	for i := range 5 {
		l := LocatorUDPv4(netip.AddrFrom4([4]byte{10, 0, 0, byte(i)}), uint16(7400+i))
		e.b = le32(le32(e.b, uint32(l.Kind)), l.Port)
		e.b = append(e.b, l.Addr[:]...)
	}
	mc := LocatorUDPv4(netip.MustParseAddr("239.255.0.1"), 7401)
	e.b = le32(le32(le32(e.b, 1), uint32(mc.Kind)), mc.Port)
	e.b = append(e.b, mc.Addr[:]...)
	binary.LittleEndian.PutUint16(e.b[s-2:], uint16(len(e.b)-s))
	hb := func() {
		s := e.sub(idHeartbeat, 0)
		e.ids(EntityUnknown, EntitySEDPPubWriter)
		e.sn(1)
		e.sn(1)
		e.u32(1)
		e.end(s)
	}
	hb()
	// INFO_SRC (BE) changes the source and clears the reply locators.
	s = e.sub(idInfoSrc, 0)
	e.u32(0)
	e.b = append(e.b, 2, 5, 0x01, 0x10)
	e.b = append(e.b, cycPrefix[:]...)
	e.end(s)
	hb()
	// INFO_REPLY_IP4 with multicast.
	s = e.sub(idInfoReplyIP4, flagReplyMulti)
	e.u32(0x7f000001)
	e.u32(7411)
	e.u32(0xefff0001)
	e.u32(7401)
	e.end(s)
	hb()

	ev := parseAll(t, e.b)
	if len(ev) != 3 {
		t.Fatalf("%d events", len(ev))
	}
	if c := ev[0].ctx; len(c.UnicastReply) != MaxReplyLocators || len(c.MulticastReply) != 1 || c.MulticastReply[0] != mc || c.SourcePrefix != fastPrefix {
		t.Errorf("after INFO_REPLY: %+v", c)
	}
	if ap, ok := ev[0].ctx.UnicastReply[3].AddrPort(); !ok || ap.String() != "10.0.0.3:7403" {
		t.Errorf("reply locator %v", ap)
	}
	if c := ev[1].ctx; c.UnicastReply != nil || c.SourcePrefix != cycPrefix || c.SourceVendor != VendorCyclone || c.SourceVersion != (ProtocolVersion{2, 5}) {
		t.Errorf("after INFO_SRC: %+v", c)
	}
	c := ev[2].ctx
	u, _ := c.UnicastReply[0].AddrPort()
	m, _ := c.MulticastReply[0].AddrPort()
	if u.String() != "127.0.0.1:7411" || m.String() != "239.255.0.1:7401" {
		t.Errorf("INFO_REPLY_IP4 %v %v", u, m)
	}
}

func TestDiscoveryBigEndian(t *testing.T) {
	// A PL_CDR_BE SPDP body, as an old or exotic peer may send.
	body := hx(t, "00020000",
		"00500010 01104d95 11223344 55667788 000001c1",
		"000f0004 00000007",
		"00320018 00000001 00001cf2 00000000 00000000 00000000 7f000001",
		"00020008 0000000a 00000000",
		"00580004 00000c3f",
		"002c0008 00000003 61620000",
		"00620008 00000002 2f000000",
		"00590014 00000001 00000002 61000000 00000004 78797a00",
		"00010000")
	p, err := ParseParticipantData(body, VendorCyclone)
	if err != nil {
		t.Fatal(err)
	}
	want := ParticipantData{
		GUID: GUID{cycPrefix, EntityParticipant}, DomainID: 7, DomainIDPresent: true,
		MetatrafficUnicast: []Locator{LocatorUDPv4(netip.MustParseAddr("127.0.0.1"), 7410)},
		LeaseDuration:      10 * time.Second, BuiltinEndpoints: 0xc3f,
		UserData: []byte("ab\x00"), EntityName: "/", Properties: [][2]string{{"a", "xyz"}},
	}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("BE participant\n got %+v\nwant %+v", p, want)
	}
	sedp := hx(t, "00020000",
		"005a0010 01104d95 11223344 55667788 00000107",
		"00050010 0000000b", `"rt/chatter"`, "0000",
		"001a000c 00000002 00000000 1999999a",
		"001d0004 00000001",
		"00400008 00000001 00000000",
		"00290014 00000002 00000002 61000000 00000002 62000000",
		"00730008 00000002 00000002",
		"00010000")
	e, err := ParseEndpointData(sedp, VendorCyclone)
	if err != nil {
		t.Fatal(err)
	}
	q := DefaultReaderQoS()
	q.Reliability, q.Durability, q.History, q.HistoryPresent = Reliable, TransientLocal, KeepAll, true
	q.Depth = 0
	q.Partition = []string{"a", "b"}
	if e.TopicName != "rt/chatter" || !reflect.DeepEqual(e.QoS, q) || !reflect.DeepEqual(e.DataRepresentation, []int16{XCDR1, XCDR2}) {
		t.Errorf("BE endpoint %+v", e)
	}
}

func TestEndpointRoundTrip(t *testing.T) {
	q := DefaultWriterQoS()
	q.Durability = TransientLocal
	q.History, q.Depth = KeepLast, 7
	q.Deadline = 250 * time.Millisecond
	q.LatencyBudget = time.Millisecond
	q.Lifespan = 10 * time.Second
	q.Liveliness, q.LivelinessLease = LivelinessManualByTopic, 3*time.Second
	q.Ownership, q.OwnershipStrength = OwnershipExclusive, 5
	q.DestinationOrder = BySourceTimestamp
	q.Partition = []string{"p1", "x*"}
	e := EndpointData{
		EndpointGUID:       GUID{ourPrefix, NewUserEntityID(9, KindWriterNoKey)},
		ParticipantGUID:    GUID{ourPrefix, EntityParticipant},
		TopicName:          "rt/image",
		TypeName:           "sensor_msgs::msg::dds_::Image_",
		QoS:                q,
		UnicastLocators:    []Locator{LocatorUDPv4(netip.MustParseAddr("127.0.0.1"), 7411)},
		MulticastLocators:  []Locator{LocatorUDPv4(netip.MustParseAddr("239.255.0.1"), 7401)},
		UserData:           []byte("typehash=RIHS01_x;"),
		DataRepresentation: []int16{XCDR1},
	}
	if err := e.Validate(); err != nil {
		t.Fatal(err)
	}
	got, err := ParseEndpointData(e.Append(nil), VendorAfor)
	if err != nil {
		t.Fatal(err)
	}
	q.HistoryPresent = true
	e.QoS = q
	// Durations survive exactly: DurationFrom rounds up, Duration down.
	if !reflect.DeepEqual(got, e) {
		t.Errorf("round trip\n got %+v\nwant %+v", got, e)
	}
	// A reader with default QoS still carries RELIABILITY, DURABILITY, HISTORY.
	r := EndpointData{EndpointGUID: GUID{ourPrefix, NewUserEntityID(10, KindReaderNoKey)}, QoS: DefaultReaderQoS(), ExpectsInlineQoS: true}
	body := r.Append(nil)
	for _, pid := range []uint16{PIDReliability, PIDDurability, PIDHistory, PIDExpectsInlineQoS} {
		indexPID(t, body, pid)
	}
	got, err = ParseEndpointData(body, VendorAfor)
	r.QoS.HistoryPresent = true
	if err != nil || !reflect.DeepEqual(got.QoS, r.QoS) || !got.ExpectsInlineQoS {
		t.Errorf("reader round trip %+v, %v", got, err)
	}
}
