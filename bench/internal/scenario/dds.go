package scenario

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/transport/dds"
)

// The DDS transports (package transport/dds, pure-Go RTPS over UDP) run
// with unicast LOCALHOST discovery (dds.RangeLocalhost: SPDP goes by
// unicast to the discovery ports of the first participant indices on
// 127.0.0.1, no multicast), so that they work on a plain host as well as in
// a loopback-only network namespace. Each link takes a random domain ID in
// [ddsDomainBase, ddsDomainBase+ddsDomains), away from the default domain 0
// of other DDS programs on the machine. Every endpoint is reliable
// KEEP_ALL (the writer waits for room instead of overwriting what a slow
// reader has not acknowledged), as in Cyclone's ddsperf. A message travels
// as a CDR sample: a 4-byte encapsulation header, then the Msg.
const (
	ddsDomainBase = 150
	ddsDomains    = 60
)

// ddsMaxInFlight caps the bytes a DDS throughput row keeps in flight
// (Transport.MaxInFlight): every sample in flight is held by the reliable
// writer until acknowledged and by the reader's queue, so a window of 256
// samples of 6 MB would hold 1.5 GB.
const ddsMaxInFlight = 8 << 20

// ddsEncap is the encapsulation header put before every Msg (CDR, little
// endian).
const ddsEncap = "\x00\x01\x00\x00"

// ddsQoS returns the QoS of every bench endpoint: reliable, KEEP_ALL, and
// a writer that waits for room as long as a bench row may take rather than
// failing after DDS's default 100 ms (a reader process descheduled that
// long on a loaded machine made a write fail with ErrTimeout): the rows
// measure flow-controlled throughput, and lose nothing.
func ddsQoS() dds.QoS {
	return dds.QoS{Reliability: dds.Reliable, History: dds.KeepAll, MaxBlocking: 30 * time.Second}
}

// DDS is the pure-Go DDS transport between two participants of this
// process, over UDP on 127.0.0.1 (afor mode: dds.SubscribeCodec; native:
// the sample callback of dds.Subscribe, run in the receive goroutine). Its
// floor is [FloorUDP], raw datagrams between two sockets of this process.
func DDS() Transport {
	return Transport{Name: "dds", Floor: FloorUDP, Scenarios: []string{"echo", "latency", "throughput"}, MaxInFlight: ddsMaxInFlight, Open: openDDS}
}

// DDSProc is the pure-Go DDS transport between this process and a child
// process (the running executable started again, see [RunChild]): the
// child is side B (the echo's responder, the streams' receiver). Its
// reference is [FloorDDSPerf], Cyclone's C implementation between two
// processes, run in the same bench.
func DDSProc() Transport {
	return Transport{Name: "dds-proc", Floor: FloorDDSPerf, Scenarios: []string{"echo", "latency", "throughput"}, MaxInFlight: ddsMaxInFlight, Open: openDDSProc}
}

