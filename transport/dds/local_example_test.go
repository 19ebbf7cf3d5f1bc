package dds_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/afor-go/afor/transport/dds"
)

// Two callback readers of one participant answer each other: every sample
// goes from writer to reader in memory, within the first Write, and no
// datagram is sent.
func ExampleNewReaderFunc() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p, err := dds.NewParticipant(ctx, dds.Config{DomainID: 7, Range: dds.RangeOff})
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	ping := dds.Topic{Name: "rt/ping", TypeName: "Bytes"}
	pong := dds.Topic{Name: "rt/pong", TypeName: "Bytes"}
	pingW, err := dds.NewWriter(p, ping, dds.QoS{})
	if err != nil {
		log.Fatal(err)
	}
	pongW, err := dds.NewWriter(p, pong, dds.QoS{})
	if err != nil {
		log.Fatal(err)
	}
	hops := 0
	answer := func(w *dds.Writer) func(dds.Sample) {
		return func(s dds.Sample) {
			if hops++; hops < 6 {
				_ = w.Write(ctx, s.Payload)
			}
		}
	}
	if _, err := dds.NewReaderFunc(p, ping, dds.QoS{}, answer(pongW)); err != nil {
		log.Fatal(err)
	}
	if _, err := dds.NewReaderFunc(p, pong, dds.QoS{}, answer(pingW)); err != nil {
		log.Fatal(err)
	}
	before := p.Stats()
	if err := pingW.Write(ctx, []byte{0, 1, 0, 0}); err != nil {
		log.Fatal(err)
	}
	st := p.Stats()
	fmt.Println("hops:", hops, "local:", st.Local-before.Local, "datagrams:", st.Sent-before.Sent)
	// Output: hops: 6 local: 6 datagrams: 0
}

// A loaning reader's callback borrows each payload: it reads it (or copies
// what it keeps) before returning.
func ExampleNewReaderLoan() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p, err := dds.NewParticipant(ctx, dds.Config{DomainID: 7, Range: dds.RangeOff})
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	t := dds.Topic{Name: "rt/bytes", TypeName: "Bytes"}
	var total int
	if _, err := dds.NewReaderLoan(p, t, dds.QoS{}, func(s dds.Sample) { total += len(s.Payload) }); err != nil {
		log.Fatal(err)
	}
	w, err := dds.NewWriter(p, t, dds.QoS{})
	if err != nil {
		log.Fatal(err)
	}
	for range 3 {
		if err := w.Write(ctx, []byte{0, 1, 0, 0, 1, 2, 3, 4}); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println("bytes received:", total)
	// Output: bytes received: 24
}
