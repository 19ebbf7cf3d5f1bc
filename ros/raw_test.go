package ros_test

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/msgs/example_interfaces"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/ros/msgs/std_srvs"
)

func rawTypeOf(m cdr.Named) ros.RawType { return ros.RawType{Name: m.TypeName(), Hash: m.TypeHash()} }

func TestRawPublisherToTypedSubscription(t *testing.T) {
	net := ros.NewMemoryNetwork()
	a := memNode(t, net, "raw_talker")
	b := memNode(t, net, "listener")
	pub, err := ros.NewRawPublisher(a, "chatter", rawTypeOf(std_msgs.String{}), ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	if pub.Topic() != "/chatter" {
		t.Fatalf("topic %q", pub.Topic())
	}
	sub, err := ros.Subscribe[std_msgs.String](b, "chatter", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	payload, err := cdr.Marshal(&std_msgs.String{Data: "hello raw"})
	if err != nil {
		t.Fatal(err)
	}
	next := sub.ArmNext(ctx)
	if err := pub.Publish(ctx, payload); err != nil {
		t.Fatal(err)
	}
	got, err := next.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got.Data != "hello raw" {
		t.Fatalf("got %q", got.Data)
	}
	g := a.Graph().Snapshot()
	if ps := g.Publishers("/chatter"); len(ps) != 1 || ps[0].Type != "std_msgs/msg/String" {
		t.Fatalf("graph publishers %+v", ps)
	}
	if err := pub.Close(); err != nil {
		t.Fatal(err)
	}
	if err := pub.Publish(ctx, payload); !errors.Is(err, ros.ErrClosed) {
		t.Fatalf("publish after close: %v", err)
	}
}

func TestSubscribeRawFromTypedPublisher(t *testing.T) {
	net := ros.NewMemoryNetwork()
	a := memNode(t, net, "talker")
	b := memNode(t, net, "raw_listener")
	pub, err := ros.NewPublisher[std_msgs.String](a, "chatter", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	// The type comes from the graph, as `afor topic echo` gets it.
	g, err := b.Graph().WaitFor(ctx, func(g *ros.GraphSnapshot) bool { return len(g.Publishers("/chatter")) > 0 })
	if err != nil {
		t.Fatal(err)
	}
	e := g.Publishers("/chatter")[0]
	sub, err := ros.SubscribeRaw(b, "chatter", ros.RawType{Name: e.Type, Hash: e.TypeHash}, ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	var got [][]byte
	for i, s := range []string{"a", "bb"} {
		next := sub.ArmNext(ctx)
		if err := pub.Publish(ctx, &std_msgs.String{Data: s}); err != nil {
			t.Fatal(err)
		}
		m, err := next.Wait(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if m.Info.PublisherGID != pub.GID() || m.Info.Sequence != int64(i+1) {
			t.Errorf("info %+v", m.Info)
		}
		got = append(got, m.Payload)
	}
	// Each payload is the reader's own: the second did not overwrite the first.
	for i, s := range []string{"a", "bb"} {
		var m std_msgs.String
		if err := cdr.Unmarshal(got[i], &m); err != nil || m.Data != s {
			t.Errorf("payload %d: %q, %v; want %q", i, m.Data, err, s)
		}
	}
}

func TestRawTypeInvalid(t *testing.T) {
	n := memNode(t, ros.NewMemoryNetwork(), "n")
	if _, err := ros.NewRawPublisher(n, "x", ros.RawType{Name: "String"}, ros.QoSDefault); !errors.Is(err, ros.ErrInvalidType) {
		t.Fatalf("publisher: %v", err)
	}
	if _, err := ros.SubscribeRaw(n, "x", ros.RawType{Name: "std_msgs/msg/"}, ros.QoSDefault); !errors.Is(err, ros.ErrInvalidType) {
		t.Fatalf("subscription: %v", err)
	}
	if _, err := ros.NewRawClient(n, "x", ros.RawServiceType{}); !errors.Is(err, ros.ErrInvalidType) {
		t.Fatalf("client: %v", err)
	}
	if _, err := ros.NewRawActionClient(n, "x", ros.RawActionType{}); !errors.Is(err, ros.ErrInvalidType) {
		t.Fatalf("action client: %v", err)
	}
}

func TestRawClientCallsTypedServer(t *testing.T) {
	net := ros.NewMemoryNetwork()
	sn := memNode(t, net, "server")
	cn := memNode(t, net, "raw_client")
	srv, err := ros.NewServer(sn, "set_flag", std_srvs.SetBool{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	go func() {
		for r := range srv.ListenReliable(ctx) {
			_ = r.Respond(std_srvs.SetBoolResponse{Success: r.Request.Data, Message: "ok"})
		}
	}()
	st := ros.RawServiceType{
		Service:  rawTypeOf(std_srvs.SetBool{}),
		Request:  rawTypeOf(std_srvs.SetBoolRequest{}),
		Response: rawTypeOf(std_srvs.SetBoolResponse{}),
	}
	cl, err := ros.NewRawClient(cn, "set_flag", st)
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.WaitForServer(ctx); err != nil {
		t.Fatal(err)
	}
	req, err := cdr.Marshal(&std_srvs.SetBoolRequest{Data: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := cl.Call(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	var got std_srvs.SetBoolResponse
	if err := cdr.Unmarshal(res, &got); err != nil || !got.Success || got.Message != "ok" {
		t.Fatalf("reply %+v, %v", got, err)
	}
	_ = cn.Close()
	if _, err := cl.Call(ctx, req); !errors.Is(err, ros.ErrClosed) {
		t.Fatalf("call after close: %v", err)
	}
}

func rawFibonacci() ros.RawActionType {
	t := example_interfaces.Fibonacci{}
	w := t.WireTypes()
	return ros.RawActionType{
		Action:          rawTypeOf(t),
		SendGoal:        ros.RawServiceType{Service: rawTypeOf(w[0]), Request: rawTypeOf(w[1]), Response: rawTypeOf(w[2])},
		GetResult:       ros.RawServiceType{Service: rawTypeOf(w[3]), Request: rawTypeOf(w[4]), Response: rawTypeOf(w[5])},
		FeedbackMessage: rawTypeOf(w[6]),
	}
}

func TestRawActionClientDrivesTypedServer(t *testing.T) {
	net := ros.NewMemoryNetwork()
	sn := memNode(t, net, "server")
	cn := memNode(t, net, "raw_client")
	srv, err := ros.NewActionServer(sn, "fibonacci", example_interfaces.Fibonacci{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	go func() {
		for g := range srv.ListenReliable(ctx) {
			if g.Goal.Order < 0 {
				g.Reject()
				continue
			}
			if g.Accept() != nil {
				continue
			}
			seq := []int32{0, 1}
			for i := 1; i < int(g.Goal.Order); i++ {
				seq = append(seq, seq[i]+seq[i-1])
				_ = g.PublishFeedback(ctx, example_interfaces.FibonacciFeedback{Sequence: slices.Clone(seq)})
			}
			g.Succeed(example_interfaces.FibonacciResult{Sequence: seq})
		}
	}()
	cl, err := ros.NewRawActionClient(cn, "fibonacci", rawFibonacci())
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.WaitForServer(ctx); err != nil {
		t.Fatal(err)
	}
	goal, err := cdr.Marshal(&example_interfaces.FibonacciGoal{Order: 5})
	if err != nil {
		t.Fatal(err)
	}
	h, err := cl.SendGoal(ctx, ros.RawPayload(goal))
	if err != nil {
		t.Fatal(err)
	}
	status, res, err := h.Result(ctx)
	if err != nil || status != ros.StatusSucceeded {
		t.Fatalf("result: %v, %v", status, err)
	}
	var r example_interfaces.FibonacciGetResultResponse
	if err := cdr.Unmarshal(res.Payload, &r); err != nil {
		t.Fatal(err)
	}
	if want := []int32{0, 1, 1, 2, 3, 5}; !slices.Equal(r.Result.Sequence, want) || r.Status != 0 {
		t.Fatalf("result %+v, want sequence %v and a zero status member", r, want)
	}

	// The feedback, cut out of the feedback messages: the latest is kept.
	fb, ok := h.Feedback().Value()
	if !ok {
		t.Fatal("no feedback")
	}
	var f example_interfaces.FibonacciFeedback
	if err := cdr.Unmarshal(fb, &f); err != nil || !slices.Equal(f.Sequence, []int32{0, 1, 1, 2, 3, 5}) {
		t.Fatalf("feedback %+v, %v", f, err)
	}

	bad, err := cdr.Marshal(&example_interfaces.FibonacciGoal{Order: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.SendGoal(ctx, ros.RawPayload(bad)); !errors.Is(err, ros.ErrGoalRejected) {
		t.Fatalf("rejected goal: %v", err)
	}
	if _, err := cl.SendGoal(ctx, ros.RawPayload{1, 2}); err == nil {
		t.Fatal("a truncated goal payload was sent")
	}
}

func TestRawPayloadFeedbackRoundTrip(t *testing.T) {
	// A feedback message (goal ID, then the feedback) cut into a payload of
	// its own decodes as the feedback type.
	fb := example_interfaces.FibonacciFeedbackMessage{Feedback: example_interfaces.FibonacciFeedback{Sequence: []int32{0, 1, 1, 2}}}
	fb.GoalID.UUID[0] = 7
	whole, err := cdr.Marshal(&fb)
	if err != nil {
		t.Fatal(err)
	}
	d, err := cdr.NewDecoder(whole)
	if err != nil {
		t.Fatal(err)
	}
	for range 16 {
		d.Uint8()
	}
	var p ros.RawPayload
	p.DecodeCDR(&d)
	var got example_interfaces.FibonacciFeedback
	if err := cdr.Unmarshal(p, &got); err != nil || !slices.Equal(got.Sequence, fb.Feedback.Sequence) {
		t.Fatalf("feedback %+v, %v", got, err)
	}
	// And back: a goal payload nests after a goal ID unchanged.
	e := cdr.NewEncoder(nil)
	for range 16 {
		e.Uint8(7)
	}
	p.EncodeCDR(&e)
	out, err := e.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out[4+16:], p[4:]) {
		t.Fatalf("nested %x, want %x", out[4+16:], p[4:])
	}
}
