package scenario

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/internal/peers"
	"github.com/afor-go/afor/transport/mem"
)

// Transport is a pluggable carrier of [Msg] values. Adding a transport to
// the harness means writing one such value: every scenario runs on it.
type Transport struct {
	// Name names the transport in reports ("mem", "zenoh", ...).
	Name string
	// Floor names the [Floor] that the transport's afor rows are compared
	// with ("chan" in memory, "tcp" over sockets, "tcp-proc" when side B
	// is another process).
	Floor Floor
	// Python names the [PythonMode] whose echo row runs with the
	// transport's, if any (the report compares them by
	// [PythonMode.GoTransport]).
	Python PythonMode
	// EchoOnly marks a transport whose links run only the echo (their side
	// B lives in another process, see Link.EchoB).
	EchoOnly bool
	// Scenarios, when not empty, lists the only scenarios run on it.
	Scenarios []string
	// MaxInFlight, when not 0, caps the bytes a throughput row keeps in
	// flight: its window becomes at most MaxInFlight / size messages (at
	// least one). A relay that drops what overflows its queue (the Rust
	// router, since the pure-Go publisher uses Zenoh's default congestion
	// control, drop) needs the sender's window to fit in that queue.
	MaxInFlight int
	// NeedsPython marks a transport that starts a Python process (the Rust
	// router, the Rust side B of [ZenohProcRust]): its rows are skipped
	// when the interpreter cannot import [RouterModules]. See
	// [Transport.WithPython].
	NeedsPython bool
	// Link names the Zenoh link type between the processes of a
	// cross-process transport ("tcp", "tls", "quic"), "" otherwise.
	Link string
	// Explicit marks a transport that runs only when named (the bench's
	// -transports), not by default.
	Explicit bool
	// Open sets up a fresh, isolated link for one measurement: its own bus
	// or sessions and key expressions. size is the message size in bytes.
	Open func(ctx context.Context, size int) (*Link, error)
	// OpenMode, when set, is used instead of Open: it sets up a link for
	// one mode, for a transport whose native mode runs on other objects
	// than its afor mode (the ROS 2 transports: ROS nodes for afor, bare
	// Zenoh sessions on the same keys for native).
	OpenMode func(ctx context.Context, mode Mode, size int) (*Link, error)

	bind   func(python string) Transport // see WithPython
	python string                        // the interpreter of a ZenohProcRust
}

// WithPython returns t starting its Python processes with interpreter
// python, if it starts any (NeedsPython), else t.
func (t Transport) WithPython(python string) Transport {
	if t.bind == nil {
		return t
	}
	return t.bind(python)
}

// open sets up a link of t for a measurement in mode.
func (t Transport) open(ctx context.Context, mode Mode, size int) (*Link, error) {
	if t.OpenMode != nil {
		return t.OpenMode(ctx, mode, size)
	}
	return t.Open(ctx, size)
}

// Link is an open transport: two peers, A and B, that may be the same
// object (one bus, one session) or two ends of a connection.
type Link struct {
	A, B Peer
	// EchoB, when set, runs side B of the echo outside this process (B's
	// Peer functions are then unused): it starts a responder answering in
	// mode and returns the function that stops it. Scenarios other than
	// echo are unsupported on such links.
	EchoB func(ctx context.Context, mode Mode) (stop func() error, err error)
	// SinkB, when set, runs side B of a one-way stream outside this
	// process: it receives "data" in mode (an afor queue of queue messages)
	// and answers each message on "ack" with its sequence number and, as
	// its stamp, its one-way latency (its wall clock minus clockStart minus
	// the message's stamp).
	SinkB func(ctx context.Context, mode Mode, queue int, clockStart time.Time) (stop func() error, err error)
	// OneWaySinkB, when set, is SinkB for a one-way stream without
	// per-message acknowledgments (throughput, see [oneWaySink]): it
	// answers only the stream's flush markers, with what it received.
	OneWaySinkB func(ctx context.Context, mode Mode, queue int) (stop func() error, err error)
	// ServerB, when set, runs side B of request/reply outside this
	// process: it starts a server answering on "svc" in mode (see
	// [RequestResponder]) and returns the function that stops it.
	ServerB func(ctx context.Context, mode Mode) (stop func() error, err error)
	// Close releases the link; it must end every subscription.
	Close func() error
}

