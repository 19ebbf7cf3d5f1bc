package rtps_test

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/afor-go/afor/transport/dds/internal/rtps"
)

// printer prints the DATA and HEARTBEAT submessages it receives.
type printer struct{ rtps.NopHandler }

func (printer) Data(rc *rtps.Context, d *rtps.Data) {
	fmt.Printf("DATA from %v writer %v sn %d: %q\n", rc.SourcePrefix, d.WriterID, d.SN, d.Payload[8:13])
}

func (printer) Heartbeat(rc *rtps.Context, h *rtps.Heartbeat) {
	fmt.Printf("HEARTBEAT %d..%d final=%v\n", h.First, h.Last, h.Final)
}

// A writer builds one datagram with a DATA and a HEARTBEAT; the reader's
// Receiver walks it without allocating.
func Example() {
	me := rtps.GuidPrefix{0x01, 0xaf, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	peer := rtps.GuidPrefix{0x01, 0x0f, 0x7f, 0x01, 0xc5, 0x4f, 0x91, 0x85}
	writer := rtps.NewUserEntityID(1, rtps.KindWriterNoKey)

	var b rtps.Builder
	b.Reset(rtps.Header{Version: rtps.ProtocolVersion24, Vendor: rtps.VendorAfor, Prefix: me})
	b.InfoDst(peer)
	b.InfoTS(rtps.TimeFrom(time.Unix(1_800_000_000, 0)))
	// A CDR_LE std_msgs/String "hello".
	cdr := []byte{0, 1, 0, 0, 6, 0, 0, 0, 'h', 'e', 'l', 'l', 'o', 0}
	b.Data(&rtps.Data{ReaderID: rtps.EntityUnknown, WriterID: writer, SN: 1, Payload: cdr})
	b.Heartbeat(&rtps.Heartbeat{WriterID: writer, First: 1, Last: 1, Count: 1, Final: true})

	r := rtps.Receiver{Self: peer}
	if err := r.Parse(b.Bytes(), printer{}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// DATA from 01af0102.03040506.0708090a writer 00000103 sn 1: "hello"
	// HEARTBEAT 1..1 final=true
}

// A writer answering a service request adds the related sample identity
// as inline QoS, written straight into the message.
func ExampleBuilder_DataWith() {
	request := rtps.SampleIdentity{
		Writer: rtps.GUID{Prefix: rtps.GuidPrefix{0x01, 0x0f}, Entity: rtps.NewUserEntityID(0x13, rtps.KindReaderNoKey)},
		SN:     1,
	}
	var b rtps.Builder
	b.Reset(rtps.Header{Version: rtps.ProtocolVersion24, Vendor: rtps.VendorAfor})
	b.DataWith(&rtps.Data{WriterID: rtps.NewUserEntityID(2, rtps.KindWriterNoKey), SN: 1, Payload: []byte{0, 1, 0, 0}},
		func(w *rtps.PLWriter) { w.SampleIdentity(rtps.PIDRelatedSampleIdentity, request) })
	fmt.Println(b.Len(), b.Err())
	// Output: 80 <nil>
}

// An SPDP announcement round trip.
func ExampleParticipantData() {
	lo := netip.MustParseAddr("127.0.0.1")
	p := rtps.ParticipantData{
		GUID:               rtps.GUID{Prefix: rtps.GuidPrefix{0x01, 0xaf, 9}, Entity: rtps.EntityParticipant},
		DomainID:           42,
		DomainIDPresent:    true,
		MetatrafficUnicast: []rtps.Locator{rtps.LocatorUDPv4(lo, 17910)},
		DefaultUnicast:     []rtps.Locator{rtps.LocatorUDPv4(lo, 17911)},
		LeaseDuration:      20 * time.Second,
		BuiltinEndpoints:   rtps.BuiltinEndpointsAfor,
		UserData:           []byte("enclave=/;"),
	}
	body := p.Append(nil)
	q, err := rtps.ParseParticipantData(body, rtps.VendorAfor)
	fmt.Println(q.DomainID, q.MetatrafficUnicast[0], q.LeaseDuration, q.Vendor, err)
	// Output: 42 udpv4:127.0.0.1:17910 20s 01.af <nil>
}

// Matching a writer's offered QoS against a reader's request.
func ExampleCompatible() {
	w := rtps.DefaultWriterQoS() // RELIABLE, VOLATILE
	r := rtps.DefaultReaderQoS()
	r.Durability = rtps.TransientLocal
	ok, why := rtps.Compatible(w, r)
	fmt.Println(ok, why)
	// Output: false durability: VOLATILE offered, TRANSIENT_LOCAL requested
}
