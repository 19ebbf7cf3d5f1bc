package zenoh

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"github.com/quic-go/quic-go"
)

// quic/ links: one QUIC connection (github.com/quic-go/quic-go) per link,
// carrying the batches, length-prefixed as on TCP, on one bidirectional
// stream that the connecting side opens. The TLS options are those of
// tls/ links (TLSConfig). Rust Zenoh offers the ALPN protocols "zenoh-ms"
// (a stream per priority), "zenoh" (one stream) and "hq-29" (one stream,
// Zenoh up to 1.8); this implementation speaks the single-stream ones.
//
// quic-go is the QUIC of the Go ecosystem (pure Go, RFC 9000/9001, used
// by Caddy, syncthing and others, released monthly, fuzzed in OSS-Fuzz)
// and takes crypto/tls's configuration, so tls/ and quic/ links share
// their certificate handling.

// quicALPN lists the ALPN protocols of quic/ links, preferred first.
var quicALPN = []string{"zenoh", "hq-29"}

// quicConfig returns the QUIC settings of a link: one bidirectional
// stream, no unidirectional one, and an idle timeout beyond the Zenoh
// lease (the lease, with its keep-alives, decides when a link is dead).
func quicConfig(lease time.Duration) *quic.Config {
	return &quic.Config{
		MaxIncomingStreams:    1,
		MaxIncomingUniStreams: -1,
		MaxIdleTimeout:        max(30*time.Second, 2*lease),
		KeepAlivePeriod:       5 * time.Second,
		HandshakeIdleTimeout:  handshakeTimeout / 2,
	}
}

// dialQUIC connects to ep and opens the link's stream.
func dialQUIC(ctx context.Context, ep endpoint, settings *tlsSettings, lease time.Duration) (net.Conn, error) {
	hctx, cancel := context.WithTimeout(ctx, settings.handshakeTimeout)
	defer cancel()
	qc, err := quic.DialAddr(hctx, ep.addr, settings.conf, quicConfig(lease))
	if err != nil {
		return nil, fmt.Errorf("QUIC handshake: %w", err)
	}
	st, err := qc.OpenStreamSync(hctx)
	if err != nil {
		_ = qc.CloseWithError(0, "")
		return nil, fmt.Errorf("QUIC stream: %w", err)
	}
	return &quicConn{conn: qc, stream: st, settings: settings}, nil
}

// quicListener is the listener of a quic/ endpoint.
type quicListener struct {
	ln     *quic.Listener
	ep     endpoint
	tls    *tlsSettings
	ctx    context.Context
	cancel context.CancelFunc
}

func listenQUIC(ep endpoint, settings *tlsSettings, lease time.Duration) (netListener, error) {
	ln, err := quic.ListenAddr(ep.addr, settings.conf, quicConfig(lease))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &quicListener{ln: ln, ep: ep, tls: settings, ctx: ctx, cancel: cancel}, nil
}

// Accept returns the next connection whose QUIC handshake is done; its
// stream is accepted at its first read, within the link handshake's
// deadlines and admission.
func (l *quicListener) Accept() (net.Conn, error) {
	qc, err := l.ln.Accept(l.ctx)
	if err != nil {
		if l.ctx.Err() != nil {
			return nil, net.ErrClosed
		}
		return nil, err
	}
	return &quicConn{conn: qc, settings: l.tls}, nil
}

func (l *quicListener) Close() error {
	l.cancel()
	return l.ln.Close()
}

func (l *quicListener) locator() endpoint {
	e := l.ep
	e.addr = l.ln.Addr().String()
	e.conf = nil
	return e
}

// quicConn is a quic/ link as a net.Conn: its stream, with the
// connection's addresses.
type quicConn struct {
	conn     *quic.Conn
	settings *tlsSettings

	mu     sync.Mutex
	stream *quic.Stream // nil until accepted (an accepted link)
	rdl    time.Time    // deadlines set before the stream was accepted
	wdl    time.Time
	once   sync.Once
	// acceptCancel interrupts the wait for the stream of an accepted link.
	acceptCancel context.CancelFunc
}

// errNoStream is a write to an accepted link before its stream came.
var errNoStream = errors.New("zenoh: QUIC stream not open yet")

// getStream returns the link's stream, accepting it first on an accepted
// link (within the read deadline; setting the deadline again interrupts
// the wait).
func (c *quicConn) getStream() (*quic.Stream, error) {
	c.mu.Lock()
	if c.stream != nil {
		st := c.stream
		c.mu.Unlock()
		return st, nil
	}
	rdl := c.rdl
	if !rdl.IsZero() && !time.Now().Before(rdl) {
		c.mu.Unlock()
		return nil, deadlineExceeded{}
	}
	ctx, cancel := context.WithCancel(c.conn.Context())
	defer cancel()
	c.acceptCancel = cancel
	c.mu.Unlock()
	if !rdl.IsZero() {
		var stop context.CancelFunc
		ctx, stop = context.WithDeadline(ctx, rdl)
		defer stop()
	}
	st, err := c.conn.AcceptStream(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.acceptCancel = nil
	if err != nil {
		if ctx.Err() != nil && c.conn.Context().Err() == nil {
			return nil, deadlineExceeded{}
		}
		return nil, err
	}
	c.stream = st
	_ = st.SetReadDeadline(c.rdl)
	_ = st.SetWriteDeadline(c.wdl)
	return st, nil
}

func (c *quicConn) Read(p []byte) (int, error) {
	st, err := c.getStream()
	if err != nil {
		return 0, err
	}
	return st.Read(p)
}

func (c *quicConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	st := c.stream
	c.mu.Unlock()
	if st == nil {
		return 0, errNoStream
	}
	return st.Write(p)
}

// Close ends the stream and the connection (with its socket, for a
// dialled link).
func (c *quicConn) Close() error {
	c.once.Do(func() {
		c.mu.Lock()
		st := c.stream
		c.mu.Unlock()
		if st != nil {
			_ = st.Close()
		}
		_ = c.conn.CloseWithError(0, "")
	})
	return nil
}

func (c *quicConn) LocalAddr() net.Addr  { return c.conn.LocalAddr() }
func (c *quicConn) RemoteAddr() net.Addr { return c.conn.RemoteAddr() }

func (c *quicConn) SetDeadline(t time.Time) error {
	_ = c.SetReadDeadline(t)
	return c.SetWriteDeadline(t)
}

func (c *quicConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rdl = t
	if c.stream != nil {
		return c.stream.SetReadDeadline(t)
	}
	if c.acceptCancel != nil {
		c.acceptCancel()
	}
	return nil
}

func (c *quicConn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.wdl = t
	if c.stream != nil {
		return c.stream.SetWriteDeadline(t)
	}
	return nil
}

// peerExpiry returns when the remote's certificate chain expires, if the
// link is to be closed then (close_link_on_expiration).
func (c *quicConn) peerExpiry() time.Time {
	if !c.settings.closeOnExpiry {
		return time.Time{}
	}
	return certExpiry(c.conn.ConnectionState().TLS.PeerCertificates)
}

// deadlineExceeded is a read that reached its deadline before the stream
// of an accepted link came; it matches os.ErrDeadlineExceeded.
type deadlineExceeded struct{}

func (deadlineExceeded) Error() string   { return "i/o timeout" }
func (deadlineExceeded) Timeout() bool   { return true }
func (deadlineExceeded) Temporary() bool { return true }
func (deadlineExceeded) Unwrap() error   { return os.ErrDeadlineExceeded }
