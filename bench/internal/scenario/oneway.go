package scenario

import (
	"cmp"
	"context"
	"fmt"
	"sync"

	"github.com/afor-go/afor"
)

// A one-way stream (the dds-proc throughput rows) sends no acknowledgment
// per message: the transport's own flow control (a reliable KEEP_ALL
// writer) paces the sender, as in Cyclone's ddsperf pub/sub. To drain it,
// the sender sends a flush marker (a message with sequence number
// flushSeq); the sink answers it on "ack" with how many messages it got
// before it (Seq) and, as the stamp, how many of those came out of order
// or did not decode (low 32 bits) and how many its afor queue dropped
// (high 32 bits). The transport delivers in order, so everything sent
// before the marker has arrived (or was dropped) when the marker does.
const flushSeq = badSeq - 1

// oneWaySink receives "data" of in in cfg.Mode and answers flush markers
// on "ack" of out.
func oneWaySink(ctx context.Context, in, out Peer, cfg childConfig) (stop func() error, err error) {
	ack, err := out.Publisher(ctx, "ack")
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	var firstErr error
	var got, failed, next uint64
	dropped := func() uint64 { return 0 }
	onMsg := func(m Msg) {
		if m.Seq != flushSeq {
			if m.Seq == badSeq || m.Seq < next {
				failed++
			} else {
				next = m.Seq + 1
			}
			got++
			return
		}
		a := Msg{Seq: got, Stamp: int64(dropped()<<32 | failed&0xffffffff)}
		if err := ack(context.Background(), a); err != nil {
			mu.Lock()
			firstErr = cmp.Or(firstErr, err)
			mu.Unlock()
		}
	}
	ackErr := func() error { mu.Lock(); defer mu.Unlock(); return firstErr }
	switch cfg.Mode {
	case ModeAfor:
		sub, err := in.Subscribe("data")
		if err != nil {
			return nil, err
		}
		life, cancel := context.WithCancel(context.Background())
		l := sub.Listener(life, afor.QueueSize(cfg.Queue))
		dropped = l.Dropped
		done := make(chan struct{})
		go func() {
			defer close(done)
			for m := range l.All() {
				onMsg(m)
			}
		}()
		return func() error { cancel(); <-done; sub.Close(); return ackErr() }, nil
	case ModeNative:
		stopCB, err := in.Callback("data", onMsg)
		if err != nil {
			return nil, err
		}
		return func() error { stopCB(); return ackErr() }, nil
	}
	return nil, fmt.Errorf("%w: sink mode %q", ErrBadConfig, cfg.Mode)
}
