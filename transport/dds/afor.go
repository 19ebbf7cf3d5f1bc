package dds

import (
	"context"
	"fmt"
	"sync"

	"github.com/afor-go/afor"
)

// Subscribe creates a reader of topic t and returns its afor.Sub of
// samples. Closing the Sub closes the reader; closing the participant
// closes the Sub.
func Subscribe(p *Participant, t Topic, q QoS, opts ...afor.Option) (*afor.Sub[Sample], error) {
	r, err := NewReader(p, t, q, opts...)
	if err != nil {
		return nil, err
	}
	return r.Sub(), nil
}

// SubscribeCodec creates a reader of topic t whose payloads (encapsulation
// header included) are decoded by codec straight from the received bytes
// into an afor.Sub. Payloads that fail to decode are skipped and logged at
// debug level. Closing the Sub closes the reader.
func SubscribeCodec[T any](p *Participant, t Topic, q QoS, codec afor.Codec[T], opts ...afor.Option) (*afor.Sub[T], error) {
	_, sub, err := NewCodecReader(p, t, q, codec, opts...)
	return sub, err
}

// NewCodecReader is SubscribeCodec that also returns the reader, for its
// match status (Reader.WaitMatched). Reader.Sub is nil for it; closing the
// reader or the Sub closes both.
func NewCodecReader[T any](p *Participant, t Topic, q QoS, codec afor.Codec[T], opts ...afor.Option) (*Reader, *afor.Sub[T], error) {
	if codec == nil {
		return nil, nil, fmt.Errorf("dds: SubscribeCodec: nil codec")
	}
	sub := afor.NewSub[T](q.backlog(opts)...)
	log := p.log
	r, err := newUserReader(p, t, q, func(s *inSample) {
		if s.payload == nil || s.key {
			return
		}
		v, err := codec.Decode(s.payload)
		if err != nil {
			log.Debug("dds: payload decode failed", "topic", t.Name, "err", err)
			return
		}
		sub.Input(v)
	})
	if err != nil {
		sub.CloseWithError(err)
		return nil, nil, err
	}
	r.onClose = sub.Close
	sub.OnClose(func() { r.Close() })
	return r, sub, nil
}

// TypedWriter writes values of type T, encoded by a codec, to a Writer.
type TypedWriter[T any] struct {
	w     *Writer
	codec afor.Codec[T]
	mu    sync.Mutex
	buf   []byte // encoding buffer, reused (the writer copies what it keeps); nil while in use
}

// NewTypedWriter creates a writer of topic t whose samples codec encodes
// (encapsulation header included).
func NewTypedWriter[T any](p *Participant, t Topic, q QoS, codec afor.Codec[T]) (*TypedWriter[T], error) {
	if codec == nil {
		return nil, fmt.Errorf("dds: NewTypedWriter: nil codec")
	}
	w, err := NewWriter(p, t, q)
	if err != nil {
		return nil, err
	}
	return &TypedWriter[T]{w: w, codec: codec}, nil
}

// Write encodes v and writes it (see Writer.Write).
//
// No lock is held while the writer writes: a local reader's callback may
// run within Write (see the package documentation) and write through tw
// again, with a buffer of its own.
func (tw *TypedWriter[T]) Write(ctx context.Context, v T) error {
	tw.mu.Lock()
	buf := tw.buf
	tw.buf = nil
	tw.mu.Unlock()
	b, err := tw.codec.Append(buf[:0], v)
	if err != nil {
		return fmt.Errorf("dds: encode: %w", err)
	}
	err = tw.w.Write(ctx, b)
	if cap(b) <= 1<<20 {
		tw.mu.Lock()
		if tw.buf == nil {
			tw.buf = b
		}
		tw.mu.Unlock()
	}
	return err
}

// Writer returns the underlying writer (for its match status).
func (tw *TypedWriter[T]) Writer() *Writer { return tw.w }

// Close closes the underlying writer.
func (tw *TypedWriter[T]) Close() error { return tw.w.Close() }
