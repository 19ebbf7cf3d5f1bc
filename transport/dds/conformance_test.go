package dds

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/afortest"
)

var conformanceTopic atomic.Int32

// conformancePair returns the afortest factory for a writer on one
// participant and a reader on the other (possibly the same).
func conformancePair(participants func(t *testing.T) (pub, sub *Participant)) func(t *testing.T) (func(context.Context, string) error, *afor.Sub[string]) {
	return func(t *testing.T) (func(context.Context, string) error, *afor.Sub[string]) {
		pubP, subP := participants(t)
		topic := Topic{Name: fmt.Sprint("conformance/", conformanceTopic.Add(1)), TypeName: chatter.TypeName}
		r, sub, err := NewCodecReader(subP, topic, QoS{}, afor.Codec[string](stringCodec{}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(sub.Close)
		w, err := NewTypedWriter(pubP, topic, QoS{}, afor.Codec[string](stringCodec{}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close() })
		if err := w.Writer().WaitMatched(waitCtx(t), 1); err != nil {
			t.Fatalf("WaitMatched: %v", err)
		}
		// Matching is not symmetric in time: wait for the reader too.
		if err := r.WaitMatched(waitCtx(t), 1); err != nil {
			t.Fatalf("reader WaitMatched: %v", err)
		}
		return w.Write, sub
	}
}

func TestPubSubConformanceTwoParticipants(t *testing.T) {
	afortest.RunPubSub(t, afortest.PubSub{New: conformancePair(func(t *testing.T) (*Participant, *Participant) {
		return localhostPair(t)
	})})
}

func TestPubSubConformanceOneParticipant(t *testing.T) {
	afortest.RunPubSub(t, afortest.PubSub{New: conformancePair(func(t *testing.T) (*Participant, *Participant) {
		p := newTestParticipant(t, Config{DomainID: nextDomain(), Range: RangeOff})
		return p, p
	})})
}
