package scenario

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"time"
)

// Floor is a raw primitive under the transports, measured in the same run
// as the physical floor of the machine.
type Floor string

// The floors.
const (
	// FloorChan is a Go channel of Msg between two goroutines.
	FloorChan Floor = "chan"
	// FloorTCP is a TCP connection on 127.0.0.1 carrying fixed-size
	// messages (Nagle off, Go's default).
	FloorTCP Floor = "tcp"
	// FloorUDP is a pair of connected UDP sockets on 127.0.0.1, one
	// datagram per message.
	FloorUDP Floor = "udp"
	// FloorTCPProc is FloorTCP with side B in a child process (a bare TCP
	// server, no afor, no Zenoh), so that every hop wakes a thread of the
	// other process, as on the zenoh-proc transport. In the streams it
	// acknowledges every message with its one-way latency, as zenoh-proc's
	// child does.
	FloorTCPProc Floor = "tcp-proc"
)

// Floors lists every floor.
func Floors() []Floor { return []Floor{FloorChan, FloorTCP, FloorUDP, FloorTCPProc} }

// Remote reports whether the floor's side B runs in another process.
func (f Floor) Remote() bool { return f == FloorTCPProc }

// maxUDP is the largest UDP payload on IPv4.
const maxUDP = 65507

// pipe is one end of a floor: Send and Recv on it are used by one
// goroutine each.
type pipe interface {
	Send(m Msg) error
	Recv() (Msg, error)
}

// recvTimeout bounds a Recv on a pipe that can lose messages (UDP).
const recvTimeout = 2 * time.Second

// withTimeout arms p's receive timeout if p can lose messages.
func withTimeout(p pipe) pipe {
	if d, ok := p.(*datagramPipe); ok {
		d.setTimeout(recvTimeout)
	}
	return p
}

// openFloor returns the two ends of a floor and a function that closes
// both, ending any Recv in progress with an error. Channel ends must only be
// closed when no Send is in progress.
func openFloor(ctx context.Context, f Floor, size, depth int) (a, b pipe, closeAll func(), err error) {
	size = max(size, HeaderSize)
	switch f {
	case FloorChan:
		ab, ba := make(chan Msg, depth), make(chan Msg, depth)
		body := make([]byte, size-HeaderSize)
		return chanPipe{out: ab, in: ba, body: body}, chanPipe{out: ba, in: ab, body: body},
			func() { close(ab); close(ba) }, nil
	case FloorTCP:
		return openTCP(ctx, size)
	case FloorUDP:
		if size > maxUDP {
			return nil, nil, nil, fmt.Errorf("%w: udp: %d bytes exceed one datagram", ErrUnsupported, size)
		}
		return openUDP(ctx, size)
	case FloorTCPProc:
		return nil, nil, nil, fmt.Errorf("%w: %s has no in-process pipe pair", ErrUnsupported, f)
	}
	return nil, nil, nil, fmt.Errorf("%w: unknown floor %q", ErrBadConfig, f)
}

type chanPipe struct {
	out  chan<- Msg
	in   <-chan Msg
	body []byte
}

func (p chanPipe) Send(m Msg) error {
	m.Body = p.body
	p.out <- m
	return nil
}

func (p chanPipe) Recv() (Msg, error) {
	m, ok := <-p.in
	if !ok {
		return Msg{}, io.EOF
	}
	return m, nil
}

// streamPipe carries fixed-size messages over a TCP connection.
type streamPipe struct {
	conn net.Conn
	wbuf []byte
	rbuf []byte
}

func (p *streamPipe) Send(m Msg) error {
	putHeader(p.wbuf, m)
	_, err := p.conn.Write(p.wbuf)
	return err
}

func (p *streamPipe) Recv() (Msg, error) {
	if _, err := io.ReadFull(p.conn, p.rbuf); err != nil {
		return Msg{}, err
	}
	return DecodeMsg(p.rbuf)
}

// datagramPipe carries one message per UDP datagram to a fixed peer.
type datagramPipe struct {
	conn    *net.UDPConn
	peer    netip.AddrPort
	wbuf    []byte
	rbuf    []byte // one byte more than a message, to catch longer datagrams
	timeout time.Duration
}

func (p *datagramPipe) Send(m Msg) error {
	putHeader(p.wbuf, m)
	_, err := p.conn.WriteToUDPAddrPort(p.wbuf, p.peer)
	return err
}

// setTimeout makes Recv fail after d without a datagram (a lost datagram
// would block it forever); 0 waits forever.
func (p *datagramPipe) setTimeout(d time.Duration) { p.timeout = d }

func (p *datagramPipe) Recv() (Msg, error) {
	if p.timeout > 0 {
		if err := p.conn.SetReadDeadline(time.Now().Add(p.timeout)); err != nil {
			return Msg{}, err
		}
	}
	n, _, err := p.conn.ReadFromUDPAddrPort(p.rbuf)
	if err != nil {
		return Msg{}, err
	}
	if n != len(p.wbuf) {
		return Msg{}, fmt.Errorf("%w: udp datagram of %d bytes, want %d", ErrUnexpected, n, len(p.wbuf))
	}
	return DecodeMsg(p.rbuf)
}

func openTCP(ctx context.Context, size int) (a, b pipe, closeAll func(), err error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, nil, err
	}
	defer ln.Close()
	type accepted struct {
		c   net.Conn
		err error
	}
	ch := make(chan accepted, 1)
	go func() {
		c, err := ln.Accept()
		ch <- accepted{c, err}
	}()
	var d net.Dialer
	ca, err := d.DialContext(ctx, "tcp", ln.Addr().String())
	if err != nil {
		ln.Close()
		if acc := <-ch; acc.c != nil {
			acc.c.Close()
		}
		return nil, nil, nil, err
	}
	acc := <-ch
	if acc.err != nil {
		ca.Close()
		return nil, nil, nil, acc.err
	}
	cb := acc.c
	pa := &streamPipe{conn: ca, wbuf: AppendMsg(nil, Msg{}, size), rbuf: make([]byte, size)}
	pb := &streamPipe{conn: cb, wbuf: AppendMsg(nil, Msg{}, size), rbuf: make([]byte, size)}
	return pa, pb, func() { ca.Close(); cb.Close() }, nil
}

func openUDP(_ context.Context, size int) (a, b pipe, closeAll func(), err error) {
	loop := net.UDPAddrFromAddrPort(netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), 0))
	ca, err := net.ListenUDP("udp4", loop)
	if err != nil {
		return nil, nil, nil, err
	}
	cb, err := net.ListenUDP("udp4", loop)
	if err != nil {
		ca.Close()
		return nil, nil, nil, err
	}
	addr := func(c *net.UDPConn) netip.AddrPort { return c.LocalAddr().(*net.UDPAddr).AddrPort() }
	pa := &datagramPipe{conn: ca, peer: addr(cb), wbuf: AppendMsg(nil, Msg{}, size), rbuf: make([]byte, size+1)}
	pb := &datagramPipe{conn: cb, peer: addr(ca), wbuf: AppendMsg(nil, Msg{}, size), rbuf: make([]byte, size+1)}
	return pa, pb, func() { ca.Close(); cb.Close() }, nil
}
