package ros

import (
	"fmt"
	"sync"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/internal/rmw"
)

// The QoS events of publishers and subscriptions, as rclpy's
// PublisherEventCallbacks and SubscriptionEventCallbacks give them, each
// kind an [afor.Sub] of event values with rmw's counts: wait on one, range
// over one, or test against one.
//
// They are implemented once, above the middleware, wherever the middleware
// does not know better: deadlines are timers of the publisher and the
// subscription (a deadline is missed once per period without a message,
// from the first message on, as DDS counts per instance); a lost liveliness
// is a MANUAL_BY_TOPIC publisher that did not publish within its lease
// (AUTOMATIC liveliness is asserted by the middleware, never lost); lost
// messages are the gaps in each publisher's sequence numbers. Matching and
// the liveliness of the publishers a subscription hears come from the DDS
// protocol over DDS (WLP and leases: a publisher whose process died is not
// alive after its lease) and from the graph elsewhere (rmw_zenoh's
// liveliness tokens: a publisher whose session ended is gone).

// DeadlineMissed is a publisher's offered deadline missed event (it did
// not publish within its QoS deadline) or a subscription's requested
// deadline missed event (it received nothing within its deadline).
type DeadlineMissed struct {
	Topic string
	// TotalCount counts the deadlines missed so far, TotalCountChange
	// those since the previous event.
	TotalCount, TotalCountChange int
}

// LivelinessLost is a publisher's liveliness lost event: a
// MANUAL_BY_TOPIC publisher did not publish within its liveliness lease,
// and its subscriptions count it not alive.
type LivelinessLost struct {
	Topic                        string
	TotalCount, TotalCountChange int
}

// LivelinessChanged is a subscription's liveliness changed event: a
// publisher it is matched with came alive or is not alive anymore.
type LivelinessChanged struct {
	Topic string
	// AliveCount counts the matched publishers alive now, NotAliveCount
	// those whose liveliness lease ran out (still matched); the changes
	// are since the previous event.
	AliveCount, NotAliveCount             int
	AliveCountChange, NotAliveCountChange int
}

// MessageLost is a subscription's message lost event: messages of a
// publisher never arrived (a gap in its sequence numbers).
type MessageLost struct {
	Topic                        string
	TotalCount, TotalCountChange int
}

// Matched is a publisher's or subscription's matched event: an endpoint of
// the other kind on its topic was matched or unmatched.
type Matched struct {
	Topic string
	// TotalCount counts the matches so far, CurrentCount the endpoints
	// matched now; the changes are since the previous event.
	TotalCount, TotalCountChange     int
	CurrentCount, CurrentCountChange int
}

// PublisherEvents are the QoS events of a publisher, each an [afor.Sub]
// that closes with the publisher. Matched holds the current state as its
// value from the start.
type PublisherEvents struct {
	DeadlineMissed  *afor.Sub[DeadlineMissed]
	LivelinessLost  *afor.Sub[LivelinessLost]
	Matched         *afor.Sub[Matched]
	IncompatibleQoS *afor.Sub[IncompatibleQoSEvent]
}

// SubscriptionEvents are the QoS events of a subscription, each an
// [afor.Sub] that closes with the subscription. Matched and
// LivelinessChanged hold the current state as their value from the start.
type SubscriptionEvents struct {
	DeadlineMissed    *afor.Sub[DeadlineMissed]
	LivelinessChanged *afor.Sub[LivelinessChanged]
	MessageLost       *afor.Sub[MessageLost]
	Matched           *afor.Sub[Matched]
	IncompatibleQoS   *afor.Sub[IncompatibleQoSEvent]
}

// SubscriptionEventsOf returns the QoS events of sub, a subscription of
// node n made by [Subscribe], [SubscribeInfo] or [SubscribeRaw]; ok is
// false for any other sub, and once sub is closed.
//
//	sub, _ := ros.Subscribe[std_msgs.String](node, "chatter", ros.QoSDefault.WithDeadline(100*time.Millisecond))
//	ev, _ := ros.SubscriptionEventsOf(node, sub)
//	missed, err := ev.DeadlineMissed.WaitForNext(ctx)
func SubscriptionEventsOf[V any](n *Node, sub *afor.Sub[V]) (ev *SubscriptionEvents, ok bool) {
	v, ok := n.subEvents.Load(sub)
	if !ok {
		return nil, false
	}
	return v.(*subscriptionEvents).pub, true
}

