package zenoh

import (
	"context"
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// udp/ links: Zenoh's datagram transport, best-effort only as in Rust
// Zenoh (whose UDP links are unreliable unless made reliable with
// QUIC-without-encryption, rel=1, which is not supported here). Each
// datagram carries one batch, without the length prefix of stream links.
//
// The link code reads and writes a stream of length-prefixed batches;
// udpConn turns that stream into datagrams and back. A dialled link owns a
// connected socket; an accepted one shares its listener's socket, which
// hands it the datagrams of its remote address (udpListener).

// udpMaxBatch is the largest batch on a udp/ link: the largest UDP payload
// over IPv6 (Rust Zenoh's UDP MTU on Linux).
const udpMaxBatch = 65535 - 8 - 40

// Bounds of what an accepted udp/ link queues before its reader takes it:
// beyond them datagrams are dropped, as the network would.
const (
	udpQueueDatagrams = 256
	udpQueueBytes     = 4 << 20
	// udpListenerBytes bounds what all the links of one listener queue.
	udpListenerBytes = 32 << 20
)

// errClosedConn is returned by a closed udpConn.
var errClosedConn = net.ErrClosed

// udpConn is one udp/ link as a net.Conn of length-prefixed batches.
type udpConn struct {
	sock   *net.UDPConn // connected (dialled) or shared (accepted)
	remote *net.UDPAddr
	raddr  netip.AddrPort
	ln     *udpListener // the listener of an accepted link, else nil

	// Reading (one reader at a time).
	rbuf []byte // the current batch, with its length prefix
	r    int    // read offset in rbuf
	own  []byte // the dialled link's datagram buffer
	got  bool   // a datagram came (a dialled link)

	// Accepted links: datagrams queued by the listener.
	mu      sync.Mutex
	queue   [][]byte // each with its length prefix
	queued  int      // bytes in queue
	avail   chan struct{}
	closed  chan struct{}
	rdl     deadline
	closing sync.Once

	// Writing (one writer at a time; the link's write mutex is held).
	wpend []byte // the batch being gathered, without its prefix
	need  int    // bytes of it still to come; -1 while reading its prefix
	whdr  [wire.BatchLenSize]byte
	nhdr  int
}

// dialUDP opens a dialled udp/ link to ep.
func dialUDP(ctx context.Context, ep endpoint) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "udp", ep.addr)
	if err != nil {
		return nil, err
	}
	uc := c.(*net.UDPConn)
	return &udpConn{sock: uc, remote: uc.RemoteAddr().(*net.UDPAddr), own: make([]byte, wire.BatchLenSize+wire.MaxBatchSize),
		closed: make(chan struct{}), need: -1}, nil
}

func newAcceptedUDP(ln *udpListener, from netip.AddrPort) *udpConn {
	return &udpConn{sock: ln.sock, remote: net.UDPAddrFromAddrPort(from), raddr: from, ln: ln,
		avail: make(chan struct{}, 1), closed: make(chan struct{}), rdl: newDeadline(), need: -1}
}

func (c *udpConn) LocalAddr() net.Addr  { return c.sock.LocalAddr() }
func (c *udpConn) RemoteAddr() net.Addr { return c.remote }

// Read reads the stream of batches: each datagram, after a length prefix.
func (c *udpConn) Read(p []byte) (int, error) {
	for c.r >= len(c.rbuf) {
		b, err := c.next()
		if err != nil {
			return 0, err
		}
		c.rbuf, c.r = b, 0
	}
	n := copy(p, c.rbuf[c.r:])
	c.r += n
	return n, nil
}

// next returns the next datagram with its length prefix. Empty datagrams
// are skipped.
func (c *udpConn) next() ([]byte, error) {
	if c.ln == nil {
		for {
			n, err := c.sock.Read(c.own[wire.BatchLenSize:])
			if err != nil {
				select {
				case <-c.closed:
					return nil, errClosedConn
				default:
				}
				if isRefused(err) && c.got {
					// ICMP port unreachable after the link was up: a
					// datagram lost, the lease decides.
					continue
				}
				return nil, err
			}
			if n == 0 {
				continue
			}
			c.got = true
			_ = wire.PutBatchLen(c.own, n)
			return c.own[:wire.BatchLenSize+n], nil
		}
	}
	for {
		c.mu.Lock()
		if len(c.queue) > 0 {
			b := c.queue[0]
			c.queue[0] = nil
			c.queue = c.queue[1:]
			c.queued -= len(b)
			c.mu.Unlock()
			c.ln.release(len(b))
			return b, nil
		}
		c.mu.Unlock()
		select {
		case <-c.avail:
		case <-c.closed:
			return nil, errClosedConn
		case <-c.rdl.wait():
			return nil, os.ErrDeadlineExceeded
		}
	}
}

