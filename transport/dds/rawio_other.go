//go:build !linux

package dds

import (
	"net"
	"net/netip"
)

// rawConn receives through net.UDPConn's methods: the raw system
// calls of rawio_linux.go are Linux only.
type rawConn struct{ c *net.UDPConn }

func newRawConn(c *net.UDPConn) *rawConn { return &rawConn{c: c} }

// rawRecv reads datagrams from one socket into one buffer.
type rawRecv struct {
	u   *rawConn
	buf []byte
}

func (u *rawConn) receiver(buf []byte) *rawRecv { return &rawRecv{u: u, buf: buf} }

// read receives one datagram into the buffer and returns its length and
// source.
func (r *rawRecv) read() (int, netip.AddrPort, error) {
	n, ap, err := r.u.c.ReadFromUDPAddrPort(r.buf)
	return n, netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), err
}
