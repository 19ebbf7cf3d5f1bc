package dds

import (
	"sync"
	"time"

	"github.com/afor-go/afor/transport/dds/internal/rtps"
)

// DiscoveryKind says what a DiscoveryEvent reports.
type DiscoveryKind int

const (
	// ParticipantFound: a participant was discovered (SPDP).
	ParticipantFound DiscoveryKind = iota + 1
	// ParticipantLost: a participant said goodbye or its lease ran out;
	// the EndpointLost events of its endpoints come before this one.
	ParticipantLost
	// EndpointFound: a writer or reader was announced (SEDP), or its
	// announcement changed (the event then repeats with the new data).
	EndpointFound
	// EndpointLost: a writer or reader is gone.
	EndpointLost
)

// String returns the kind's name.
func (k DiscoveryKind) String() string {
	switch k {
	case ParticipantFound:
		return "ParticipantFound"
	case ParticipantLost:
		return "ParticipantLost"
	case EndpointFound:
		return "EndpointFound"
	case EndpointLost:
		return "EndpointLost"
	}
	return "DiscoveryKind(?)"
}

// DiscoveredEndpoint describes a writer or reader learnt through SEDP, or
// one of this participant's own (Local).
type DiscoveredEndpoint struct {
	GUID        GUID
	Participant GUID
	// Reader is true for a reader, false for a writer.
	Reader bool
	// Local is true for this participant's own endpoints.
	Local bool
	Topic Topic
	// QoS is the announced QoS; zero durations mean infinite. QoS.Depth
	// and QoS.History hold HISTORY only when HistoryAnnounced (Fast DDS
	// never announces it; the DDS default is KEEP_LAST 1).
	QoS              QoS
	HistoryAnnounced bool
	// Vendor is the vendor id of the endpoint's participant.
	Vendor [2]byte
}

// DiscoveryEvent is a change of what the participant knows of its domain.
// Participant is set for every kind (only GUID, for the EndpointFound and
// EndpointLost events); Endpoint for the endpoint kinds (only GUID, Reader
// and Participant for EndpointLost).
type DiscoveryEvent struct {
	Kind        DiscoveryKind
	Participant RemoteParticipant
	Endpoint    DiscoveredEndpoint
}

// watcher delivers discovery events to one callback from its own
// goroutine, in order, without ever blocking the participant.
type watcher struct {
	fn     func(DiscoveryEvent)
	mu     sync.Mutex
	queue  []DiscoveryEvent
	wake   chan struct{}
	stop   chan struct{}
	done   chan struct{}
	closed bool
}

// push queues ev. It never blocks.
func (w *watcher) push(ev DiscoveryEvent) {
	w.mu.Lock()
	w.queue = append(w.queue, ev)
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// run delivers queued events until stopped.
func (w *watcher) run() {
	defer close(w.done)
	var batch []DiscoveryEvent
	for {
		w.mu.Lock()
		batch, w.queue = w.queue, batch[:0]
		w.mu.Unlock()
		for i := range batch {
			select {
			case <-w.stop:
				return
			default:
			}
			w.fn(batch[i])
			batch[i] = DiscoveryEvent{}
		}
		if len(batch) > 0 {
			continue
		}
		select {
		case <-w.wake:
		case <-w.stop:
			return
		}
	}
}

// halt stops the watcher; it does not wait.
func (w *watcher) halt() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		w.closed = true
		close(w.stop)
	}
}

