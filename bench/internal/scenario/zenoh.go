package scenario

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/transport/zenoh"
)

// matchTimeout bounds the wait for a remote subscriber's declaration.
const matchTimeout = 5 * time.Second

// Zenoh is the pure-Go Zenoh transport within one session: both peers are
// the same session and samples go from publisher to subscriber without a
// socket (afor mode: zenoh.SubscribeCodec; native: DeclareSubscriber).
func Zenoh() Transport {
	return Transport{Name: "zenoh", Floor: FloorChan, Python: PythonZenoh, Open: openZenoh(false)}
}

// ZenohTCP is the pure-Go Zenoh transport between two sessions of this
// process, linked over TCP on 127.0.0.1 with an ephemeral port.
func ZenohTCP() Transport {
	return Transport{Name: "zenoh-tcp", Floor: FloorTCP, Open: openZenoh(true)}
}

func openZenoh(twoSessions bool) func(ctx context.Context, size int) (*Link, error) {
	return func(ctx context.Context, size int) (*Link, error) {
		cfg := zenoh.Config{}
		if twoSessions {
			cfg.Listen = []string{"tcp/127.0.0.1:0"}
		}
		b, err := zenoh.Open(ctx, cfg)
		if err != nil {
			return nil, err
		}
		a := b
		if twoSessions {
			a, err = zenoh.Open(ctx, zenoh.Config{Connect: b.ListenAddrs()})
			if err != nil {
				b.Close()
				return nil, err
			}
		}
		prefix := "afor_bench/" + b.ZID() + "/"
		link := &Link{
			A: zenohPeer(a, prefix, size),
			B: zenohPeer(b, prefix, size),
			Close: func() error {
				err := a.Close()
				if a != b {
					err = errors.Join(err, b.Close())
				}
				return err
			},
		}
		return link, nil
	}
}

func zenohPeer(s *zenoh.Session, prefix string, size int) Peer {
	return Peer{
		Publisher: func(ctx context.Context, key string) (func(context.Context, Msg) error, error) {
			pub, err := s.DeclarePublisher(prefix + key)
			if err != nil {
				return nil, err
			}
			wctx, cancel := context.WithTimeout(ctx, matchTimeout)
			defer cancel()
			if err := pub.WaitMatching(wctx); err != nil {
				return nil, fmt.Errorf("zenoh: %s: no subscriber reachable: %w", key, err)
			}
			buf := AppendMsg(nil, Msg{}, size)
			return func(ctx context.Context, m Msg) error {
				putHeader(buf, m)
				return pub.Put(ctx, buf)
			}, nil
		},
		Subscribe: func(key string, opts ...afor.Option) (*afor.Sub[Msg], error) {
			return zenoh.SubscribeCodec[Msg](s, prefix+key, Codec{Size: size}, opts...)
		},
		Callback: func(key string, f func(Msg)) (func(), error) {
			sub, err := s.DeclareSubscriber(prefix+key, func(smp zenoh.Sample) {
				m, err := DecodeMsg(smp.Payload)
				if err != nil {
					m = Msg{Seq: badSeq}
				}
				f(m)
			})
			if err != nil {
				return nil, err
			}
			return func() { _ = sub.Undeclare() }, nil
		},
		// Request/reply (queryables) is not in transport/zenoh yet.
		// HOOK(zenoh-query): when zenoh.NewServer/NewClient exist, set
		// Server and Client here and the request scenario gains zenoh rows.
	}
}

// badSeq marks a message that could not be decoded; scenarios count it as
// failed.
const badSeq = ^uint64(0)