// Peer is one side of a link. Scenarios subscribe before they publish, and
// use each publisher from one goroutine at a time.
type Peer struct {
	// Publisher returns a function publishing on key. It may wait (within
	// ctx) until the subscribers already declared on the link are reachable.
	Publisher func(ctx context.Context, key string) (func(ctx context.Context, m Msg) error, error)
	// Subscribe returns an afor.Sub of the messages on key (mode afor).
	Subscribe func(key string, opts ...afor.Option) (*afor.Sub[Msg], error)
	// Callback calls f for every message on key from the transport's own
	// delivery goroutine, without afor (mode native).
	Callback func(key string, f func(Msg)) (stop func(), err error)
	// Server and Client make a request/reply pair on key (mode afor); nil
	// when the transport has no request/reply.
	Server func(key string) (*afor.Server[Msg, Msg], error)
	Client func(key string) (*afor.Client[Msg, Msg], error)
	// Queryable answers every request on key with f's result, from the
	// transport's own delivery goroutine, without afor (mode native); nil
	// when the transport has no request/reply of its own. Its stop
	// reports the first reply that could not be sent.
	Queryable func(key string, f func(Msg) Msg) (stop func() error, err error)
	// Querier returns a function sending one request on key and waiting
	// for its only reply, without afor (mode native). It waits (within
	// ctx) until a server on key is reachable. Each returned function is
	// used by one goroutine at a time.
	Querier func(ctx context.Context, key string) (func(ctx context.Context, m Msg) (Msg, error), error)
}

// Transports returns every transport of the harness, in report order.
// The router transport uses the default interpreter (peers.PythonPath).
func Transports() []Transport {
	return []Transport{Mem(), Zenoh(), ZenohTCP(), ZenohTLS(), ZenohQUIC(), ZenohProc(), ZenohProcTLS(), ZenohProcQUIC(),
		ZenohProcRust("tcp", peers.PythonPath()), ZenohProcRust("tls", peers.PythonPath()), ZenohProcRust("quic", peers.PythonPath()),
		ZenohRouter(peers.PythonPath()), ROSZenoh(), ROSZenohTCP(), ROSZenohProc(), DDS(), DDSProc(), ROSDDS(), ROSDDSUDP(), ROSDDSProc()}
}

// Runs reports whether scenario sc runs on t.
func (t Transport) Runs(sc string) bool {
	if t.EchoOnly && sc != "echo" {
		return false
	}
	return len(t.Scenarios) == 0 || slices.Contains(t.Scenarios, sc)
}

// Mem is the in-process bus of package transport/mem: messages are passed
// by value (Body is shared, never copied).
func Mem() Transport {
	return Transport{Name: "mem", Floor: FloorChan, Python: PythonInproc, Open: openMem}
}

func openMem(_ context.Context, size int) (*Link, error) {
	bus := mem.NewBus()
	body := make([]byte, max(size, HeaderSize)-HeaderSize)
	p := Peer{
		Publisher: func(_ context.Context, key string) (func(context.Context, Msg) error, error) {
			pub, err := mem.NewPublisher[Msg](bus, key)
			if err != nil {
				return nil, err
			}
			return func(_ context.Context, m Msg) error {
				m.Body = body
				if pub.Publish(m) == 0 {
					return fmt.Errorf("mem: %s: no subscriber took the message", key)
				}
				return nil
			}, nil
		},
		Subscribe: func(key string, opts ...afor.Option) (*afor.Sub[Msg], error) {
			return mem.Subscribe[Msg](bus, key, opts...)
		},
		Callback: func(key string, f func(Msg)) (func(), error) {
			sub, err := mem.Subscribe[Msg](bus, key)
			if err != nil {
				return nil, err
			}
			sub.OnInput(f)
			return sub.Close, nil
		},
		Server: func(key string) (*afor.Server[Msg, Msg], error) { return mem.NewServer[Msg, Msg](bus, key) },
		Client: func(key string) (*afor.Client[Msg, Msg], error) { return mem.NewClient[Msg, Msg](bus, key) },
	}
	return &Link{A: p, B: p, Close: func() error { bus.Close(); return nil }}, nil
}
