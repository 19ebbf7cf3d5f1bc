package zenoh

import (
	"context"
	"fmt"
	"strconv"
	"testing"
)

// BenchmarkDeclareSubscribers declares n local subscribers on distinct keys
// and then undeclares them all, one op being the whole batch: linear
// routing makes the cost per subscriber flat from 1k to 10k.
func BenchmarkDeclareSubscribers(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			s := openT(b, Config{})
			keys := make([]string, n)
			for i := range keys {
				keys[i] = fmt.Sprintf("bench/declare/%d", i)
			}
			subs := make([]*Subscriber, n)
			b.ReportAllocs()
			for b.Loop() {
				for i, k := range keys {
					sub, err := s.DeclareSubscriber(k, func(Sample) {})
					if err != nil {
						b.Fatal(err)
					}
					subs[i] = sub
				}
				for _, sub := range subs {
					if err := sub.Undeclare(); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(2*n), "ns/decl")
		})
	}
}

// BenchmarkPublishLocal publishes on a key with one matching local
// subscriber among 1,000 others, next to a plain function call through the
// same handler (the primitive underneath).
func BenchmarkPublishLocal(b *testing.B) {
	ctx := context.Background()
	var got int
	handler := func(Sample) { got++ }
	b.Run("func-call", func(b *testing.B) {
		smp := Sample{KeyExpr: "bench/pub"}
		f := handler
		b.ReportAllocs()
		for b.Loop() {
			f(smp)
		}
	})
	b.Run("zenoh-put", func(b *testing.B) {
		s := openT(b, Config{})
		for i := range 1000 {
			if _, err := s.DeclareSubscriber(fmt.Sprintf("bench/other/%d", i), handler); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := s.DeclareSubscriber("bench/*", handler); err != nil {
			b.Fatal(err)
		}
		p, err := s.DeclarePublisher("bench/pub")
		if err != nil {
			b.Fatal(err)
		}
		payload := make([]byte, 8)
		b.ReportAllocs()
		for b.Loop() {
			if err := p.Put(ctx, payload); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkRouteCached is the routing step of every publication once its
// route is cached (one per publisher, one per link's last key), among
// 1,000 subscriptions: it must not allocate.
func BenchmarkRouteCached(b *testing.B) {
	s := openT(b, Config{})
	for i := range 1000 {
		if _, err := s.DeclareSubscriber(fmt.Sprintf("bench/other/%d", i), func(Sample) {}); err != nil {
			b.Fatal(err)
		}
	}
	c := s.route(nil, "bench/pub", nil)
	b.ReportAllocs()
	for b.Loop() {
		c = s.route(c, "bench/pub", nil)
	}
}

// BenchmarkRouteAfterChange is one subscriber declared and undeclared
// between two publications, among n others: the route catches up with the
// two changes instead of being recomputed (and, before issue 17, the
// routing table rebuilt twice).
func BenchmarkRouteAfterChange(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			s := openT(b, Config{})
			for i := range n {
				if _, err := s.DeclareSubscriber(fmt.Sprintf("bench/other/%d", i), func(Sample) {}); err != nil {
					b.Fatal(err)
				}
			}
			c := s.route(nil, "bench/pub", nil)
			b.ReportAllocs()
			for b.Loop() {
				sub, err := s.DeclareSubscriber("bench/*", func(Sample) {})
				if err != nil {
					b.Fatal(err)
				}
				c = s.route(c, "bench/pub", nil)
				_ = sub.Undeclare()
				c = s.route(c, "bench/pub", nil)
			}
		})
	}
}