// deliver queues a datagram (with room for its prefix at the front) for
// an accepted link, or drops it when the link's queue is full.
func (c *udpConn) deliver(b []byte) bool {
	c.mu.Lock()
	select {
	case <-c.closed:
		c.mu.Unlock()
		return false
	default:
	}
	if len(c.queue) >= udpQueueDatagrams || c.queued+len(b) > udpQueueBytes {
		c.mu.Unlock()
		return false
	}
	c.queue = append(c.queue, b)
	c.queued += len(b)
	c.mu.Unlock()
	select {
	case c.avail <- struct{}{}:
	default:
	}
	return true
}

// Write takes a stream of length-prefixed batches, in any pieces, and
// sends each batch as one datagram.
func (c *udpConn) Write(p []byte) (int, error) {
	total := len(p)
	for len(p) > 0 {
		if c.need < 0 { // reading a prefix
			k := copy(c.whdr[c.nhdr:], p)
			c.nhdr += k
			p = p[k:]
			if c.nhdr < wire.BatchLenSize {
				break
			}
			c.nhdr = 0
			n, _ := wire.BatchLen(c.whdr[:])
			c.need = n
			c.wpend = c.wpend[:0]
			if len(p) >= n {
				// The whole batch is here: send it from p.
				err := c.send(p[:n])
				p = p[n:]
				c.need = -1
				if err != nil {
					return total - len(p), err
				}
				continue
			}
		}
		k := min(c.need-len(c.wpend), len(p))
		c.wpend = append(c.wpend, p[:k]...)
		p = p[k:]
		if len(c.wpend) == c.need {
			c.need = -1
			if err := c.send(c.wpend); err != nil {
				return total - len(p), err
			}
		}
	}
	return total, nil
}

// send sends one batch as a datagram.
func (c *udpConn) send(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	select {
	case <-c.closed:
		return errClosedConn
	default:
	}
	var err error
	if c.ln == nil {
		_, err = c.sock.Write(b)
		if isRefused(err) {
			err = nil // nobody listens: the datagram is lost
		}
	} else {
		_, err = c.sock.WriteToUDPAddrPort(b, c.raddr)
	}
	return err
}

func (c *udpConn) Close() error {
	c.closing.Do(func() {
		close(c.closed)
		if c.ln != nil {
			c.ln.forget(c)
			c.mu.Lock()
			n := c.queued
			c.queue, c.queued = nil, 0
			c.mu.Unlock()
			c.ln.release(n)
			return
		}
		_ = c.sock.Close()
	})
	return nil
}

func (c *udpConn) SetDeadline(t time.Time) error {
	_ = c.SetReadDeadline(t)
	return c.SetWriteDeadline(t)
}

func (c *udpConn) SetReadDeadline(t time.Time) error {
	if c.ln == nil {
		return c.sock.SetReadDeadline(t)
	}
	c.rdl.set(t)
	return nil
}

// SetWriteDeadline bounds the writes of a dialled link; an accepted one
// shares its socket, whose writes do not wait long.
func (c *udpConn) SetWriteDeadline(t time.Time) error {
	if c.ln == nil {
		return c.sock.SetWriteDeadline(t)
	}
	return nil
}

// isRefused reports an ICMP port unreachable reported on a connected
// socket.
func isRefused(err error) bool { return err != nil && errors.Is(err, syscall.ECONNREFUSED) }

// udpListener is the listener of a udp/ endpoint: one socket whose
// datagrams go to the link of their source address, a new one for an
// address not seen (whose first datagram must be an INIT).
type udpListener struct {
	sock   *net.UDPConn
	ep     endpoint
	accept chan *udpConn
	done   chan struct{}
	wg     sync.WaitGroup

	mu     sync.Mutex
	conns  map[netip.AddrPort]*udpConn
	held   int // bytes queued by all links
	closed bool
}

