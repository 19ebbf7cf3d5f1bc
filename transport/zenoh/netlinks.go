package zenoh

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// Links of every protocol reach the session as a net.Conn carrying a stream
// of batches, each prefixed by its 2-byte length, as on TCP: a tls/ link
// is a TLS connection over TCP, a quic/ link the one bidirectional stream
// of a QUIC connection, a unixsock-stream/ link a Unix socket, and a udp/
// link a stream view of its datagrams (one datagram per batch, see
// udp.go). So every link type goes through the same handshake, admission
// and limits.

// netListener accepts the connections of one Listen endpoint.
type netListener interface {
	// Accept waits for the next connection; it fails once Close was
	// called.
	Accept() (net.Conn, error)
	Close() error
	// locator is the endpoint listened on, with the port the system chose.
	locator() endpoint
}

// linkProto returns the protocol of a link's connection.
func linkProto(c net.Conn) string {
	switch c := c.(type) {
	case *tlsConn:
		return ProtoTLS
	case *quicConn:
		return ProtoQUIC
	case *udpConn:
		return ProtoUDP
	case *net.UnixConn:
		return ProtoUnixStream
	case interface{ linkProto() string }:
		return c.linkProto()
	}
	return ProtoTCP
}

// isDatagram reports whether c is a link that may lose, duplicate or
// reorder batches (udp/).
func isDatagram(c net.Conn) bool {
	_, ok := c.(*udpConn)
	return ok
}

// LimitTLS names, in Stats.ByLimit, the inbound tls/ and quic/ links
// whose TLS handshake failed: an untrusted or expired certificate, a
// plaintext peer on a TLS port.
const LimitTLS = "TLS"

// isTLSFailure reports whether err ended an inbound link of c before its
// TLS handshake was complete.
func isTLSFailure(c net.Conn, err error) bool {
	switch c := c.(type) {
	case *tlsConn:
		return !c.ConnectionState().HandshakeComplete
	case *quicConn:
		return false // QUIC handshakes fail before Accept returns
	}
	return false
}

// linkMTU is the largest batch a link carries: a UDP datagram's payload
// on udp/ links (as Rust Zenoh negotiates it), else the protocol's 65,535.
func linkMTU(c net.Conn) int {
	if isDatagram(c) {
		return udpMaxBatch
	}
	return 65535
}

// remoteLocator is the locator of a link's remote end.
func remoteLocator(c net.Conn) string {
	a := c.RemoteAddr()
	if a == nil {
		return linkProto(c) + "/"
	}
	return linkProto(c) + "/" + a.String()
}

// listen opens a listener on ep.
func (s *Session) listen(ctx context.Context, ep endpoint) (netListener, error) {
	switch ep.proto {
	case ProtoTCP, ProtoTLS:
		var settings *tlsSettings
		if ep.proto == ProtoTLS {
			var err error
			if settings, err = tlsServer(&s.cfg.TLS, ep, nil); err != nil {
				return nil, err
			}
		}
		var lc net.ListenConfig
		ln, err := lc.Listen(ctx, "tcp", ep.addr)
		if err != nil {
			return nil, err
		}
		return &streamListener{ln: ln, ep: ep, tls: settings}, nil
	case ProtoUnixStream:
		return listenUnix(ctx, ep)
	case ProtoUDP:
		return listenUDP(ep, s.cfg.Limits.MaxLinks)
	case ProtoQUIC:
		settings, err := tlsServer(&s.cfg.TLS, ep, quicALPN)
		if err != nil {
			return nil, err
		}
		// quic-go completes handshakes before Accept: count and log the
		// clients refused where their certificate is checked.
		var bound atomic.Pointer[string] // the endpoint with its port
		countRefusedClients(settings.conf, func(err error) {
			if n, log := s.countRefused(LimitTLS); log {
				name := ep.String()
				if b := bound.Load(); b != nil {
					name = *b
				}
				s.log.Warn("zenoh: refusing inbound link", "endpoint", name, "limit", LimitTLS, "err", err, "count", n)
			}
		})
		ln, err := listenQUIC(ep, settings, s.cfg.Lease)
		if err == nil {
			name := ln.locator().String()
			bound.Store(&name)
		}
		return ln, err
	}
	return nil, fmt.Errorf("%w: %s", ErrInvalidEndpoint, ep)
}

// dialConn connects to ep (the link handshake is not done yet).
func (s *Session) dialConn(ctx context.Context, ep endpoint) (net.Conn, error) {
	var d net.Dialer
	switch ep.proto {
	case ProtoTCP:
		c, err := d.DialContext(ctx, "tcp", ep.addr)
		if err != nil {
			return nil, err
		}
		setSockBufs(c, ep)
		return c, nil
	case ProtoTLS:
		settings, err := tlsClient(&s.cfg.TLS, ep, nil)
		if err != nil {
			return nil, err
		}
		c, err := d.DialContext(ctx, "tcp", ep.addr)
		if err != nil {
			return nil, err
		}
		setSockBufs(c, ep)
		tc := tls.Client(c, settings.conf)
		hctx, cancel := context.WithTimeout(ctx, settings.handshakeTimeout)
		defer cancel()
		if err := tc.HandshakeContext(hctx); err != nil {
			_ = c.Close()
			return nil, fmt.Errorf("TLS handshake: %w", err)
		}
		return &tlsConn{Conn: tc, settings: settings}, nil
	case ProtoUnixStream:
		return d.DialContext(ctx, "unix", ep.addr)
	case ProtoUDP:
		return dialUDP(ctx, ep)
	case ProtoQUIC:
		settings, err := tlsClient(&s.cfg.TLS, ep, quicALPN)
		if err != nil {
			return nil, err
		}
		return dialQUIC(ctx, ep, settings, s.cfg.Lease)
	}
	return nil, fmt.Errorf("%w: %s", ErrInvalidEndpoint, ep)
}

