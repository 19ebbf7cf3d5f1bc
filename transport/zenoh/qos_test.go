package zenoh

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// stalledSubscriber declares on s a subscriber to key whose first sample
// stalls s's link reader until release is called; it counts the samples
// with payload other than "end", and closes ended when "end" arrives.
func stalledSubscriber(t *testing.T, s *Session, key string) (release func(), count *atomic.Int64, ended <-chan struct{}) {
	t.Helper()
	rel := make(chan struct{})
	end := make(chan struct{})
	var (
		stall sync.Once
		n     atomic.Int64
	)
	sub, err := s.DeclareSubscriber(key, func(smp Sample) {
		stall.Do(func() { <-rel })
		if string(smp.Payload) == "end" {
			close(end)
			return
		}
		n.Add(1)
	})
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() { once.Do(func() { close(rel) }) }
	t.Cleanup(func() { release(); _ = sub.Undeclare() })
	return release, &n, end
}

// maxStalledPuts bounds the 64 KiB puts a test makes against a stalled
// receiver: 128 MiB, far more than the transmit queue and the socket
// buffers hold.
const maxStalledPuts = 2048

// finish releases the receiver, sends "end" (blocking) behind everything,
// and waits for it: every sample sent before it has then been delivered.
func finish(t *testing.T, p *Publisher, release func(), ended <-chan struct{}) {
	t.Helper()
	release()
	ctx := testCtx(t)
	if err := p.Put(ctx, []byte("end"), WithCongestionControl(CongestionBlock)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ended:
	case <-ctx.Done():
		t.Fatal("end marker never arrived")
	}
}

// With CongestionDrop (the default), a publisher facing a receiver that
// does not read drops samples instead of waiting, and counts them.
func TestCongestionDropDropsUnderStalledReceiver(t *testing.T) {
	a, b := pair(t, ModePeer)
	release, got, ended := stalledSubscriber(t, b, "cc/**")
	p := publisher(t, a, "cc/drop")
	ctx := testCtx(t)
	payload := make([]byte, 64<<10)
	puts := 0
	for p.Dropped() == 0 {
		if puts == maxStalledPuts {
			t.Fatalf("nothing dropped after %d puts of %d bytes", puts, len(payload))
		}
		if err := p.Put(ctx, payload); err != nil {
			t.Fatalf("put %d: %v", puts, err)
		}
		puts++
	}
	finish(t, p, release, ended)
	if want := int64(puts) - int64(p.Dropped()); got.Load() != want {
		t.Fatalf("received %d, want %d sent minus %d dropped", got.Load(), puts, p.Dropped())
	}
}

// With CongestionBlock, the publisher waits (until its ctx ends) and
// drops nothing: every Put that returned nil is delivered.
func TestCongestionBlockNeverDrops(t *testing.T) {
	a, b := pair(t, ModePeer)
	release, got, ended := stalledSubscriber(t, b, "cc/**")
	p := publisher(t, a, "cc/block", WithCongestionControl(CongestionBlock))
	payload := make([]byte, 64<<10)
	ok := 0
	for {
		if ok == maxStalledPuts {
			t.Fatalf("never blocked after %d puts of %d bytes", ok, len(payload))
		}
		ctx, cancel := context.WithTimeout(testCtx(t), 300*time.Millisecond)
		err := p.Put(ctx, payload)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) {
			break // blocked on the full queue until ctx ended
		}
		if err != nil {
			t.Fatalf("put %d: %v", ok, err)
		}
		ok++
	}
	if p.Dropped() != 0 {
		t.Fatalf("dropped %d", p.Dropped())
	}
	finish(t, p, release, ended)
	if got.Load() != int64(ok) {
		t.Fatalf("received %d of %d", got.Load(), ok)
	}
}

func TestQoSOptionsValidated(t *testing.T) {
	s := openT(t, Config{})
	if _, err := s.DeclarePublisher("q/x", WithPriority(8)); !errors.Is(err, ErrInvalidQoS) {
		t.Errorf("priority 8: %v", err)
	}
	if _, err := s.DeclarePublisher("q/x", WithCongestionControl(7)); !errors.Is(err, ErrInvalidQoS) {
		t.Errorf("congestion 7: %v", err)
	}
	p, err := s.DeclarePublisher("q/x")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Put(testCtx(t), nil, WithPriority(9)); !errors.Is(err, ErrInvalidQoS) {
		t.Errorf("put with priority 9: %v", err)
	}
}

// TestQoSOnTheWire checks the QoS extension of what a publisher sends: none
// for the defaults (as Rust Zenoh omits it), and the priority, D and E
// bits otherwise.
func TestQoSOnTheWire(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []PutOption
		want []byte // the PUSH on key "k" of payload "x"
	}{
		// PUSH N (scope 0, suffix "k"), PUT with payload "x".
		{"default", nil, []byte{0x3d, 0x00, 0x01, 'k', 0x01, 0x01, 'x'}},
		// Z flag; QoS extension (header 0x21: id 1, Z64) = priority 5 | D.
		{"block", []PutOption{WithCongestionControl(CongestionBlock)},
			[]byte{0xbd, 0x00, 0x01, 'k', 0x21, 0x0d, 0x01, 0x01, 'x'}},
		// priority 1 | E.
		{"realtime-express", []PutOption{WithPriority(PriorityRealTime), WithExpress(true)},
			[]byte{0xbd, 0x00, 0x01, 'k', 0x21, 0x11, 0x01, 0x01, 'x'}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var o putOptions
			for _, f := range tc.opts {
				f(&o)
			}
			q, err := o.wireQoS()
			if err != nil {
				t.Fatal(err)
			}
			var e pushEncoder
			b, err := e.append(nil, "k", &dataMsg{payload: []byte("x"), qos: q})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b, tc.want) {
				t.Fatalf("encoded % x, want % x", b, tc.want)
			}
			m, _, err := wire.DecodeNetwork(b, wire.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if got := m.(*wire.Push).EffectiveQoS(); got != q {
				t.Fatalf("decoded QoS %#x, want %#x", got, q)
			}
		})
	}
}
