package ros

import (
	"fmt"
	"sync"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/internal/rmw"
)

// IncompatibleQoSEvent reports that a publisher or subscription of the node
// found a remote endpoint on its topic whose QoS it cannot match, so that
// the two never exchange a message: a subscription requesting more than a
// publisher offers (RELIABLE from a BEST_EFFORT publisher, TRANSIENT_LOCAL
// from a VOLATILE one, a shorter deadline, ...). It is ROS's "offered QoS
// incompatible" event on a publisher and "requested QoS incompatible" on a
// subscription (rclpy's PublisherEventCallbacks and
// SubscriptionEventCallbacks incompatible_qos).
//
// Only the DDS middleware detects incompatible pairs; over Zenoh (where
// rmw_zenoh matches every pair) and in memory there is no such event.
type IncompatibleQoSEvent struct {
	// Topic is the fully qualified topic name.
	Topic string
	// Kind is the local endpoint's: KindPublisher (a subscription requests
	// what it does not offer) or KindSubscription (a publisher does not
	// offer what it requests).
	Kind EndpointKind
	// TotalCount counts the incompatible remote endpoints the local one
	// found so far, TotalCountChange those since its previous event.
	TotalCount       int
	TotalCountChange int
	// LastPolicy names the policy of the last incompatibility as ROS prints
	// it: "RELIABILITY", "DURABILITY", "DEADLINE", "LIVELINESS", ...
	LastPolicy string
}

// String returns the warning rcl logs for the event, such as "New
// subscription discovered on topic '/chatter', requesting incompatible QoS.
// No messages will be sent to it. Last incompatible policy: DURABILITY".
func (e IncompatibleQoSEvent) String() string {
	if e.Kind == KindSubscription {
		return fmt.Sprintf("New publisher discovered on topic '%s', offering incompatible QoS. "+
			"No messages will be received from it. Last incompatible policy: %s", e.Topic, e.LastPolicy)
	}
	return fmt.Sprintf("New subscription discovered on topic '%s', requesting incompatible QoS. "+
		"No messages will be sent to it. Last incompatible policy: %s", e.Topic, e.LastPolicy)
}

// OnIncompatibleQoS calls f for every incompatible QoS event of the node's
// publishers and subscriptions, those created before the call included,
// until remove is called or the node closes. f runs on a goroutine of the
// middleware (one per endpoint) and should return quickly; it must not
// close the publisher or subscription it reports on (whose Close waits for
// that goroutine). A panic in f is logged and does not reach the
// middleware. Whether or not a callback is
// registered, every event is logged at warning level on the node's logger
// with the message rcl prints ([IncompatibleQoSEvent.String]).
func (n *Node) OnIncompatibleQoS(f func(IncompatibleQoSEvent)) (remove func()) {
	return n.qosEvents.add(f)
}

// qosEventHub holds a node's incompatible QoS callbacks; its zero value is
// ready to use.
type qosEventHub struct {
	mu   sync.Mutex
	next uint64
	fns  map[uint64]func(IncompatibleQoSEvent)
}

func (h *qosEventHub) add(f func(IncompatibleQoSEvent)) (remove func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.fns == nil {
		h.fns = map[uint64]func(IncompatibleQoSEvent){}
	}
	id := h.next
	h.next++
	h.fns[id] = f
	return func() {
		h.mu.Lock()
		delete(h.fns, id)
		h.mu.Unlock()
	}
}

func (h *qosEventHub) callbacks() []func(IncompatibleQoSEvent) {
	h.mu.Lock()
	defer h.mu.Unlock()
	fns := make([]func(IncompatibleQoSEvent), 0, len(h.fns))
	for _, f := range h.fns {
		fns = append(fns, f)
	}
	return fns
}

// watchIncompatibleQoS reports the incompatible QoS events of endpoint e
// (a publisher or subscription on topic) when its middleware detects them:
// a warning on the node's logger, the endpoint's events sub, then the
// node's callbacks.
func (n *Node) watchIncompatibleQoS(topic string, kind EndpointKind, e any, events *afor.Sub[IncompatibleQoSEvent]) {
	src, ok := e.(rmw.QoSEventSource)
	if !ok {
		return
	}
	src.OnIncompatibleQoS(func(ev rmw.IncompatibleQoS) {
		out := IncompatibleQoSEvent{Topic: topic, Kind: kind, TotalCount: ev.TotalCount,
			TotalCountChange: ev.TotalCountChange, LastPolicy: ev.LastPolicy}
		n.logger.Warn(out.String())
		events.Input(out)
		for _, f := range n.qosEvents.callbacks() {
			n.callQoSCallback(f, out)
		}
	})
}

// callQoSCallback runs f, logging a panic instead of letting it end the
// middleware's goroutine (and the process).
func (n *Node) callQoSCallback(f func(IncompatibleQoSEvent), ev IncompatibleQoSEvent) {
	defer func() {
		if r := recover(); r != nil {
			n.logger.Error("ros: an incompatible QoS callback panicked", "topic", ev.Topic, "panic", r)
		}
	}()
	f(ev)
}
