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
