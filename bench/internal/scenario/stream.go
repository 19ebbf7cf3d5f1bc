package scenario

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/afor-go/afor"
)

// Stream sends messages one way, from peer A to peer B, keeping at most a
// window of messages in flight so that no queue overflows (the sender waits
// for the receiver, as a transport's flow control would).
type Stream struct {
	clock   clock
	send    func(ctx context.Context, m Msg) error
	close   func() error
	dropped func() uint64 // messages the receiver's afor queue dropped
	onRecv  func(Msg)

	window, batch int64
	sent          int64
	recv          atomic.Int64
	want          atomic.Int64
	failed        atomic.Int64
	next          uint64 // receiver side: the sequence number expected
	signal        chan struct{}
	// One-way streams (see oneway.go): flush markers sent and answered.
	oneWay        bool
	flushes       int64
	flushed       atomic.Int64
	remoteDropped atomic.Int64
}

// StreamConfig configures a stream.
type StreamConfig struct {
	Size int // message size in bytes
	// Window is the most messages in flight; 0 means no limit.
	Window int
	// Queue is the afor listener's queue size (ModeAfor); 0 means
	// unbounded. Throughput uses twice the window, so nothing is dropped.
	Queue int
	// OnRecv, if not nil, sees every message B receives, in B's goroutine.
	OnRecv func(Msg)
	// OneWay asks for a stream without per-message acknowledgments where
	// the link has one (Link.OneWaySinkB): the transport's flow control
	// paces the sender instead of Window, and OnRecv is not called.
	OneWay bool

	clock clock // stamps messages; zero: a new clock
}

func newStreamBase(cfg StreamConfig) *Stream {
	if cfg.clock.start.IsZero() {
		cfg.clock = newClock()
	}
	s := &Stream{
		clock:   cfg.clock,
		window:  int64(cfg.Window),
		batch:   max(1, int64(cfg.Window)/4),
		onRecv:  cfg.OnRecv,
		signal:  make(chan struct{}, 1),
		dropped: func() uint64 { return 0 },
	}
	if s.window <= 0 {
		s.window = 1 << 62
	}
	s.want.Store(1 << 62)
	return s
}

// NewStream sets up a stream over tr in ModeAfor (B ranges over a
// ListenReliable loop) or ModeNative (B's transport callback).
func NewStream(ctx context.Context, tr Transport, mode Mode, cfg StreamConfig) (*Stream, error) {
	link, err := tr.open(ctx, mode, cfg.Size)
	if err != nil {
		return nil, err
	}
	if cfg.OneWay && link.OneWaySinkB != nil {
		return newOneWayStream(ctx, link, mode, cfg)
	}
	if link.SinkB != nil {
		return newRemoteStream(ctx, link, mode, cfg)
	}
	if (mode == ModeAfor && link.B.Subscribe == nil) || (mode == ModeNative && link.B.Callback == nil) {
		return nil, errors.Join(fmt.Errorf("%w: %s has no stream receiver", ErrUnsupported, tr.Name), link.Close())
	}
	s := newStreamBase(cfg)
	var closeRecv func()
	switch mode {
	case ModeAfor:
		sub, err := link.B.Subscribe("data")
		if err != nil {
			return nil, errors.Join(err, link.Close())
		}
		life, stop := context.WithCancel(context.Background())
		l := sub.Listener(life, afor.QueueSize(cfg.Queue))
		s.dropped = l.Dropped
		done := make(chan struct{})
		go func() {
			defer close(done)
			for m := range l.All() {
				s.received(m)
			}
		}()
		closeRecv = func() { stop(); <-done }
	case ModeNative:
		stop, err := link.B.Callback("data", s.received)
		if err != nil {
			return nil, errors.Join(err, link.Close())
		}
		closeRecv = stop
	default:
		return nil, errors.Join(fmt.Errorf("%w: stream mode %q", ErrBadConfig, mode), link.Close())
	}
	pub, err := link.A.Publisher(ctx, "data")
	if err != nil {
		closeRecv()
		return nil, errors.Join(err, link.Close())
	}
	s.send = pub
	s.close = func() error {
		closeRecv()
		return link.Close()
	}
	return s, nil
}

// newRemoteStream runs side B in another process (Link.SinkB): each of its
// acknowledgements counts as a message received, with the latency the
// remote side measured.
func newRemoteStream(ctx context.Context, link *Link, mode Mode, cfg StreamConfig) (*Stream, error) {
	if mode != ModeAfor && mode != ModeNative {
		return nil, errors.Join(fmt.Errorf("%w: stream mode %q", ErrBadConfig, mode), link.Close())
	}
	s := newStreamBase(cfg)
	stopAcks, err := link.A.Callback("ack", func(m Msg) {
		if m.Seq != badSeq {
			m.Stamp = s.clock.now() - m.Stamp // so that OnRecv sees the remote latency
		}
		s.received(m)
	})
	if err != nil {
		return nil, errors.Join(err, link.Close())
	}
	stopB, err := link.SinkB(ctx, mode, cfg.Queue, s.clock.start)
	if err != nil {
		stopAcks()
		return nil, errors.Join(err, link.Close())
	}
	pub, err := link.A.Publisher(ctx, "data")
	if err != nil {
		return nil, errors.Join(err, stopB(), link.Close())
	}
	s.send = pub
	s.close = func() error {
		err := stopB()
		stopAcks()
		return errors.Join(err, link.Close())
	}
	return s, nil
}