// listenUDP listens on ep; maxLinks bounds the links it holds at once.
func listenUDP(ep endpoint, maxLinks int) (netListener, error) {
	addr, err := net.ResolveUDPAddr("udp", ep.addr)
	if err != nil {
		return nil, err
	}
	sock, err := net.ListenUDP("udp", addr)
	if err != nil {
		return nil, err
	}
	l := &udpListener{sock: sock, ep: ep, accept: make(chan *udpConn, 16), done: make(chan struct{}),
		conns: make(map[netip.AddrPort]*udpConn)}
	l.wg.Add(1)
	go l.readLoop(maxLinks)
	return l, nil
}

// readLoop reads the socket's datagrams and hands each to its link.
func (l *udpListener) readLoop(maxLinks int) {
	defer l.wg.Done()
	buf := make([]byte, wire.MaxBatchSize)
	for {
		n, from, err := l.sock.ReadFromUDPAddrPort(buf)
		if err != nil {
			select {
			case <-l.done:
				return
			default:
			}
			if isRefused(err) {
				continue
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			time.Sleep(10 * time.Millisecond) // a transient error: do not spin
			continue
		}
		if n == 0 {
			continue
		}
		from = netip.AddrPortFrom(from.Addr().Unmap(), from.Port())
		l.mu.Lock()
		c := l.conns[from]
		if c == nil && len(l.conns) < maxLinks {
			c = newAcceptedUDP(l, from)
			select {
			case l.accept <- c:
				l.conns[from] = c
			default:
				c = nil // the session does not keep up: the datagram is lost
			}
		}
		if c == nil || l.held+n+wire.BatchLenSize > udpListenerBytes {
			l.mu.Unlock()
			continue
		}
		l.held += n + wire.BatchLenSize
		l.mu.Unlock()
		b := make([]byte, wire.BatchLenSize+n)
		_ = wire.PutBatchLen(b, n)
		copy(b[wire.BatchLenSize:], buf[:n])
		if !c.deliver(b) {
			l.release(len(b))
		}
	}
}

// release gives back n queued bytes.
func (l *udpListener) release(n int) {
	l.mu.Lock()
	l.held -= n
	l.mu.Unlock()
}

// forget drops a closed link: a datagram from its address makes a new one.
func (l *udpListener) forget(c *udpConn) {
	l.mu.Lock()
	if l.conns[c.raddr] == c {
		delete(l.conns, c.raddr)
	}
	l.mu.Unlock()
}

func (l *udpListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.accept:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *udpListener) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	conns := make([]*udpConn, 0, len(l.conns))
	for _, c := range l.conns {
		conns = append(conns, c)
	}
	l.mu.Unlock()
	close(l.done)
	_ = l.sock.Close()
	l.wg.Wait()
	for _, c := range conns {
		_ = c.Close()
	}
	for {
		select {
		case c := <-l.accept:
			_ = c.Close()
		default:
			return nil
		}
	}
}

func (l *udpListener) locator() endpoint {
	e := l.ep
	e.addr = l.sock.LocalAddr().String()
	e.conf = nil
	return e
}

// deadline is a settable deadline for reads that wait on channels, as
// net.Pipe's: wait returns a channel closed once it has passed.
type deadline struct {
	mu     sync.Mutex
	timer  *time.Timer
	cancel chan struct{} // closed when the deadline passes
}

func newDeadline() deadline { return deadline{cancel: make(chan struct{})} }

// set sets the deadline; the zero time means none.
func (d *deadline) set(t time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.timer != nil && !d.timer.Stop() {
		<-d.cancel // the timer fired: wait until it closed cancel
	}
	d.timer = nil
	closed := false
	select {
	case <-d.cancel:
		closed = true
	default:
	}
	if t.IsZero() {
		if closed {
			d.cancel = make(chan struct{})
		}
		return
	}
	if dur := time.Until(t); dur > 0 {
		if closed {
			d.cancel = make(chan struct{})
		}
		cancel := d.cancel
		d.timer = time.AfterFunc(dur, func() { close(cancel) })
		return
	}
	if !closed {
		close(d.cancel)
	}
}

// wait returns a channel closed when the deadline has passed.
func (d *deadline) wait() chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.cancel
}

var _ io.ReadWriteCloser = (*udpConn)(nil)
