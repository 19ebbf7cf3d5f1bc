package dds

import (
	"bytes"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/internal/netns"
)

func TestPubSubMulticast(t *testing.T) {
	netns.Require(t)
	d := nextDomain()
	a := newTestParticipant(t, Config{DomainID: d, Range: RangeSubnet})
	b := newTestParticipant(t, Config{DomainID: d, Range: RangeSubnet})
	if a.Index() == b.Index() {
		t.Fatalf("both participants on index %d", a.Index())
	}
	testPubSub(t, a, b, QoS{}, 20)
}

func TestPubSubStaticPeers(t *testing.T) {
	d := nextDomain()
	a := newTestParticipant(t, Config{DomainID: d, Range: RangeSubnet, NoMulticast: true, StaticPeers: []string{"127.0.0.1"}})
	// b knows nobody: it learns a from a's announcements and answers.
	b := newTestParticipant(t, Config{DomainID: d, Range: RangeSubnet, NoMulticast: true, StaticPeers: []string{}, Interfaces: []string{"127.0.0.1"}})
	testPubSub(t, a, b, QoS{}, 10)
}

func TestReliableUnderLoss(t *testing.T) {
	d := nextDomain()
	var n atomic.Int64
	lossy := func(b []byte) bool { return n.Add(1)%4 == 0 } // a quarter of all datagrams
	a := newTestParticipant(t, Config{DomainID: d, Range: RangeLocalhost, dropIn: lossy})
	b := newTestParticipant(t, Config{DomainID: d, Range: RangeLocalhost, dropIn: lossy})
	testPubSub(t, a, b, QoS{History: KeepAll}, 200)
}

func TestFragmentation(t *testing.T) {
	for _, size := range []int{100_000, 1 << 20, 6 << 20} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			a, b := localhostPair(t)
			ctx := waitCtx(t)
			r, err := NewReader(b, chatter, QoS{}, afor.WithDefaultQueueSize(0))
			if err != nil {
				t.Fatal(err)
			}
			w, err := NewWriter(a, chatter, QoS{})
			if err != nil {
				t.Fatal(err)
			}
			if err := r.WaitMatched(ctx, 1); err != nil {
				t.Fatal(err)
			}
			if err := w.WaitMatched(ctx, 1); err != nil {
				t.Fatal(err)
			}
			l := r.Sub().Listener(ctx, afor.Fresh(), afor.QueueSize(0))
			defer l.Stop()
			payloads := make([][]byte, 3)
			for i := range payloads {
				payloads[i] = bytes.Repeat([]byte{byte(i + 1), 2, 3, 4, 5, 6, 7}, size/7)
				payloads[i][0], payloads[i][1] = 0, 1 // CDR_LE
				if err := w.Write(ctx, payloads[i]); err != nil {
					t.Fatal(err)
				}
			}
			for i := range payloads {
				s, err := l.Next(ctx)
				if err != nil {
					t.Fatalf("sample %d: %v", i, err)
				}
				if !bytes.Equal(s.Payload, payloads[i]) {
					t.Fatalf("sample %d: %d bytes differ from the %d written", i, len(s.Payload), len(payloads[i]))
				}
			}
		})
	}
}

func TestTransientLocalLateJoiner(t *testing.T) {
	a, b := localhostPair(t)
	ctx := waitCtx(t)
	q := QoS{Durability: TransientLocal, Depth: 5}
	w, err := NewWriter(a, chatter, q)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if err := w.Write(ctx, cdrString(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	got := make(chan string, 100)
	sub, err := SubscribeCodec(b, chatter, q, stringCodec{})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	sub.OnInput(func(s string) { got <- s })
	for i := 5; i < 10; i++ {
		select {
		case s := <-got:
			if s != fmt.Sprint(i) {
				t.Fatalf("got %q, want %d", s, i)
			}
		case <-ctx.Done():
			t.Fatalf("history sample %d never arrived", i)
		}
	}
	if err := w.Write(ctx, cdrString("live")); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-got:
		if s != "live" {
			t.Fatalf("got %q, want live", s)
		}
	case <-ctx.Done():
		t.Fatal("live sample never arrived")
	}
}

func TestVolatileLateJoinerGetsNoHistory(t *testing.T) {
	a, b := localhostPair(t)
	ctx := waitCtx(t)
	w, err := NewWriter(a, chatter, QoS{Durability: TransientLocal})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := w.Write(ctx, cdrString(fmt.Sprint("old ", i))); err != nil {
			t.Fatal(err)
		}
	}
	r, err := NewReader(b, chatter, QoS{}, afor.WithDefaultQueueSize(0))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	l := r.Sub().Listener(ctx, afor.QueueSize(0))
	defer l.Stop()
	if err := w.Write(ctx, cdrString("new")); err != nil {
		t.Fatal(err)
	}
	s, err := l.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := cdrStringDecode(s.Payload); got != "new" {
		t.Fatalf("first sample %q, want new", got)
	}
}

