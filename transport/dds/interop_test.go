package dds

import (
	"fmt"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/internal/netns"
	"github.com/afor-go/afor/transport/dds/internal/ddspeer"
)

// peerKind starts one kind of reference peer.
type peerKind struct {
	name  string
	start func(t testing.TB, o ddspeer.Options) *ddspeer.Peer
}

var peerKinds = []peerKind{
	{"cyclone-py", ddspeer.Cyclone},
	{"cyclone-c", ddspeer.C},
	{"rclpy", ddspeer.Rclpy},
}

// interopCase is one exchange with a reference peer.
type interopCase struct {
	name string
	q    QoS
	opts ddspeer.Options
	n    int
}

var interopCases = []interopCase{
	// KEEP_ALL on both sides: a KEEP_LAST reader may overwrite samples
	// its application has not taken yet.
	{"reliable", QoS{History: KeepAll}, ddspeer.Options{KeepAll: true}, 200},
	{"best-effort", QoS{Reliability: BestEffort}, ddspeer.Options{BestEffort: true, Period: 2 * time.Millisecond}, 20},
	{"1MB", QoS{}, ddspeer.Options{Size: 1 << 20}, 3},
	{"6MB", QoS{}, ddspeer.Options{Size: 6 << 20}, 2},
}

// goParticipant starts a participant in domain d with the default
// discovery (multicast on the namespace's loopback).
func goParticipant(t *testing.T, d int) *Participant {
	return newTestParticipant(t, Config{DomainID: d, Range: RangeSubnet})
}

func TestInteropGoToPeer(t *testing.T) {
	netns.Require(t)
	for _, pk := range peerKinds {
		for _, c := range interopCases {
			t.Run(pk.name+"/"+c.name, func(t *testing.T) {
				d := nextDomain()
				ctx := waitCtx(t)
				p := goParticipant(t, d)
				o := c.opts
				o.Role, o.Domain, o.Count = ddspeer.Reader, d, c.n
				peer := pk.start(t, o)
				w, err := NewWriter(p, chatter, c.q)
				if err != nil {
					t.Fatal(err)
				}
				if err := w.WaitMatched(ctx, 1); err != nil {
					t.Fatalf("no match with %s: %v", peer, err)
				}
				if err := peer.WaitMatched(ctx, 1); err != nil {
					t.Fatal(err)
				}
				for i := range c.n {
					if err := w.Write(ctx, cdrString(ddspeer.Payload(i, o.Size))); err != nil {
						t.Fatal(err)
					}
					if o.Period > 0 {
						time.Sleep(o.Period) // best effort: pace below the reader's rate
					}
				}
				evs, err := peer.Samples(ctx, c.n)
				if err != nil && (c.q.Reliability == Reliable || len(evs) == 0) {
					t.Fatal(err)
				}
				last := -1
				for _, ev := range evs {
					if !ev.OK || ev.I <= last {
						t.Fatalf("sample %+v after %d: out of order or damaged", ev, last)
					}
					if c.q.Reliability == Reliable && ev.I != last+1 {
						t.Fatalf("reliable: sample %d after %d", ev.I, last)
					}
					last = ev.I
				}
			})
		}
	}
}

func TestInteropPeerToGo(t *testing.T) {
	netns.Require(t)
	for _, pk := range peerKinds {
		for _, c := range interopCases {
			t.Run(pk.name+"/"+c.name, func(t *testing.T) {
				d := nextDomain()
				ctx := waitCtx(t)
				p := goParticipant(t, d)
				r, err := NewReader(p, chatter, c.q, afor.WithDefaultQueueSize(0))
				if err != nil {
					t.Fatal(err)
				}
				l := r.Sub().Listener(ctx, afor.QueueSize(0))
				defer l.Stop()
				o := c.opts
				o.Role, o.Domain, o.Count, o.WaitMatch = ddspeer.Writer, d, c.n, 1
				if c.q.Reliability == BestEffort {
					// The peer may match before the reader does, and best
					// effort does not resend: write until the test ends.
					o.Count, o.Period = 0, 10*time.Millisecond
				}
				peer := pk.start(t, o)
				if err := r.WaitMatched(ctx, 1); err != nil {
					t.Fatalf("no match with %s: %v", peer, err)
				}
				last := -1
				for range c.n {
					s, err := l.Next(ctx)
					if err != nil {
						t.Fatalf("after sample %d: %v", last, err)
					}
					got, ok := cdrStringDecode(s.Payload)
					if !ok {
						t.Fatalf("payload of %d bytes does not decode", len(s.Payload))
					}
					var i int
					if _, err := fmt.Sscanf(got, "%d:", &i); err != nil || got != ddspeer.Payload(i, o.Size) {
						t.Fatalf("payload %.40q... is not a peer payload", got)
					}
					if i <= last || (c.q.Reliability == Reliable && i != last+1) {
						t.Fatalf("sample %d after %d", i, last)
					}
					last = i
				}
			})
		}
	}
}
