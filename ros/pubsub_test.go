package ros_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/afortest"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
)

func TestPubSubRoundTrip(t *testing.T) {
	net := ros.NewMemoryNetwork()
	a := memNode(t, net, "talker", ros.WithNamespace("robot1"))
	b := memNode(t, net, "listener")
	pub, err := ros.NewPublisher[std_msgs.String](a, "chatter", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	if pub.Topic() != "/robot1/chatter" {
		t.Fatalf("topic %q", pub.Topic())
	}
	sub, err := ros.SubscribeInfo[std_msgs.String](b, "/robot1/chatter", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	before := time.Now()
	for i, s := range []string{"a", "b", "c"} {
		next := sub.ArmNext(ctx)
		if err := pub.Publish(ctx, &std_msgs.String{Data: s}); err != nil {
			t.Fatal(err)
		}
		r, err := next.Wait(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if r.Msg.Data != s || r.Info.Sequence != int64(i+1) || r.Info.PublisherGID != pub.GID() {
			t.Errorf("got %+v, want %q seq %d from %v", r, s, i+1, pub.GID())
		}
		if r.Info.SourceTime.Before(before) || r.Info.ReceivedTime.Before(r.Info.SourceTime) {
			t.Errorf("times %v %v", r.Info.SourceTime, r.Info.ReceivedTime)
		}
	}
}

func TestSubscriptionTypeMustMatch(t *testing.T) {
	net := ros.NewMemoryNetwork()
	var logs bytes.Buffer
	n := memNode(t, net, "n", ros.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	strs, err := ros.Subscribe[std_msgs.String](n, "topic", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := ros.NewPublisher[std_msgs.Int32](n, "topic", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "another type") {
		t.Errorf("no warning about two types on one topic: %q", logs.String())
	}
	topics := n.Graph().Snapshot().Topics()
	if got := topics["/topic"]; len(got) != 2 || got[0] != "std_msgs/msg/Int32" || got[1] != "std_msgs/msg/String" {
		t.Errorf("graph types of /topic: %v", got)
	}
	if err := pub.Publish(testCtx(t), &std_msgs.Int32{Data: 7}); err != nil {
		t.Fatal(err)
	}
	if st := strs.Stats(); st.Inputs != 0 {
		t.Errorf("a String subscription received an Int32: %+v", st)
	}
}

func TestMalformedPayloadIsDroppedAndCounted(t *testing.T) {
	net := ros.NewMemoryNetwork()
	var logs bytes.Buffer
	n := memNode(t, net, "n", ros.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	sub, err := ros.Subscribe[std_msgs.String](n, "chatter", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	// A peer that claims the String type but sends an Int32 payload: the
	// string length it implies runs past the end.
	liar, err := ros.NewPublisher[fakeString](n, "chatter", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	for range 3 {
		if err := liar.Publish(ctx, &fakeString{std_msgs.Int32{Data: 1000}}); err != nil {
			t.Fatal(err)
		}
	}
	if got := n.Stats().Malformed; got != 3 {
		t.Errorf("Malformed = %d, want 3", got)
	}
	if strings.Count(logs.String(), "level=WARN") != 1 || !strings.Contains(logs.String(), "malformed message") {
		t.Errorf("want one warning, got %q", logs.String())
	}
	// The subscription goes on.
	pub, err := ros.NewPublisher[std_msgs.String](n, "chatter", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	next := sub.ArmNext(ctx)
	if err := pub.Publish(ctx, &std_msgs.String{Data: "ok"}); err != nil {
		t.Fatal(err)
	}
	if v, err := next.Wait(ctx); err != nil || v.Data != "ok" {
		t.Fatalf("after malformed input: %v, %v", v, err)
	}
}

func TestTransientLocalLateJoiner(t *testing.T) {
	net := ros.NewMemoryNetwork()
	n := memNode(t, net, "n")
	pub, err := ros.NewPublisher[std_msgs.String](n, "latched", ros.QoSTransientLocal(2))
	if err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	for _, s := range []string{"1", "2", "3"} {
		if err := pub.Publish(ctx, &std_msgs.String{Data: s}); err != nil {
			t.Fatal(err)
		}
	}
	late := memNode(t, net, "late")
	sub, err := ros.Subscribe[std_msgs.String](late, "/latched", ros.QoSTransientLocal(10))
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := sub.Value(); !ok || v.Data != "3" {
		t.Errorf("late joiner's latest = %v, %v; want 3", v, ok)
	}
	if st := sub.Stats(); st.Inputs != 2 {
		t.Errorf("late joiner received %d samples, want the 2 kept", st.Inputs)
	}
	volatile, err := ros.Subscribe[std_msgs.String](late, "/latched", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := volatile.Value(); ok {
		t.Error("a volatile late joiner got history")
	}
}

func TestCloseSubUndeclares(t *testing.T) {
	net := ros.NewMemoryNetwork()
	n := memNode(t, net, "n")
	sub, err := ros.Subscribe[std_msgs.String](n, "chatter", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	g := n.Graph()
	if len(g.Snapshot().Subscriptions("/chatter")) != 1 {
		t.Fatal("subscription not in the graph")
	}
	sub.Close()
	if len(g.Snapshot().Subscriptions("/chatter")) != 0 {
		t.Fatal("closed subscription still in the graph")
	}
	// Closing the node ends its subs.
	sub2, err := ros.Subscribe[std_msgs.String](n, "chatter", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := ros.NewPublisher[std_msgs.String](n, "chatter", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := sub2.WaitForNext(testCtx(t)); !errors.Is(err, afor.ErrClosed) {
		t.Errorf("WaitForNext after node Close: %v", err)
	}
	if err := pub.Publish(testCtx(t), &std_msgs.String{}); !errors.Is(err, ros.ErrClosed) {
		t.Errorf("Publish after node Close: %v", err)
	}
	if _, err := ros.Subscribe[std_msgs.String](n, "chatter", ros.QoSDefault); !errors.Is(err, ros.ErrClosed) {
		t.Errorf("Subscribe on a closed node: %v", err)
	}
}

func TestInvalidTopicAndQoS(t *testing.T) {
	n := memNode(t, ros.NewMemoryNetwork(), "n")
	for _, topic := range []string{"", "9lives", "a//b", "a/", "~x", "a/~", "{unknown}", "with space"} {
		if _, err := ros.NewPublisher[std_msgs.String](n, topic, ros.QoSDefault); !errors.Is(err, ros.ErrInvalidName) {
			t.Errorf("NewPublisher(%q): %v, want ErrInvalidName", topic, err)
		}
		if _, err := ros.Subscribe[std_msgs.String](n, topic, ros.QoSDefault); !errors.Is(err, ros.ErrInvalidName) {
			t.Errorf("Subscribe(%q): %v, want ErrInvalidName", topic, err)
		}
	}
	bad := ros.QoSDefault
	bad.Depth = -1
	if _, err := ros.NewPublisher[std_msgs.String](n, "x", bad); !errors.Is(err, ros.ErrInvalidQoS) {
		t.Errorf("negative depth: %v", err)
	}
	if len(n.Graph().Snapshot().Publishers("/x")) != 0 {
		t.Error("a refused publisher is in the graph")
	}
}

func TestConformancePubSub(t *testing.T) {
	afortest.RunPubSub(t, afortest.PubSub{Synctest: true, New: func(t *testing.T) (func(context.Context, string) error, *afor.Sub[string]) {
		net := ros.NewMemoryNetwork()
		a := memNode(t, net, "a")
		b := memNode(t, net, "b")
		pub, err := ros.NewPublisher[std_msgs.String](a, "conformance", ros.QoSDefault)
		if err != nil {
			t.Fatal(err)
		}
		sub, err := ros.Subscribe[std_msgs.String](b, "conformance", ros.QoSDefault)
		if err != nil {
			t.Fatal(err)
		}
		strs := afor.Map(sub, func(m std_msgs.String) (string, error) { return m.Data, nil })
		strs.OnClose(sub.Close)
		return func(ctx context.Context, s string) error { return pub.Publish(ctx, &std_msgs.String{Data: s}) }, strs
	}})
}
