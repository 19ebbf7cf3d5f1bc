package zenoh_test

import (
	"context"
	"fmt"
	"log"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/transport/zenoh"
)

// A session delivers its own publications to its own subscribers; here the
// subscription feeds an afor.Sub.
func Example() {
	ctx := context.Background()
	s, err := zenoh.Open(ctx, zenoh.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	poses, err := zenoh.Subscribe(s, "robot/*/pose")
	if err != nil {
		log.Fatal(err)
	}
	if err := s.Put(ctx, "robot/1/pose", []byte("x=1"), zenoh.WithEncoding(zenoh.EncodingTextPlain)); err != nil {
		log.Fatal(err)
	}
	smp, err := poses.WaitForValue(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(smp.KeyExpr, string(smp.Payload), smp.Encoding)
	// Output: robot/1/pose x=1 text/plain
}

// Two peers over TCP loopback: one listens on a free port, the other
// connects; the publisher waits until the remote subscriber is known.
func ExampleOpen() {
	ctx := context.Background()
	a, err := zenoh.Open(ctx, zenoh.Config{Listen: []string{"tcp/127.0.0.1:0"}})
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	b, err := zenoh.Open(ctx, zenoh.Config{Connect: a.ListenAddrs()})
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()

	got := make(chan zenoh.Sample, 1)
	if _, err := b.DeclareSubscriber("demo/**", func(s zenoh.Sample) { got <- s }); err != nil {
		log.Fatal(err)
	}
	pub, err := a.DeclarePublisher("demo/greeting")
	if err != nil {
		log.Fatal(err)
	}
	if err := pub.WaitMatching(ctx); err != nil {
		log.Fatal(err)
	}
	if err := pub.Put(ctx, []byte("hello"), zenoh.WithAttachment([]byte("v1"))); err != nil {
		log.Fatal(err)
	}
	s := <-got
	fmt.Println(s.Kind, s.KeyExpr, string(s.Payload), string(s.Attachment))
	// Output: PUT demo/greeting hello v1
}

// SubscribeCodec decodes payloads straight from the received bytes.
func ExampleSubscribeCodec() {
	ctx := context.Background()
	s, err := zenoh.Open(ctx, zenoh.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	names, err := zenoh.SubscribeCodec(s, "names", afor.StringCodec{})
	if err != nil {
		log.Fatal(err)
	}
	next := names.ArmNext(ctx)
	if err := s.Put(ctx, "names", []byte("ada")); err != nil {
		log.Fatal(err)
	}
	name, err := next.Wait(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(name)
	// Output: ada
}

// Encodings are names; the predefined ones travel as small ids.
func ExampleWithEncoding() {
	ctx := context.Background()
	s, err := zenoh.Open(ctx, zenoh.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	got := make(chan zenoh.Sample, 2)
	if _, err := s.DeclareSubscriber("cfg", func(smp zenoh.Sample) { got <- smp }); err != nil {
		log.Fatal(err)
	}
	_ = s.Put(ctx, "cfg", []byte(`{"a":1}`), zenoh.WithEncoding(zenoh.EncodingJSON))
	_ = s.Put(ctx, "cfg", []byte("a: 1"), zenoh.WithEncoding("text/yaml;v1"))
	fmt.Println((<-got).Encoding)
	fmt.Println((<-got).Encoding)
	// Output:
	// application/json
	// text/yaml;v1
}

// A queryable answers a query later, from another goroutine, with two
// replies; the querier iterates them until the query is finished.
func ExampleSession_Get() {
	ctx := context.Background()
	s, err := zenoh.Open(ctx, zenoh.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	_, err = s.DeclareQueryable("robot/*/battery", func(q *zenoh.Query) {
		go func() { // a deferred answer
			defer q.Finish()
			_ = q.Reply(ctx, "robot/1/battery", []byte("87%"))
			_ = q.Reply(ctx, "robot/2/battery", []byte("12%"))
		}()
	})
	if err != nil {
		log.Fatal(err)
	}
	replies, err := s.Get(ctx, "robot/*/battery?unit=percent", zenoh.WithConsolidation(zenoh.ConsolidationNone))
	if err != nil {
		log.Fatal(err)
	}
	for r := range replies {
		if r.Err != nil {
			log.Fatal(r.Err)
		}
		fmt.Println(r.Sample.KeyExpr, string(r.Sample.Payload))
	}
	// Output:
	// robot/1/battery 87%
	// robot/2/battery 12%
}

// A service over Zenoh: an afor.Server answers each request (here at
// once; it may answer later from any goroutine) and an afor.Client calls
// it.
func ExampleNewServer() {
	ctx := context.Background()
	s, err := zenoh.Open(ctx, zenoh.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	srv, err := zenoh.NewServer(s, "svc/greet", afor.StringCodec{}, afor.StringCodec{})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	go func() {
		for req := range srv.ListenReliable(ctx) {
			_ = req.Respond("hello " + req.Request)
		}
	}()
	cli, err := zenoh.NewClient(s, "svc/greet", afor.StringCodec{}, afor.StringCodec{})
	if err != nil {
		log.Fatal(err)
	}
	if err := cli.WaitForServer(ctx); err != nil {
		log.Fatal(err)
	}
	res, err := cli.Call(ctx, "robot")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res)
	// Output: hello robot
}

// A liveliness watcher: tokens already alive are reported first, then
// appearances and disappearances.
func ExampleSubscribeLiveliness() {
	ctx := context.Background()
	s, err := zenoh.Open(ctx, zenoh.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	tok, err := s.DeclareToken("robot/1/alive")
	if err != nil {
		log.Fatal(err)
	}
	events, err := zenoh.SubscribeLiveliness(s, "robot/*/alive")
	if err != nil {
		log.Fatal(err)
	}
	defer events.Close()
	watch := events.ListenReliable(ctx)
	_ = tok.Undeclare()
	n := 0
	for ev := range watch {
		fmt.Println(ev.KeyExpr, ev.Kind)
		if n++; n == 2 {
			break
		}
	}
	// Output:
	// robot/1/alive PUT
	// robot/1/alive DELETE
}