// eventSub returns a new sub of events of kind what on topic.
func eventSub[E any](n *Node, topic, what string) *afor.Sub[E] {
	return afor.NewSub[E](afor.WithName("ros "+what+":"+topic), afor.WithLogger(n.logger))
}

// publisherEvents runs the QoS events of one publisher.
type publisherEvents struct {
	untype   func() // unregisters the type from the node's type cache
	pub      PublisherEvents
	deadline *leaseTimer // nil without a deadline
	lease    *leaseTimer // nil unless MANUAL_BY_TOPIC with a lease
	status   *statusTracker
}

// newPublisherEvents starts the events of publisher rp on topic.
func newPublisherEvents(n *Node, topic string, t rmw.Type, q QoS, rp rmw.Publisher) *publisherEvents {
	e := &publisherEvents{untype: n.types.add(t), pub: PublisherEvents{
		DeadlineMissed:  eventSub[DeadlineMissed](n, topic, "offered deadline missed"),
		LivelinessLost:  eventSub[LivelinessLost](n, topic, "liveliness lost"),
		Matched:         eventSub[Matched](n, topic, "publication matched"),
		IncompatibleQoS: eventSub[IncompatibleQoSEvent](n, topic, "offered incompatible QoS"),
	}}
	if q.Deadline > 0 {
		e.deadline = newLeaseTimer(q.Deadline, true, func(total, change int) {
			e.pub.DeadlineMissed.Input(DeadlineMissed{Topic: topic, TotalCount: total, TotalCountChange: change})
		})
	}
	if q.Liveliness == LivelinessManualByTopic && q.LivelinessLease > 0 {
		e.lease = newLeaseTimer(q.LivelinessLease, false, func(total, change int) {
			n.logger.Debug("ros: publisher liveliness lost", "topic", topic)
			e.pub.LivelinessLost.Input(LivelinessLost{Topic: topic, TotalCount: total, TotalCountChange: change})
		})
	}
	e.status = newStatusTracker(n, topic, t.Name, KindPublisher, rp, func(st rmw.EndpointStatus, prev rmw.EndpointStatus) {
		if st.Matched != prev.Matched || st.TotalMatched != prev.TotalMatched {
			e.pub.Matched.Input(Matched{Topic: topic, TotalCount: st.TotalMatched, TotalCountChange: st.TotalMatched - prev.TotalMatched,
				CurrentCount: st.Matched, CurrentCountChange: st.Matched - prev.Matched})
		}
	})
	n.watchIncompatibleQoS(topic, KindPublisher, rp, e.pub.IncompatibleQoS)
	return e
}

// published records a message published now.
func (e *publisherEvents) published() {
	if e.deadline != nil {
		e.deadline.hit()
	}
	if e.lease != nil {
		e.lease.hit()
	}
}

// close stops the events and closes their subs.
func (e *publisherEvents) close() {
	e.untype()
	e.deadline.stop()
	e.lease.stop()
	e.status.stop()
	e.pub.DeadlineMissed.Close()
	e.pub.LivelinessLost.Close()
	e.pub.Matched.Close()
	e.pub.IncompatibleQoS.Close()
}

// subscriptionEvents runs the QoS events of one subscription.
type subscriptionEvents struct {
	untype   func() // unregisters the type from the node's type cache
	pub      *SubscriptionEvents
	deadline *leaseTimer // nil without a deadline
	lost     lostTracker
	status   *statusTracker
}

// newSubscriptionEvents starts the events of subscription rs on topic.
func newSubscriptionEvents(n *Node, topic string, t rmw.Type, q QoS) *subscriptionEvents {
	e := &subscriptionEvents{untype: n.types.add(t), pub: &SubscriptionEvents{
		DeadlineMissed:    eventSub[DeadlineMissed](n, topic, "requested deadline missed"),
		LivelinessChanged: eventSub[LivelinessChanged](n, topic, "liveliness changed"),
		MessageLost:       eventSub[MessageLost](n, topic, "message lost"),
		Matched:           eventSub[Matched](n, topic, "subscription matched"),
		IncompatibleQoS:   eventSub[IncompatibleQoSEvent](n, topic, "requested incompatible QoS"),
	}}
	if q.Deadline > 0 {
		e.deadline = newLeaseTimer(q.Deadline, true, func(total, change int) {
			e.pub.DeadlineMissed.Input(DeadlineMissed{Topic: topic, TotalCount: total, TotalCountChange: change})
		})
	}
	e.lost.report = func(total, change int) {
		e.pub.MessageLost.Input(MessageLost{Topic: topic, TotalCount: total, TotalCountChange: change})
	}
	return e
}

