package ros

import (
	"log/slog"
	"testing"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/internal/rmw"
)

// fakeQoSSource is an endpoint whose middleware reports incompatible QoS:
// fire sends an event to what OnIncompatibleQoS registered.
type fakeQoSSource struct{ f func(rmw.IncompatibleQoS) }

func (s *fakeQoSSource) OnIncompatibleQoS(f func(rmw.IncompatibleQoS)) { s.f = f }

func TestIncompatibleQoSEventDispatch(t *testing.T) {
	logs := &qosLogRecorder{}
	n := &Node{logger: slog.New(logs)}
	var got []IncompatibleQoSEvent
	remove := n.OnIncompatibleQoS(func(e IncompatibleQoSEvent) { got = append(got, e) })
	n.OnIncompatibleQoS(func(IncompatibleQoSEvent) { panic("boom") }) // logged, not fatal

	src := &fakeQoSSource{}
	events := afor.NewSub[IncompatibleQoSEvent]()
	defer events.Close()
	n.watchIncompatibleQoS("/chatter", KindSubscription, src, events)
	n.watchIncompatibleQoS("/other", KindPublisher, struct{}{}, events) // no events from this middleware
	src.f(rmw.IncompatibleQoS{TotalCount: 2, TotalCountChange: 1, LastPolicy: "DURABILITY"})

	want := IncompatibleQoSEvent{Topic: "/chatter", Kind: KindSubscription, TotalCount: 2, TotalCountChange: 1, LastPolicy: "DURABILITY"}
	if len(got) != 1 || got[0] != want {
		t.Fatalf("events %+v, want [%+v]", got, want)
	}
	if v, ok := events.Value(); !ok || v != want {
		t.Errorf("the endpoint's events sub holds %+v %v", v, ok)
	}
	line := "New publisher discovered on topic '/chatter', offering incompatible QoS. No messages will be received from it. Last incompatible policy: DURABILITY"
	if !logs.has(line) || !logs.has("ros: an incompatible QoS callback panicked") {
		t.Errorf("logged %q", logs.msgs)
	}
	remove()
	src.f(rmw.IncompatibleQoS{TotalCount: 3, TotalCountChange: 1, LastPolicy: "RELIABILITY"})
	if len(got) != 1 {
		t.Errorf("a removed callback was called: %+v", got)
	}
}

func TestIncompatibleQoSEventString(t *testing.T) {
	e := IncompatibleQoSEvent{Topic: "/t", Kind: KindPublisher, LastPolicy: "RELIABILITY"}
	want := "New subscription discovered on topic '/t', requesting incompatible QoS. No messages will be sent to it. Last incompatible policy: RELIABILITY"
	if e.String() != want {
		t.Errorf("%q, want %q", e.String(), want)
	}
}
