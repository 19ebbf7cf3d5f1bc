package scenario

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"
)

// The tcp-proc floor is the tcp floor with its side B in a child process
// (the running executable started again, see [RunChild]): the same raw TCP
// loops, but every hop wakes a thread of the other process, as it does for
// the zenoh-proc transport. The child is a bare TCP server, no afor and no
// Zenoh: it connects to a listener of this process, then answers every
// message (echo, request) or acknowledges it with its one-way latency
// (latency, throughput).

// Child roles of the tcp-proc floor (childConfig.Role, with Floor set).
const (
	roleEcho = "echo" // answer every message with its counter plus one, same size
	roleSink = "sink" // acknowledge every message with its latency, HeaderSize bytes
)

// openProcFloor starts a tcp-proc child in role and returns this process's
// end of its connection: a pipe sending size-byte messages and receiving
// size-byte answers (echo) or HeaderSize-byte acknowledgements (sink).
// clockStart is the sender's clock start, for the sink's latencies. stop
// closes the connection and ends the child, reporting its failure.
func openProcFloor(ctx context.Context, role string, size int, clockStart time.Time) (p *streamPipe, stop func() error, err error) {
	size = max(size, HeaderSize)
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	defer ln.Close()
	stopChild, err := startChild(ctx, childConfig{Role: role, Floor: true, Connect: ln.Addr().String(), Size: size,
		ClockStart: clockStart.UnixNano()})
	if err != nil {
		return nil, nil, err
	}
	// The child said ready once connected: its connection waits in the
	// listener's backlog.
	if err := ln.(*net.TCPListener).SetDeadline(time.Now().Add(childTimeout)); err != nil {
		return nil, nil, errors.Join(err, stopChild())
	}
	conn, err := ln.Accept()
	if err != nil {
		return nil, nil, errors.Join(fmt.Errorf("tcp-proc: the child's connection: %w", err), stopChild())
	}
	answer := size
	if role == roleSink {
		answer = HeaderSize
	}
	p = &streamPipe{conn: conn, wbuf: AppendMsg(nil, Msg{}, size), rbuf: make([]byte, answer)}
	return p, func() error { conn.Close(); return stopChild() }, nil
}

// newEchoProcFloor is NewEchoFloor over the tcp-proc floor: the child
// answers.
func newEchoProcFloor(ctx context.Context, size int) (*Echo, error) {
	a, stop, err := openProcFloor(ctx, roleEcho, size, time.Time{})
	if err != nil {
		return nil, err
	}
	return pipeEcho(a, stop), nil
}

// newProcFloorStream is NewFloorStream over the tcp-proc floor: the child
// acknowledges every message with the latency it measured, and each
// acknowledgement counts as the message received (as on zenoh-proc, see
// newRemoteStream).
func newProcFloorStream(ctx context.Context, cfg StreamConfig) (*Stream, error) {
	s := newStreamBase(cfg)
	a, stop, err := openProcFloor(ctx, roleSink, cfg.Size, s.clock.start)
	if err != nil {
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			m, err := a.Recv()
			if err != nil {
				return
			}
			m.Stamp = s.clock.now() - m.Stamp // so that OnRecv sees the remote latency
			s.received(m)
		}
	}()
	s.send = func(_ context.Context, m Msg) error { return a.Send(m) }
	s.close = func() error { err := stop(); <-done; return err }
	return s, nil
}

// runFloorChild is a tcp-proc child: it connects to cfg.Connect, serves
// the connection in cfg.Role and prints "ready", until stdin ends.
func runFloorChild(cfg childConfig, stdin io.Reader, stdout io.Writer) error {
	var serve func(net.Conn) error
	switch cfg.Role {
	case roleEcho:
		serve = func(c net.Conn) error { return serveFloorEcho(c, cfg.Size) }
	case roleSink:
		serve = func(c net.Conn) error { return serveFloorSink(c, cfg.Size, cfg.ClockStart) }
	default:
		return fmt.Errorf("%w: floor child role %q", ErrBadConfig, cfg.Role)
	}
	ctx, cancel := context.WithTimeout(context.Background(), childTimeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", cfg.Connect)
	if err != nil {
		return err
	}
	served := make(chan error, 1)
	go func() { served <- serve(conn) }()
	fmt.Fprintln(stdout, childReady)
	_, _ = io.Copy(io.Discard, stdin) // the parent closes stdin to stop us
	conn.Close()
	if err := <-served; !closedConn(err) {
		return fmt.Errorf("tcp-proc %s: %w", cfg.Role, err)
	}
	return nil
}

// closedConn reports whether err only says that the connection ended.
func closedConn(err error) bool {
	return err == nil || errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// serveFloorEcho answers every size-byte message on c with its counter
// plus one, in a message of the same size, until c fails: the B side of
// the tcp floor's ping-pong.
func serveFloorEcho(c net.Conn, size int) error {
	size = max(size, HeaderSize)
	return echoLoop(&streamPipe{conn: c, wbuf: AppendMsg(nil, Msg{}, size), rbuf: make([]byte, size)})
}

// echoLoop answers every message received on b with its counter plus one,
// until b fails, and returns that error.
func echoLoop(b pipe) error {
	for {
		m, err := b.Recv()
		if err != nil {
			return err
		}
		if err := b.Send(Msg{Seq: m.Seq + 1}); err != nil {
			return err
		}
	}
}

// serveFloorSink acknowledges every size-byte message on c with its
// sequence number and, as its stamp, its one-way latency (the wall clock
// minus clockStart, in Unix ns, minus the message's stamp), in HeaderSize
// bytes, until c fails.
func serveFloorSink(c net.Conn, size int, clockStart int64) error {
	p := &streamPipe{conn: c, wbuf: AppendMsg(nil, Msg{}, HeaderSize), rbuf: make([]byte, max(size, HeaderSize))}
	for {
		m, err := p.Recv()
		if err != nil {
			return err
		}
		m.Stamp = time.Now().UnixNano() - clockStart - m.Stamp
		if err := p.Send(m); err != nil {
			return err
		}
	}
}
