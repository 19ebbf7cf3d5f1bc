package dds

import (
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/internal/netns"
	"github.com/afor-go/afor/transport/dds/internal/ddspeer"
)

func TestInteropTransientLocalGoWriter(t *testing.T) {
	netns.Require(t)
	for _, pk := range peerKinds {
		t.Run(pk.name, func(t *testing.T) {
			d := nextDomain()
			ctx := waitCtx(t)
			p := goParticipant(t, d)
			w, err := NewWriter(p, chatter, QoS{Durability: TransientLocal, Depth: 5})
			if err != nil {
				t.Fatal(err)
			}
			for i := range 10 {
				if err := w.Write(ctx, cdrString(ddspeer.Payload(i, 0))); err != nil {
					t.Fatal(err)
				}
			}
			peer := pk.start(t, ddspeer.Options{Role: ddspeer.Reader, Domain: d, TransientLocal: true, Count: 5})
			evs, err := peer.Samples(ctx, 5)
			if err != nil {
				t.Fatal(err)
			}
			for k, ev := range evs {
				if ev.I != 5+k || !ev.OK {
					t.Fatalf("history sample %d is %+v, want index %d", k, ev, 5+k)
				}
			}
		})
	}
}

func TestInteropTransientLocalGoReader(t *testing.T) {
	netns.Require(t)
	for _, pk := range peerKinds {
		t.Run(pk.name, func(t *testing.T) {
			d := nextDomain()
			ctx := waitCtx(t)
			p := goParticipant(t, d)
			peer := pk.start(t, ddspeer.Options{Role: ddspeer.Writer, Domain: d, TransientLocal: true, Depth: 5, Count: 10})
			if _, err := peer.WaitEvent(ctx, ddspeer.EvDone); err != nil {
				t.Fatal(err)
			}
			r, err := NewReader(p, chatter, QoS{Durability: TransientLocal}, afor.WithDefaultQueueSize(0))
			if err != nil {
				t.Fatal(err)
			}
			l := r.Sub().Listener(ctx, afor.QueueSize(0))
			defer l.Stop()
			for want := 5; want < 10; want++ {
				s, err := l.Next(ctx)
				if err != nil {
					t.Fatalf("history sample %d: %v", want, err)
				}
				if got, _ := cdrStringDecode(s.Payload); got != ddspeer.Payload(want, 0) {
					t.Fatalf("history sample %q, want %q", got, ddspeer.Payload(want, 0))
				}
			}
		})
	}
}

func TestInteropLeaseAndRestart(t *testing.T) {
	netns.Require(t)
	for _, pk := range peerKinds {
		t.Run(pk.name, func(t *testing.T) {
			d := nextDomain()
			ctx, cancel := contextWithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			p := goParticipant(t, d)
			r, err := NewReader(p, chatter, QoS{})
			if err != nil {
				t.Fatal(err)
			}
			o := ddspeer.Options{Role: ddspeer.Writer, Domain: d, Period: 100 * time.Millisecond}
			peer := pk.start(t, o)
			if err := r.WaitMatched(ctx, 1); err != nil {
				t.Fatal(err)
			}
			if _, err := r.Sub().WaitForNext(ctx); err != nil {
				t.Fatal(err)
			}
			peer.Kill()
			killed := time.Now()
			if err := r.WaitStatus(ctx, func(s MatchStatus) bool { return s.Matched == 0 }); err != nil {
				t.Fatalf("killed peer's writer still matched: %v", err)
			}
			t.Logf("%s removed %v after the kill", pk.name, time.Since(killed).Round(time.Millisecond))
			if n := len(p.Participants()); n != 0 {
				t.Fatalf("%d participants still known", n)
			}
			pk.start(t, o)
			if err := r.WaitMatched(ctx, 1); err != nil {
				t.Fatalf("restarted peer not matched: %v", err)
			}
			if _, err := r.Sub().WaitForNext(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestInteropIncompatibleQoS(t *testing.T) {
	netns.Require(t)
	for _, pk := range peerKinds {
		t.Run(pk.name+"/go-writer", func(t *testing.T) {
			d := nextDomain()
			ctx := waitCtx(t)
			p := goParticipant(t, d)
			w, err := NewWriter(p, chatter, QoS{Reliability: BestEffort})
			if err != nil {
				t.Fatal(err)
			}
			peer := pk.start(t, ddspeer.Options{Role: ddspeer.Reader, Domain: d})
			if err := w.WaitStatus(ctx, func(s MatchStatus) bool { return s.Incompatible.Count > 0 }); err != nil {
				t.Fatal(err)
			}
			if got := w.IncompatibleQoS().LastPolicy; got != "RELIABILITY" {
				t.Fatalf("policy %q, want RELIABILITY", got)
			}
			ev, err := peer.WaitEvent(ctx, ddspeer.EvIncompatible)
			if err != nil {
				t.Fatal(err)
			}
			if ev.Policy != "RELIABILITY" {
				t.Errorf("peer reports %+v", ev)
			}
			if n := w.Status().Matched; n != 0 {
				t.Fatalf("%d readers matched", n)
			}
		})
		t.Run(pk.name+"/go-reader", func(t *testing.T) {
			d := nextDomain()
			ctx := waitCtx(t)
			p := goParticipant(t, d)
			r, err := NewReader(p, chatter, QoS{Durability: TransientLocal})
			if err != nil {
				t.Fatal(err)
			}
			peer := pk.start(t, ddspeer.Options{Role: ddspeer.Writer, Domain: d})
			if err := r.WaitStatus(ctx, func(s MatchStatus) bool { return s.Incompatible.Count > 0 }); err != nil {
				t.Fatal(err)
			}
			if got := r.IncompatibleQoS().LastPolicy; got != "DURABILITY" {
				t.Fatalf("policy %q, want DURABILITY", got)
			}
			ev, err := peer.WaitEvent(ctx, ddspeer.EvIncompatible)
			if err != nil {
				t.Fatal(err)
			}
			if ev.Policy != "DURABILITY" {
				t.Errorf("peer reports %+v", ev)
			}
			if n := r.Status().Matched; n != 0 {
				t.Fatalf("%d writers matched", n)
			}
		})
	}
}