// newDDSParticipant joins domain with LOCALHOST discovery, ignoring the
// environment (ROS_DOMAIN_ID and the ROS discovery settings).
func newDDSParticipant(ctx context.Context, domain int) (*dds.Participant, error) {
	return dds.NewParticipant(ctx, dds.Config{
		DomainID: domain, Range: dds.RangeLocalhost,
		Getenv: func(string) string { return "" },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
}

func openDDS(ctx context.Context, size int) (*Link, error) {
	d := ddsDomainBase + rand.IntN(ddsDomains)
	a, err := newDDSParticipant(ctx, d)
	if err != nil {
		return nil, err
	}
	b, err := newDDSParticipant(ctx, d)
	if err != nil {
		a.Close()
		return nil, err
	}
	prefix := fmt.Sprintf("afor_bench/%x/", rand.Uint64())
	return &Link{
		A: ddsPeer(a, prefix, size), B: ddsPeer(b, prefix, size),
		Close: func() error { return errors.Join(a.Close(), b.Close()) },
	}, nil
}

func openDDSProc(ctx context.Context, size int) (*Link, error) {
	d := ddsDomainBase + rand.IntN(ddsDomains)
	a, err := newDDSParticipant(ctx, d)
	if err != nil {
		return nil, err
	}
	prefix := fmt.Sprintf("afor_bench/%x/", rand.Uint64())
	return &Link{
		A: ddsPeer(a, prefix, size),
		EchoB: func(ctx context.Context, mode Mode) (func() error, error) {
			return startChild(ctx, childConfig{Role: "echo", DDS: true, Domain: d, Prefix: prefix, Mode: mode, Size: size})
		},
		SinkB: func(ctx context.Context, mode Mode, queue int, clockStart time.Time) (func() error, error) {
			return startChild(ctx, childConfig{Role: "sink", DDS: true, Domain: d, Prefix: prefix, Mode: mode, Size: size,
				Queue: queue, ClockStart: clockStart.UnixNano()})
		},
		OneWaySinkB: func(ctx context.Context, mode Mode, queue int) (func() error, error) {
			return startChild(ctx, childConfig{Role: "sink", OneWay: true, DDS: true, Domain: d, Prefix: prefix, Mode: mode, Size: size, Queue: queue})
		},
		Close: a.Close,
	}, nil
}

// runDDSChild is a dds-proc child: side B of the echo or of a stream on a
// participant of cfg.Domain, until stdin ends.
func runDDSChild(cfg childConfig, stdin io.Reader, stdout io.Writer) error {
	ctx, cancel := context.WithTimeout(context.Background(), childTimeout)
	defer cancel()
	p, err := newDDSParticipant(ctx, cfg.Domain)
	if err != nil {
		return err
	}
	defer p.Close()
	var stop func() error
	switch cfg.Role {
	case "sink":
		if cfg.OneWay {
			stop, err = oneWaySink(ctx, ddsPeer(p, cfg.Prefix, cfg.Size), ddsPeer(p, cfg.Prefix, HeaderSize), cfg)
			break
		}
		stop, err = sink(ctx, ddsPeer(p, cfg.Prefix, cfg.Size), ddsPeer(p, cfg.Prefix, HeaderSize), cfg)
	case "echo":
		stop, err = EchoResponder(ctx, ddsPeer(p, cfg.Prefix, cfg.Size), cfg.Mode)
	default:
		err = fmt.Errorf("%w: dds child role %q", ErrBadConfig, cfg.Role)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, childReady)
	_, _ = io.Copy(io.Discard, stdin) // the parent closes stdin to stop us
	return stop()
}

// ddsCodec is [Codec] behind a CDR encapsulation header.
type ddsCodec struct{ Size int }

// Append appends the encapsulation header and m's wire form to dst.
func (c ddsCodec) Append(dst []byte, m Msg) ([]byte, error) {
	return AppendMsg(append(dst, ddsEncap...), m, c.Size), nil
}

// Decode reads a message's header after the encapsulation header.
func (ddsCodec) Decode(b []byte) (Msg, error) { return decodeDDS(b) }

func decodeDDS(b []byte) (Msg, error) {
	if len(b) < len(ddsEncap) {
		return Msg{}, fmt.Errorf("%w: %d bytes", ErrShortMessage, len(b))
	}
	return DecodeMsg(b[len(ddsEncap):])
}

// ddsTopic is the topic of key on a link.
func ddsTopic(prefix, key string) dds.Topic {
	return dds.Topic{Name: prefix + key, TypeName: "afor_bench::Msg"}
}

func ddsPeer(p *dds.Participant, prefix string, size int) Peer {
	return Peer{
		Publisher: func(ctx context.Context, key string) (func(context.Context, Msg) error, error) {
			w, err := dds.NewWriter(p, ddsTopic(prefix, key), ddsQoS())
			if err != nil {
				return nil, err
			}
			wctx, cancel := context.WithTimeout(ctx, matchTimeout)
			defer cancel()
			if err := w.WaitMatched(wctx, 1); err != nil {
				w.Close()
				return nil, fmt.Errorf("dds: %s: no reader matched: %w", key, err)
			}
			buf := AppendMsg(append([]byte(nil), ddsEncap...), Msg{}, size)
			return func(ctx context.Context, m Msg) error {
				putHeader(buf[len(ddsEncap):], m) // Write copies what it keeps
				return w.Write(ctx, buf)
			}, nil
		},
		Subscribe: func(key string, opts ...afor.Option) (*afor.Sub[Msg], error) {
			return dds.SubscribeCodec[Msg](p, ddsTopic(prefix, key), ddsQoS(), ddsCodec{Size: size}, opts...)
		},
		Callback: func(key string, f func(Msg)) (func(), error) {
			sub, err := dds.Subscribe(p, ddsTopic(prefix, key), ddsQoS())
			if err != nil {
				return nil, err
			}
			sub.OnInput(func(s dds.Sample) {
				m, err := decodeDDS(s.Payload)
				if err != nil {
					m = Msg{Seq: badSeq}
				}
				f(m)
			})
			return sub.Close, nil
		},
	}
}
