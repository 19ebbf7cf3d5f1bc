package zenoh

import (
	"errors"
	"fmt"

	"github.com/afor-go/afor"
)

// Subscribe feeds an afor.Sub with every sample on key expressions
// intersecting key. Closing the Sub undeclares the subscriber; closing the
// session closes the Sub with ErrSessionClosed.
func Subscribe(s *Session, key string, opts ...afor.Option) (*afor.Sub[Sample], error) {
	sub := afor.NewSub[Sample](opts...)
	zs, err := s.declareSubscriber(key, func(k string, d dataMsg) {
		sub.Input(toSample(k, &d))
	}, endSub(sub))
	if err != nil {
		sub.CloseWithError(err)
		return nil, err
	}
	sub.OnClose(func() { _ = zs.Undeclare() })
	return sub, nil
}

// SubscribeCodec feeds an afor.Sub with the payloads of samples on key
// expressions intersecting key, decoded by codec straight from the received
// bytes. Deletions and payloads that fail to decode are skipped (the
// latter logged at debug level).
func SubscribeCodec[T any](s *Session, key string, codec afor.Codec[T], opts ...afor.Option) (*afor.Sub[T], error) {
	if codec == nil {
		return nil, fmt.Errorf("zenoh: SubscribeCodec: nil codec")
	}
	sub := afor.NewSub[T](opts...)
	log := s.log
	zs, err := s.declareSubscriber(key, func(k string, d dataMsg) {
		if d.del {
			return
		}
		v, err := codec.Decode(d.payload)
		if err != nil {
			log.Debug("zenoh: payload decode failed", "key", k, "err", err)
			return
		}
		sub.Input(v)
	}, endSub(sub))
	if err != nil {
		sub.CloseWithError(err)
		return nil, err
	}
	sub.OnClose(func() { _ = zs.Undeclare() })
	return sub, nil
}

// endSub closes an afor sub when its subscriber ends for any reason other
// than its own undeclaration.
func endSub[T any](sub *afor.Sub[T]) func(error) {
	return func(err error) {
		if !errors.Is(err, ErrUndeclared) {
			sub.CloseWithError(err)
		}
	}
}
