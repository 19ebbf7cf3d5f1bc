package rmwdds

import (
	"strconv"
	"testing"

	"github.com/afor-go/afor/internal/netns"
	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/transport/dds"
)

// TestInteropCycloneServiceClient serves a Go service to a client in
// rmw_cyclonedds's form on Cyclone DDS: the request's 16-byte header is
// cut off before the handler, and the reply echoes it, as the vendor
// (01.10) dictates.
func TestInteropCycloneServiceClient(t *testing.T) {
	netns.Require(t)
	d := 150 + int(testDomain.Add(1))%50
	ctx := waitCtx(t)
	s, err := Open(ctx, Config{DomainID: d, DDS: dds.Config{Range: dds.RangeSubnet, Getenv: func(string) string { return "" }}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	n, err := s.CreateNode(rmw.NodeName{Namespace: "/", Name: "goserver"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.CreateService("/go_set", setBool, qosDefault, func(r rmw.Request) {
		data := len(r.Payload) > 4 && r.Payload[4] == 1
		if err := r.Reply(encodeSetBoolResponse(data, "go "+strconv.FormatBool(data)), nil); err != nil {
			t.Errorf("reply: %v", err)
		}
	}); err != nil {
		t.Fatal(err)
	}
	events := startPython(t, ctx, "cyclone_service_client.py", []string{strconv.Itoa(d)}, nil, "cyclonedds")
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatal("Cyclone peer ended")
			}
			if ev.Ev != "response" {
				continue
			}
			if !ev.Success || ev.Message != "go true" {
				t.Fatalf("Cyclone client got %+v", ev)
			}
			return
		case <-ctx.Done():
			t.Fatal("no reply reached the Cyclone client")
		}
	}
}