func TestLeaseExpiry(t *testing.T) {
	d := nextDomain()
	a := newTestParticipant(t, Config{DomainID: d, Range: RangeLocalhost, Lease: 500 * time.Millisecond})
	b := newTestParticipant(t, Config{DomainID: d, Range: RangeLocalhost})
	ctx := waitCtx(t)
	w, err := NewWriter(a, chatter, QoS{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(b, chatter, QoS{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	_ = w
	a.close(false) // a crash: no dispose
	if err := r.WaitStatus(ctx, func(s MatchStatus) bool { return s.Matched == 0 }); err != nil {
		t.Fatalf("writer of the silent participant still matched: %v", err)
	}
	if n := len(b.Participants()); n != 0 {
		t.Fatalf("%d participants still known", n)
	}
	// A restarted participant is found again.
	a2 := newTestParticipant(t, Config{DomainID: d, Range: RangeLocalhost})
	if _, err := NewWriter(a2, chatter, QoS{}); err != nil {
		t.Fatal(err)
	}
	if err := r.WaitMatched(ctx, 1); err != nil {
		t.Fatalf("restarted writer not matched: %v", err)
	}
}

func TestDisposeOnClose(t *testing.T) {
	a, b := localhostPair(t)
	ctx := waitCtx(t)
	w, err := NewWriter(a, chatter, QoS{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(b, chatter, QoS{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if err := r.WaitStatus(ctx, func(s MatchStatus) bool { return s.Matched == 0 }); err != nil {
		t.Fatalf("closed writer still matched: %v", err)
	}
	if err := w.Write(ctx, cdrString("x")); !errors.Is(err, ErrClosed) {
		t.Fatalf("Write after Close: %v, want ErrClosed", err)
	}
	w2, err := NewWriter(a, chatter, QoS{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	a.Close()
	if err := r.WaitStatus(ctx, func(s MatchStatus) bool { return s.Matched == 0 }); err != nil {
		t.Fatalf("writer of closed participant still matched: %v", err)
	}
	_ = w2
}

func TestIncompatibleQoSReported(t *testing.T) {
	a, b := localhostPair(t)
	ctx := waitCtx(t)
	w, err := NewWriter(a, chatter, QoS{Reliability: BestEffort})
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(b, chatter, QoS{Reliability: Reliable})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.WaitStatus(ctx, func(s MatchStatus) bool { return s.Incompatible.Count > 0 }); err != nil {
		t.Fatal(err)
	}
	if err := w.WaitStatus(ctx, func(s MatchStatus) bool { return s.Incompatible.Count > 0 }); err != nil {
		t.Fatal(err)
	}
	if got := r.IncompatibleQoS(); got.LastPolicy != "RELIABILITY" || got.LastRemote != w.GUID() {
		t.Fatalf("reader status %+v", got)
	}
	if got := w.IncompatibleQoS(); got.LastPolicy != "RELIABILITY" || got.LastRemote != r.GUID() {
		t.Fatalf("writer status %+v", got)
	}
	if r.Status().Matched != 0 || w.Status().Matched != 0 {
		t.Fatalf("incompatible pair matched")
	}
}

func TestInvalidQoS(t *testing.T) {
	p := newTestParticipant(t, Config{DomainID: nextDomain(), Range: RangeOff})
	for _, q := range []QoS{{Depth: -1}, {Reliability: 7}, {History: KeepLast, Depth: 20, MaxSamples: 10}, {MaxBlocking: -1}} {
		if _, err := NewWriter(p, chatter, q); !errors.Is(err, ErrInvalidQoS) {
			t.Errorf("NewWriter(%+v): %v, want ErrInvalidQoS", q, err)
		}
		if _, err := NewReader(p, chatter, q); !errors.Is(err, ErrInvalidQoS) {
			t.Errorf("NewReader(%+v): %v, want ErrInvalidQoS", q, err)
		}
	}
	if _, err := NewWriter(p, Topic{Name: "x"}, QoS{}); !errors.Is(err, ErrInvalidTopic) {
		t.Errorf("empty type name: %v", err)
	}
}
