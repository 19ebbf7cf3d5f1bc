package dds

import (
	"net"
	"testing"
)

// TestAckPort checks that Config.AckPort is the port the participant's
// writers announce for acknowledgments, and that a reliable KEEP_ALL
// writer gets its reader's acknowledgments there: more samples than its
// history holds all arrive, which needs them.
func TestAckPort(t *testing.T) {
	l, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	port := l.LocalAddr().(*net.UDPAddr).Port
	l.Close() // a free port to configure (the test runs in its own network namespace)
	d := nextDomain()
	a := newTestParticipant(t, Config{DomainID: d, Range: RangeLocalhost, AckPort: port})
	b := newTestParticipant(t, Config{DomainID: d, Range: RangeLocalhost})
	for _, loc := range a.ackLocators() {
		if int(loc.Port) != port {
			t.Fatalf("writers announce %v, want port %d", loc, port)
		}
	}
	if len(a.ackLocators()) == 0 {
		t.Fatal("no acknowledgment locator")
	}
	topic := Topic{Name: "ackport", TypeName: "Bytes"}
	c := newCollector()
	q := QoS{History: KeepAll, MaxSamples: 4}
	r, err := NewReaderFunc(b, topic, q, c.add)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w, err := NewWriter(a, topic, q)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx := waitCtx(t)
	if err := w.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	const n = 100
	for i := 1; i <= n; i++ {
		if err := w.Write(ctx, numbered(i, 16)); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	checkInOrder(t, c.wait(t, ctx, n), w, 1)
}
