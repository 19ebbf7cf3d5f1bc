package dds

import (
	"sync"
	"testing"
	"time"
)

// eventLog collects discovery events and lets a test wait for one.
type eventLog struct {
	mu     sync.Mutex
	events []DiscoveryEvent
	added  chan struct{}
}

func newEventLog() *eventLog { return &eventLog{added: make(chan struct{}, 1)} }

func (l *eventLog) add(ev DiscoveryEvent) {
	l.mu.Lock()
	l.events = append(l.events, ev)
	l.mu.Unlock()
	select {
	case l.added <- struct{}{}:
	default:
	}
}

// wait waits for an event for which match holds and returns it.
func (l *eventLog) wait(t *testing.T, what string, match func(DiscoveryEvent) bool) DiscoveryEvent {
	t.Helper()
	ctx := waitCtx(t)
	for {
		l.mu.Lock()
		for _, ev := range l.events {
			if match(ev) {
				l.mu.Unlock()
				return ev
			}
		}
		l.mu.Unlock()
		select {
		case <-l.added:
		case <-ctx.Done():
			t.Fatalf("no %s event", what)
		}
	}
}

func TestWatchDiscoveryReplayAndLive(t *testing.T) {
	a, b := localhostPair(t)
	ctx := waitCtx(t)
	topic := Topic{Name: "rt/watched", TypeName: "std_msgs::msg::dds_::String_"}
	w, err := NewWriter(b, topic, QoS{Durability: TransientLocal, Depth: 3, UserData: []byte("typehash=x;")})
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(a, topic, QoS{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	// Everything known now is replayed.
	log := newEventLog()
	stop := a.WatchDiscovery(log.add)
	defer stop()
	log.wait(t, "ParticipantFound", func(ev DiscoveryEvent) bool {
		return ev.Kind == ParticipantFound && ev.Participant.GUID == b.GUID()
	})
	ev := log.wait(t, "EndpointFound (remote writer)", func(ev DiscoveryEvent) bool {
		return ev.Kind == EndpointFound && ev.Endpoint.GUID == w.GUID()
	})
	e := ev.Endpoint
	if e.Reader || e.Local || e.Topic != topic || e.Participant != b.GUID() || e.Vendor == [2]byte{} {
		t.Errorf("writer endpoint = %+v", e)
	}
	if !e.HistoryAnnounced || e.QoS.Depth != 3 || e.QoS.Durability != TransientLocal || e.QoS.Reliability != Reliable || string(e.QoS.UserData) != "typehash=x;" {
		t.Errorf("writer QoS = %+v (history announced %v)", e.QoS, e.HistoryAnnounced)
	}
	log.wait(t, "EndpointFound (local reader)", func(ev DiscoveryEvent) bool {
		return ev.Kind == EndpointFound && ev.Endpoint.GUID == r.GUID() && ev.Endpoint.Local && ev.Endpoint.Reader
	})

	// Live: a new reader on b, its removal, then b's departure.
	r2, err := NewReader(b, Topic{Name: "rt/other", TypeName: "T"}, QoS{Reliability: BestEffort})
	if err != nil {
		t.Fatal(err)
	}
	ev = log.wait(t, "EndpointFound (new reader)", func(ev DiscoveryEvent) bool {
		return ev.Kind == EndpointFound && ev.Endpoint.GUID == r2.GUID()
	})
	if !ev.Endpoint.Reader || ev.Endpoint.QoS.Reliability != BestEffort {
		t.Errorf("reader endpoint = %+v", ev.Endpoint)
	}
	r2.Close()
	log.wait(t, "EndpointLost (closed reader)", func(ev DiscoveryEvent) bool {
		return ev.Kind == EndpointLost && ev.Endpoint.GUID == r2.GUID()
	})
	b.Close()
	log.wait(t, "EndpointLost (writer of the gone participant)", func(ev DiscoveryEvent) bool {
		return ev.Kind == EndpointLost && ev.Endpoint.GUID == w.GUID()
	})
	log.wait(t, "ParticipantLost", func(ev DiscoveryEvent) bool {
		return ev.Kind == ParticipantLost && ev.Participant.GUID == b.GUID()
	})
}

func TestWatchDiscoveryStops(t *testing.T) {
	a, _ := localhostPair(t)
	n := 0
	stop := a.WatchDiscovery(func(DiscoveryEvent) { n++ })
	stop()
	a.Close()
	// Watching a closed participant returns a no-op stop.
	a.WatchDiscovery(func(DiscoveryEvent) { t.Error("event after Close") })()
	_ = n
}

func TestWriteRelated(t *testing.T) {
	a, b := localhostPair(t)
	ctx := waitCtx(t)
	topic := Topic{Name: "rq/svcRequest", TypeName: "T"}
	got := make(chan Sample, 4)
	r, err := NewReaderFunc(a, topic, QoS{}, func(s Sample) { got <- s })
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w, err := NewWriter(b, topic, QoS{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	related := SampleIdentity{Writer: r.GUID(), SN: SNUnknown}
	id, err := w.WriteRelated(ctx, cdrString("req"), related)
	if err != nil {
		t.Fatal(err)
	}
	if id.Writer != w.GUID() || id.SN != 1 {
		t.Errorf("identity = %+v, want writer %v SN 1", id, w.GUID())
	}
	if err := w.Write(ctx, cdrString("plain")); err != nil {
		t.Fatal(err)
	}
	s := <-got
	if v, _ := cdrStringDecode(s.Payload); v != "req" || s.Related != related || s.SN != 1 {
		t.Errorf("first sample %q related %+v SN %d", v, s.Related, s.SN)
	}
	s = <-got
	if v, _ := cdrStringDecode(s.Payload); v != "plain" || !s.Related.IsZero() {
		t.Errorf("second sample %q related %+v", v, s.Related)
	}
}

func TestWaitMatchedReader(t *testing.T) {
	a, b := localhostPair(t)
	ctx := waitCtx(t)
	topic := Topic{Name: "rr/svcReply", TypeName: "T"}
	w, err := NewWriter(a, topic, QoS{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReaderFunc(b, topic, QoS{}, func(Sample) {})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WaitMatchedReader(ctx, r.GUID()); err != nil {
		t.Fatal(err)
	}
	if !w.MatchedReader(r.GUID()) || w.MatchedReader(w.GUID()) {
		t.Error("MatchedReader disagrees with the match")
	}
	r.Close()
	done := make(chan error, 1)
	go func() { done <- w.WaitMatchedReader(ctx, w.GUID()) }()
	w.Close()
	if err := <-done; err != ErrClosed {
		t.Errorf("WaitMatchedReader on a closed writer: %v, want ErrClosed", err)
	}
}

func TestNewReaderFuncNil(t *testing.T) {
	a, _ := localhostPair(t)
	if _, err := NewReaderFunc(a, Topic{Name: "x", TypeName: "T"}, QoS{}, nil); err == nil {
		t.Error("nil fn accepted")
	}
}

func TestExactDomainZero(t *testing.T) {
	env := func(k string) string {
		if k == "ROS_DOMAIN_ID" {
			return "7"
		}
		return ""
	}
	r, err := Config{ExactDomain: true, Getenv: env}.resolve()
	if err != nil {
		t.Fatal(err)
	}
	if r.DomainID != 0 {
		t.Errorf("ExactDomain with DomainID 0: domain %d, want 0", r.DomainID)
	}
	r, err = Config{Getenv: env}.resolve()
	if err != nil {
		t.Fatal(err)
	}
	if r.DomainID != 7 {
		t.Errorf("zero Config: domain %d, want ROS_DOMAIN_ID 7", r.DomainID)
	}
}

// TestWatchDiscoveryLeaseExpiry checks that a participant that vanishes
// without a goodbye is reported lost, with its endpoints, when its lease
// runs out.
func TestWatchDiscoveryLeaseExpiry(t *testing.T) {
	d := nextDomain()
	a := newTestParticipant(t, Config{DomainID: d, Range: RangeLocalhost})
	b := newTestParticipant(t, Config{DomainID: d, Range: RangeLocalhost, Lease: 300 * time.Millisecond})
	w, err := NewWriter(b, Topic{Name: "rt/crash", TypeName: "T"}, QoS{})
	if err != nil {
		t.Fatal(err)
	}
	log := newEventLog()
	stop := a.WatchDiscovery(log.add)
	defer stop()
	log.wait(t, "EndpointFound", func(ev DiscoveryEvent) bool {
		return ev.Kind == EndpointFound && ev.Endpoint.GUID == w.GUID()
	})
	_ = b.close(false) // a crash: no goodbye
	log.wait(t, "EndpointLost", func(ev DiscoveryEvent) bool {
		return ev.Kind == EndpointLost && ev.Endpoint.GUID == w.GUID()
	})
	log.wait(t, "ParticipantLost", func(ev DiscoveryEvent) bool {
		return ev.Kind == ParticipantLost && ev.Participant.GUID == b.GUID()
	})
}