// streamListener is the listener of tcp/ and tls/ endpoints.
type streamListener struct {
	ln  net.Listener
	ep  endpoint
	tls *tlsSettings // nil for tcp/
}

func (l *streamListener) Accept() (net.Conn, error) {
	c, err := l.ln.Accept()
	if err != nil {
		return nil, err
	}
	setSockBufs(c, l.ep)
	if l.tls == nil {
		return c, nil
	}
	// The TLS handshake runs at the first read, within the link
	// handshake's deadlines and admission (see admission.go).
	return &tlsConn{Conn: tls.Server(&sniffTLS{Conn: c}, l.tls.conf), settings: l.tls}, nil
}

// errNotTLS is an accepted tls/ connection whose first byte cannot begin
// a TLS handshake.
var errNotTLS = errors.New("not a TLS handshake (a plaintext peer on a TLS port?)")

// sniffTLS fails the first read of an accepted tls/ connection at once
// when its first byte is not a TLS handshake record's (0x16), rather than
// letting the TLS stack wait for a record as long as the bytes say.
type sniffTLS struct {
	net.Conn
	checked bool // read by the TLS handshake only
}

func (c *sniffTLS) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if !c.checked && n > 0 {
		c.checked = true
		if p[0] != 0x16 {
			return 0, errNotTLS
		}
	}
	return n, err
}

func (l *streamListener) Close() error { return l.ln.Close() }

func (l *streamListener) locator() endpoint {
	e := l.ep
	e.addr = l.ln.Addr().String()
	e.conf = nil
	return e
}

// setSockBufs applies the so_sndbuf and so_rcvbuf configuration of ep.
func setSockBufs(c net.Conn, ep endpoint) {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return
	}
	if v, ok := ep.conf[confSndBuf]; ok {
		n, _ := strconv.Atoi(v)
		_ = tc.SetWriteBuffer(n)
	}
	if v, ok := ep.conf[confRcvBuf]; ok {
		n, _ := strconv.Atoi(v)
		_ = tc.SetReadBuffer(n)
	}
}

// tlsConn is a tls/ link's connection.
type tlsConn struct {
	*tls.Conn
	settings *tlsSettings
}

// peerExpiry returns when the remote's certificate chain expires, if the
// link is to be closed then (close_link_on_expiration).
func (c *tlsConn) peerExpiry() time.Time {
	if !c.settings.closeOnExpiry {
		return time.Time{}
	}
	return certExpiry(c.ConnectionState().PeerCertificates)
}

// errCertExpired ends a link whose remote's certificate expired
// (close_link_on_expiration).
var errCertExpired = errors.New("zenoh: the remote's certificate expired")

// closeOnExpiry arranges for l to close, with reason expired, when its
// remote's certificate expires if its link asks for it; it returns the
// function that cancels that, or nil.
func (l *link) closeOnExpiry() (stop func()) {
	c, ok := l.conn.(interface{ peerExpiry() time.Time })
	if !ok {
		return nil
	}
	at := c.peerExpiry()
	if at.IsZero() {
		return nil
	}
	t := time.AfterFunc(time.Until(at), func() {
		l.log.Warn("zenoh: closing link: the remote's certificate expired", "link", l.String(), "expired", at)
		l.close(wire.CloseExpired, errCertExpired)
	})
	return func() { t.Stop() }
}

// listenUnix listens on a Unix socket path. A socket file left by a
// process that is gone is replaced; one that accepts connections is not.
func listenUnix(ctx context.Context, ep endpoint) (netListener, error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "unix", ep.addr)
	if err != nil && errors.Is(err, syscall.EADDRINUSE) {
		if c, derr := net.DialTimeout("unix", ep.addr, time.Second); derr == nil {
			_ = c.Close()
			return nil, fmt.Errorf("%w (another process listens there)", err)
		}
		if fi, serr := os.Lstat(ep.addr); serr == nil && fi.Mode()&os.ModeSocket != 0 {
			_ = os.Remove(ep.addr) // stale
			ln, err = lc.Listen(ctx, "unix", ep.addr)
		}
	}
	if err != nil {
		return nil, err
	}
	return &unixListener{ln: ln, ep: ep}, nil
}

// unixListener is the listener of unixsock-stream/ endpoints.
type unixListener struct {
	ln net.Listener
	ep endpoint
}

func (l *unixListener) Accept() (net.Conn, error) { return l.ln.Accept() }
func (l *unixListener) Close() error              { return l.ln.Close() }
func (l *unixListener) locator() endpoint {
	e := l.ep
	e.conf = nil
	return e
}
