//go:build !linux

package dds

import "net"

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

// read receives one datagram into the buffer and returns its length.
func (r *rawRecv) read() (int, error) {
	n, _, err := r.u.c.ReadFromUDPAddrPort(r.buf)
	return n, err
}