// NewFloorStream sets up a stream over floor f: B receives in its own
// goroutine. Over FloorTCPProc, B is a child process that acknowledges
// every message with its one-way latency; each acknowledgement counts as
// the message received.
func NewFloorStream(ctx context.Context, f Floor, cfg StreamConfig) (*Stream, error) {
	if f == FloorTCPProc {
		return newProcFloorStream(ctx, cfg)
	}
	a, b, closeAll, err := openFloor(ctx, f, cfg.Size, max(cfg.Window, 1))
	if err != nil {
		return nil, err
	}
	s := newStreamBase(cfg)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			m, err := b.Recv()
			if err != nil {
				return
			}
			s.received(m)
		}
	}()
	s.send = func(_ context.Context, m Msg) error { return a.Send(m) }
	s.close = func() error { closeAll(); <-done; return nil }
	return s, nil
}

// received runs in B's receiving goroutine for every message.
func (s *Stream) received(m Msg) {
	if m.Seq < s.next || m.Seq == badSeq {
		s.failed.Add(1) // undecodable, duplicated or reordered; gaps are drops
	} else {
		s.next = m.Seq + 1
	}
	if s.onRecv != nil {
		s.onRecv(m)
	}
	if n := s.recv.Add(1); n%s.batch == 0 || n >= s.want.Load() {
		select {
		case s.signal <- struct{}{}:
		default:
		}
	}
}

func (s *Stream) done() int64 {
	return s.recv.Load() + int64(s.dropped()) + s.remoteDropped.Load()
}

// Send sends the next message, stamped with the stream's clock, after
// waiting (within ctx) for room in the window.
func (s *Stream) Send(ctx context.Context) error {
	for s.sent-s.done() >= s.window {
		select {
		case <-s.signal:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	err := s.send(ctx, Msg{Seq: uint64(s.sent), Stamp: s.clock.now()})
	if err == nil {
		s.sent++
	}
	return err
}

// Drain waits (within ctx) until every message sent was received or
// dropped.
func (s *Stream) Drain(ctx context.Context) error {
	if s.oneWay {
		return s.drainOneWay(ctx)
	}
	s.want.Store(s.sent)
	defer s.want.Store(1 << 62)
	for s.done() < s.sent {
		select {
		case <-s.signal:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Counts returns how many messages were sent, received, dropped by the
// receiver's afor queue, and received out of sequence or undecodable.
func (s *Stream) Counts() (sent, received, dropped, failed int64) {
	return s.sent, s.recv.Load(), int64(s.dropped()) + s.remoteDropped.Load(), s.failed.Load()
}

// Close stops the receiver and releases the transport.
func (s *Stream) Close() error { return s.close() }

// newOneWayStream runs side B in another process (Link.OneWaySinkB)
// without per-message acknowledgments: B answers flush markers only.
func newOneWayStream(ctx context.Context, link *Link, mode Mode, cfg StreamConfig) (*Stream, error) {
	if mode != ModeAfor && mode != ModeNative {
		return nil, errors.Join(fmt.Errorf("%w: stream mode %q", ErrBadConfig, mode), link.Close())
	}
	// The transport's flow control paces the sender, and B's afor queue
	// is unbounded: its reliable reader acknowledges what it received,
	// not what was consumed, so a bounded queue would drop.
	cfg.Window, cfg.Queue = 0, 0
	s := newStreamBase(cfg)
	s.oneWay = true
	stopAcks, err := link.A.Callback("ack", func(m Msg) {
		s.recv.Store(int64(m.Seq))
		s.failed.Store(m.Stamp & 0xffffffff)
		s.remoteDropped.Store(m.Stamp >> 32)
		s.flushed.Add(1)
		select {
		case s.signal <- struct{}{}:
		default:
		}
	})
	if err != nil {
		return nil, errors.Join(err, link.Close())
	}
	stopB, err := link.OneWaySinkB(ctx, mode, cfg.Queue)
	if err != nil {
		stopAcks()
		return nil, errors.Join(err, link.Close())
	}
	pub, err := link.A.Publisher(ctx, "data")
	if err != nil {
		return nil, errors.Join(err, stopB(), link.Close())
	}
	s.send = pub
	s.close = func() error {
		err := stopB()
		stopAcks()
		return errors.Join(err, link.Close())
	}
	return s, nil
}

// drainOneWay sends a flush marker and waits (within ctx) for B's answer.
func (s *Stream) drainOneWay(ctx context.Context) error {
	if err := s.send(ctx, Msg{Seq: flushSeq, Stamp: s.clock.now()}); err != nil {
		return err
	}
	s.flushes++
	for s.flushed.Load() < s.flushes {
		select {
		case <-s.signal:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if d := s.done(); d != s.sent {
		return fmt.Errorf("one-way stream: %d messages sent, %d received or dropped", s.sent, d)
	}
	return nil
}
