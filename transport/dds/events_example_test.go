package dds_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/afor-go/afor/transport/dds"
)

// A request goes out with an inline related sample identity naming the
// requester's reply reader, as a ROS 2 service client on Fast DDS sends
// it; a callback reader sees it in Sample.Related, and a discovery watch
// reports the other participant's writer.
func ExampleWriter_WriteRelated() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cfg := dds.Config{DomainID: 11, Range: dds.RangeLocalhost}
	server, err := dds.NewParticipant(ctx, cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer server.Close()
	client, err := dds.NewParticipant(ctx, cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	rq := dds.Topic{Name: "rq/add_two_intsRequest", TypeName: "example_interfaces::srv::dds_::AddTwoInts_Request_"}

	found := make(chan dds.DiscoveredEndpoint, 16)
	stop := server.WatchDiscovery(func(ev dds.DiscoveryEvent) {
		if ev.Kind == dds.EndpointFound && !ev.Endpoint.Local {
			found <- ev.Endpoint
		}
	})
	defer stop()
	got := make(chan dds.Sample, 1)
	r, err := dds.NewReaderFunc(server, rq, dds.QoS{}, func(s dds.Sample) { got <- s })
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	w, err := dds.NewWriter(client, rq, dds.QoS{})
	if err != nil {
		log.Fatal(err)
	}
	if err := w.WaitMatched(ctx, 1); err != nil {
		log.Fatal(err)
	}
	e := <-found
	fmt.Println("found", e.Topic.Name, "reader:", e.Reader)

	replyReader := dds.GUID{15: 0x04} // the client's reply reader, in a real client
	related := dds.SampleIdentity{Writer: replyReader, SN: dds.SNUnknown}
	id, err := w.WriteRelated(ctx, []byte{0, 1, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0}, related)
	if err != nil {
		log.Fatal(err)
	}
	s := <-got
	fmt.Println("request SN", id.SN, "related to the reply reader:", s.Related == related)
	// Output:
	// found rq/add_two_intsRequest reader: false
	// request SN 1 related to the reply reader: true
}
