package zenoh_test

import (
	"context"
	"fmt"
	"log"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/transport/zenoh"
)

// A typed publisher encodes each value with its codec, the counterpart of
// SubscribeCodec on the receiving side.
func ExampleNewPublisher() {
	type Pose struct{ X, Y float64 }
	ctx := context.Background()
	s, err := zenoh.Open(ctx, zenoh.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	poses, err := zenoh.SubscribeCodec(s, "robot/*/pose", afor.JSONCodec[Pose]{})
	if err != nil {
		log.Fatal(err)
	}
	pub, err := zenoh.NewPublisher(s, "robot/r1/pose", afor.JSONCodec[Pose]{}, zenoh.WithEncoding(zenoh.EncodingJSON))
	if err != nil {
		log.Fatal(err)
	}
	if err := pub.Put(ctx, Pose{X: 1, Y: 2}); err != nil {
		log.Fatal(err)
	}
	p, err := poses.WaitForValue(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%+v\n", p)
	// Output: {X:1 Y:2}
}

// Links lists the links that are up; with ConnectExitOnFailure, Open fails
// when a Connect endpoint cannot be reached instead of only logging it.
func ExampleSession_Links() {
	ctx := context.Background()
	a, err := zenoh.Open(ctx, zenoh.Config{Listen: []string{"tcp/127.0.0.1:0"}})
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	b, err := zenoh.Open(ctx, zenoh.Config{Connect: a.ListenAddrs(), ConnectExitOnFailure: true})
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	for _, l := range b.Links() {
		fmt.Println(l.WhatAmI, l.Dialed, l.ZID == a.ZID())
	}
	// Output: peer true true
}
