package scenario

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/afor-go/afor/transport/zenoh"
)

// ZenohProc is the pure-Go Zenoh transport between this process and a
// child process (the running executable started again, see [RunChild]),
// linked over TCP on 127.0.0.1. The child is side B: the echo's responder,
// the receiver of the latency and throughput streams, which answers every
// message with an acknowledgement carrying its one-way latency (measured on
// the child's clock: both processes read the same system clock), or the
// server of request/reply (an afor.Server or a native queryable; this
// process calls). Its floor is [FloorTCPProc], whose side B is a child
// process too.
func ZenohProc() Transport {
	return Transport{Name: "zenoh-proc", Floor: FloorTCPProc, Python: PythonZenohProc, Link: "tcp",
		Scenarios: []string{"echo", "latency", "throughput", "request"}, Open: openZenohProcLink("tcp/127.0.0.1:0")}
}

// ZenohProcTLS is [ZenohProc] over a tls/ link: this process listens with
// a certificate made for the run (server authentication), the child
// connects trusting it. It runs only when named (-transports).
func ZenohProcTLS() Transport {
	return Transport{Name: "zenoh-proc-tls", Floor: FloorTCPProc, Link: "tls", Explicit: true,
		Scenarios: []string{"echo", "latency", "throughput", "request"}, Open: openZenohProcLink("tls/127.0.0.1:0")}
}

// ZenohProcQUIC is [ZenohProc] over a quic/ link (quic-go), with a
// certificate made for the run. It runs only when named (-transports).
func ZenohProcQUIC() Transport {
	return Transport{Name: "zenoh-proc-quic", Floor: FloorTCPProc, Link: "quic", Explicit: true,
		Scenarios: []string{"echo", "latency", "throughput", "request"}, Open: openZenohProcLink("quic/127.0.0.1:0")}
}

// ZenohProcRust is the layout of [ZenohProc] over link ("tcp", "tls" or
// "quic") with side B on the Rust stack: eclipse-zenoh run by python
// (testdata/zenoh_rust.py), answering the echo and acknowledging the
// throughput's messages from its subscriber callbacks. Side A is the Go
// session of this process, in mode afor or native; in [ModeRust]
// ([RunEchoRust], [RunThroughputRust]) side A is the Rust stack too, in
// another Python process. Echo and throughput only; it runs only when
// named (-transports).
func ZenohProcRust(link, python string) Transport {
	t := Transport{Name: "zenoh-proc-" + link + "-rust", Floor: FloorTCPProc, Link: link, Explicit: true, NeedsPython: true,
		Scenarios: []string{"echo", "throughput"}, python: python}
	if link == "tcp" {
		t.Name = "zenoh-proc-rust"
	}
	t.Open = func(ctx context.Context, size int) (*Link, error) { return openZenohProcRust(ctx, link, python, size) }
	t.bind = func(python string) Transport { return ZenohProcRust(link, python) }
	return t
}

// GoGo names the transport of the same layout and link with Go on both
// sides that a [ZenohProcRust] is compared with (zenoh-proc,
// zenoh-proc-tls, zenoh-proc-quic), "" for other transports.
func (t Transport) GoGo() string {
	if !t.NeedsPython || t.Link == "" {
		return ""
	}
	if t.Link == "tcp" {
		return ZenohProc().Name
	}
	return "zenoh-proc-" + t.Link
}

// openZenohProcLink listens on listen in this process and returns a link
// whose side B is a child process connecting to it (trusting a
// certificate made for the link when listen is a tls/ or quic/ one).
func openZenohProcLink(listen string) func(ctx context.Context, size int) (*Link, error) {
	return func(ctx context.Context, size int) (*Link, error) {
		cfg := zenoh.Config{Listen: []string{listen}}
		var rootCA []byte
		if !strings.HasPrefix(listen, "tcp/") {
			server, client, err := benchTLS()
			if err != nil {
				return nil, err
			}
			cfg.TLS, rootCA = server, client.RootCA
		}
		a, err := zenoh.Open(ctx, cfg)
		if err != nil {
			return nil, err
		}
		prefix := "afor_bench/" + a.ZID() + "/"
		child := func(role string, mode Mode) childConfig {
			return childConfig{Role: role, Connect: a.ListenAddrs()[0], Prefix: prefix, Mode: mode, Size: size, RootCA: rootCA}
		}
		return &Link{
			A: zenohPeer(a, prefix, size),
			EchoB: func(ctx context.Context, mode Mode) (func() error, error) {
				return startChild(ctx, child("echo", mode))
			},
			SinkB: func(ctx context.Context, mode Mode, queue int, clockStart time.Time) (func() error, error) {
				c := child("sink", mode)
				c.Queue, c.ClockStart = queue, clockStart.UnixNano()
				return startChild(ctx, c)
			},
			ServerB: func(ctx context.Context, mode Mode) (func() error, error) {
				return startChild(ctx, child("server", mode))
			},
			Close: a.Close,
		}, nil
	}
}

// openZenohProcRust listens on link in this process and returns a link
// whose side B is the Rust stack in a Python process connecting to it.
func openZenohProcRust(ctx context.Context, link, python string, size int) (*Link, error) {
	cfg := zenoh.Config{Listen: []string{link + "/127.0.0.1:0"}}
	var pki *rustPKI // nil over tcp
	if link != "tcp" {
		var err error
		if pki, err = newRustPKI(); err != nil {
			return nil, err
		}
		cfg.TLS = pki.server
	}
	a, err := zenoh.Open(ctx, cfg)
	if err != nil {
		return nil, errors.Join(err, pki.Close())
	}
	prefix := "afor_bench/" + a.ZID() + "/"
	b := rustConfig{Connect: a.ListenAddrs()[0], Prefix: prefix, Size: size}
	if link != "tcp" {
		b.TLS = pki.clientOpts()
	}
	return &Link{
		A: zenohPeer(a, prefix, size),
		EchoB: func(ctx context.Context, _ Mode) (func() error, error) {
			b := b
			b.Role = "echo"
			stop, _, err := startRust(ctx, python, b)
			return stop, err
		},
		SinkB: func(ctx context.Context, _ Mode, _ int, clockStart time.Time) (func() error, error) {
			b := b
			b.Role, b.ClockStart = "sink", clockStart.UnixNano()
			stop, _, err := startRust(ctx, python, b)
			return stop, err
		},
		Close: func() error { return errors.Join(a.Close(), pki.Close()) },
	}, nil
}
