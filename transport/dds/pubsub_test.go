package dds

import (
	"fmt"
	"testing"

	"github.com/afor-go/afor"
)

func TestPubSubLocalhost(t *testing.T) {
	a, b := localhostPair(t)
	testPubSub(t, a, b, QoS{}, 50)
}

func TestPubSubSameParticipant(t *testing.T) {
	a := newTestParticipant(t, Config{DomainID: nextDomain(), Range: RangeLocalhost})
	testPubSub(t, a, a, QoS{}, 20)
}

func TestPubSubBestEffort(t *testing.T) {
	a, b := localhostPair(t)
	testPubSub(t, a, b, QoS{Reliability: BestEffort}, 20)
}

// testPubSub writes n strings from pub to a reader on sub and checks they
// arrive in order.
func testPubSub(t *testing.T, pub, sub *Participant, q QoS, n int) {
	t.Helper()
	ctx := waitCtx(t)
	r, err := NewReader(sub, chatter, q, afor.WithDefaultQueueSize(0))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w, err := NewWriter(pub, chatter, q)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.WaitMatched(ctx, 1); err != nil {
		t.Fatalf("writer WaitMatched: %v", err)
	}
	if err := r.WaitMatched(ctx, 1); err != nil {
		t.Fatalf("reader WaitMatched: %v", err)
	}
	l := r.Sub().Listener(ctx, afor.Fresh(), afor.QueueSize(0))
	defer l.Stop()
	for i := range n {
		if err := w.Write(ctx, cdrString(fmt.Sprint("hello ", i))); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		s, err := l.Next(ctx)
		if err != nil {
			t.Fatalf("sample %d: %v", i, err)
		}
		got, ok := cdrStringDecode(s.Payload)
		if want := fmt.Sprint("hello ", i); !ok || got != want {
			t.Fatalf("sample %d: got %q, want %q", i, got, want)
		}
		if s.Writer != w.GUID() || s.SN != int64(i+1) {
			t.Fatalf("sample %d: writer %v sn %d, want %v sn %d", i, s.Writer, s.SN, w.GUID(), i+1)
		}
	}
}
