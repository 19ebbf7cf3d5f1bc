package dds_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/transport/dds"
)

// A writer and a reader of rt/chatter in one participant: the reader's
// samples feed an afor.Sub. The payload is a CDR std_msgs/String "hi".
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p, err := dds.NewParticipant(ctx, dds.Config{DomainID: 7, Range: dds.RangeLocalhost})
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	chatter := dds.Topic{Name: "rt/chatter", TypeName: "std_msgs::msg::dds_::String_"}
	r, err := dds.NewReader(p, chatter, dds.QoS{})
	if err != nil {
		log.Fatal(err)
	}
	w, err := dds.NewWriter(p, chatter, dds.QoS{})
	if err != nil {
		log.Fatal(err)
	}
	if err := w.WaitMatched(ctx, 1); err != nil {
		log.Fatal(err)
	}
	next := r.Sub().ArmNext(ctx)
	if err := w.Write(ctx, []byte{0, 1, 0, 0, 3, 0, 0, 0, 'h', 'i', 0}); err != nil {
		log.Fatal(err)
	}
	s, err := next.Wait(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("sn %d: %q\n", s.SN, s.Payload[8:10])
	// Output: sn 1: "hi"
}

// bytesCodec passes payloads through unchanged.
type bytesCodec = afor.BytesCodec

// Two participants of a domain discover each other and exchange typed
// values through an afor.Codec; a TRANSIENT_LOCAL reader that joins late
// still receives what was written before it existed.
func ExampleSubscribeCodec() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cfg := dds.Config{DomainID: 8, Range: dds.RangeLocalhost}
	a, err := dds.NewParticipant(ctx, cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	b, err := dds.NewParticipant(ctx, cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	status := dds.Topic{Name: "robot/status", TypeName: "Bytes"}
	latched := dds.QoS{Durability: dds.TransientLocal, Depth: 1}
	w, err := dds.NewTypedWriter(a, status, latched, afor.Codec[[]byte](bytesCodec{}))
	if err != nil {
		log.Fatal(err)
	}
	if err := w.Write(ctx, []byte("\x00\x01\x00\x00ready")); err != nil {
		log.Fatal(err)
	}
	sub, err := dds.SubscribeCodec(b, status, latched, afor.Codec[[]byte](bytesCodec{}))
	if err != nil {
		log.Fatal(err)
	}
	defer sub.Close()
	v, err := sub.WaitForValue(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s\n", v[4:])
	// Output: ready
}