// watch starts following the status of rs, the middleware's subscription.
func (e *subscriptionEvents) watch(n *Node, topic string, t rmw.Type, rs rmw.Subscription) {
	e.status = newStatusTracker(n, topic, t.Name, KindSubscription, rs, func(st rmw.EndpointStatus, prev rmw.EndpointStatus) {
		if st.Matched != prev.Matched || st.TotalMatched != prev.TotalMatched {
			e.pub.Matched.Input(Matched{Topic: topic, TotalCount: st.TotalMatched, TotalCountChange: st.TotalMatched - prev.TotalMatched,
				CurrentCount: st.Matched, CurrentCountChange: st.Matched - prev.Matched})
		}
		if st.Alive != prev.Alive || st.NotAlive != prev.NotAlive {
			if st.NotAlive > prev.NotAlive {
				n.logger.Debug("ros: a publisher is not alive", "topic", topic)
			}
			e.pub.LivelinessChanged.Input(LivelinessChanged{Topic: topic, AliveCount: st.Alive, NotAliveCount: st.NotAlive,
				AliveCountChange: st.Alive - prev.Alive, NotAliveCountChange: st.NotAlive - prev.NotAlive})
		}
	})
	n.watchIncompatibleQoS(topic, KindSubscription, rs, e.pub.IncompatibleQoS)
}

// received records a message received now from a publisher.
func (e *subscriptionEvents) received(info rmw.MessageInfo) {
	if e.deadline != nil {
		if info.ReceivedTime.IsZero() {
			e.deadline.hit()
		} else {
			e.deadline.hitAt(info.ReceivedTime)
		}
	}
	e.lost.saw(info.PublisherGID, info.Sequence)
}

// close stops the events and closes their subs.
func (e *subscriptionEvents) close() {
	e.untype()
	e.deadline.stop()
	e.status.stop()
	e.pub.DeadlineMissed.Close()
	e.pub.LivelinessChanged.Close()
	e.pub.MessageLost.Close()
	e.pub.Matched.Close()
	e.pub.IncompatibleQoS.Close()
}

// maxTrackedPublishers bounds the publishers a subscription keeps the last
// sequence number of.
const maxTrackedPublishers = 4096

// lostTracker counts the gaps in each publisher's sequence numbers. The
// first message of a publisher sets where it starts (a late joiner does
// not count what came before); a number at or below the last one (a
// duplicate, history after live data) is not a gap.
type lostTracker struct {
	mu sync.Mutex
	// one and oneSeq are the publisher heard last and its last number (a
	// topic with one publisher needs no map); last holds the others.
	one    rmw.GID
	oneSeq int64
	last   map[rmw.GID]int64
	total  int
	report func(total, change int)
}

func (l *lostTracker) saw(gid rmw.GID, seq int64) {
	if seq <= 0 {
		return // the middleware numbers nothing
	}
	l.mu.Lock()
	var prev int64
	known := false
	if l.oneSeq != 0 && gid == l.one {
		prev, known = l.oneSeq, true
	} else {
		if l.oneSeq != 0 { // another publisher: keep the previous one's number
			if l.last == nil || len(l.last) >= maxTrackedPublishers {
				// Bounded: past so many publishers (most of them gone),
				// start again; a gap across the reset goes uncounted.
				l.last = map[rmw.GID]int64{}
			}
			l.last[l.one] = l.oneSeq
		}
		prev, known = l.last[gid]
		delete(l.last, gid)
	}
	if known && seq <= prev {
		l.one, l.oneSeq = gid, prev
		l.mu.Unlock()
		return
	}
	l.one, l.oneSeq = gid, seq
	gap := 0
	if known && seq > prev+1 {
		gap = int(min(seq-prev-1, 1<<30))
		l.total += gap
	}
	total := l.total
	l.mu.Unlock()
	if gap > 0 {
		l.report(total, gap)
	}
}

// String returns what rclpy's default deadline handler would print.
func (e DeadlineMissed) String() string {
	return fmt.Sprintf("deadline missed on topic '%s': total %d (+%d)", e.Topic, e.TotalCount, e.TotalCountChange)
}