// WatchDiscovery calls fn with every discovery event from now on, after a
// replay of what is known already: ParticipantFound for each remote
// participant, then EndpointFound for each endpoint (remote ones and this
// participant's own). fn runs on a goroutine of its own, one event at a
// time and in order; it may call the participant's methods but Close. The
// returned stop function ends the watch and waits for a running fn to
// return (do not call it from fn); Close ends every watch and waits too.
func (p *Participant) WatchDiscovery(fn func(DiscoveryEvent)) (stop func()) {
	w := &watcher{fn: fn, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		close(w.done)
		return func() {}
	}
	for _, rp := range p.remotes {
		w.queue = append(w.queue, DiscoveryEvent{Kind: ParticipantFound, Participant: rp.public()})
	}
	for _, m := range []map[rtps.GUID]*remoteEndpoint{p.remoteWriters, p.remoteReaders} {
		for _, re := range m {
			w.queue = append(w.queue, p.endpointEventLocked(EndpointFound, re))
		}
	}
	if p.watchers == nil {
		p.watchers = map[*watcher]bool{}
	}
	p.watchers[w] = true
	p.mu.Unlock()
	go w.run()
	return func() {
		p.mu.Lock()
		delete(p.watchers, w)
		p.mu.Unlock()
		w.halt()
		<-w.done
	}
}

// emitLocked queues ev for every watcher. Call with p.mu held for
// writing, in the same critical section as the change it reports, so that
// the events follow the state in order.
func (p *Participant) emitLocked(ev DiscoveryEvent) {
	for w := range p.watchers {
		w.push(ev)
	}
}

// stopWatchersLocked ends every watch (at Close) and returns the
// watchers, for Close to wait for. Call with p.mu held.
func (p *Participant) stopWatchersLocked() []*watcher {
	var ws []*watcher
	for w := range p.watchers {
		w.halt()
		ws = append(ws, w)
	}
	p.watchers = nil
	return ws
}

// public describes rp for callers.
func (rp *remoteParticipant) public() RemoteParticipant {
	return RemoteParticipant{
		GUID:   fromRTPS(rtps.GUID{Prefix: rp.prefix, Entity: rtps.EntityParticipant}),
		Vendor: rp.vendor, Lease: rp.lease, UserData: rp.userData,
	}
}

// endpointEventLocked builds the event of kind k for re. Call with p.mu
// held.
func (p *Participant) endpointEventLocked(k DiscoveryKind, re *remoteEndpoint) DiscoveryEvent {
	pg := fromRTPS(rtps.GUID{Prefix: re.guid.Prefix, Entity: rtps.EntityParticipant})
	ev := DiscoveryEvent{Kind: k, Participant: RemoteParticipant{GUID: pg}}
	ev.Endpoint = DiscoveredEndpoint{GUID: fromRTPS(re.guid), Participant: pg, Reader: re.guid.Entity.IsReader(), Local: re.local}
	if k == EndpointLost {
		return ev
	}
	if re.local {
		ev.Endpoint.Vendor = rtps.VendorAfor
	} else if rp := p.remotes[re.guid.Prefix]; rp != nil {
		ev.Endpoint.Vendor = rp.vendor
		ev.Participant = rp.public()
	}
	ev.Endpoint.Topic = Topic{Name: re.data.TopicName, TypeName: re.data.TypeName}
	ev.Endpoint.QoS, ev.Endpoint.HistoryAnnounced = fromWire(&re.data.QoS), re.data.QoS.HistoryPresent
	ev.Endpoint.QoS.UserData = re.data.UserData
	return ev
}

// fromWire converts a QoS announced through SEDP; infinite durations
// become zero.
func fromWire(w *rtps.QoS) QoS {
	fin := func(d time.Duration) time.Duration {
		if d == rtps.Infinite || d < 0 {
			return 0
		}
		return d
	}
	q := QoS{Reliability: Reliable, Durability: Volatile, History: KeepLast, Depth: int(w.Depth)}
	if w.Reliability != rtps.Reliable {
		q.Reliability = BestEffort
	}
	if w.Durability >= rtps.TransientLocal {
		q.Durability = TransientLocal
	}
	if w.History == rtps.KeepAll {
		q.History, q.Depth, q.MaxSamples = KeepAll, 0, int(w.Depth)
	}
	q.MaxBlocking = fin(w.MaxBlocking)
	q.Deadline, q.Lifespan, q.LivelinessLease = fin(w.Deadline), fin(w.Lifespan), fin(w.LivelinessLease)
	q.Liveliness = LivelinessKind(w.Liveliness)
	q.Partition = w.Partition
	return q
}
