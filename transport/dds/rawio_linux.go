//go:build linux

package dds

import (
	"net"
	"net/netip"
	"syscall"
	"unsafe"
)

// Raw UDP I/O. The receive sockets are non-blocking, so recvfrom (like the
// MSG_DONTWAIT sendto of sender_linux.go) never waits in the kernel: it is
// issued with syscall.RawSyscall6, which skips the runtime's
// entersyscall/exitsyscall. In a request/answer exchange where the process
// is idle between datagrams, the runtime's sysmon thread is in its deep
// sleep, and every ordinary system call wakes it (a futex wake and a
// context switch per datagram, measured at several microseconds of a round
// trip on two cores). When the socket has no datagram, the call returns
// false to RawConn.Read, which waits in the network poller as net.UDPConn
// does.

// rawConn receives on a UDP socket with raw system calls (sends go
// through sender_linux.go).
type rawConn struct {
	c  *net.UDPConn
	rc syscall.RawConn
}

func newRawConn(c *net.UDPConn) *rawConn {
	rc, err := c.SyscallConn()
	if err != nil {
		return &rawConn{c: c}
	}
	return &rawConn{c: c, rc: rc}
}

// rawRecv reads datagrams from one socket into one buffer; it is used by
// one goroutine.
type rawRecv struct {
	u   *rawConn
	buf []byte
	n   int
	err syscall.Errno
	fn  func(uintptr) bool
	// sa and salen receive the source address of the datagram.
	sa    syscall.RawSockaddrInet4
	salen uint32
}

func (u *rawConn) receiver(buf []byte) *rawRecv {
	r := &rawRecv{u: u, buf: buf}
	r.fn = r.do
	return r
}

func (r *rawRecv) do(fd uintptr) bool {
	for {
		r.salen = uint32(unsafe.Sizeof(r.sa))
		n, _, e := syscall.RawSyscall6(syscall.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(unsafe.SliceData(r.buf))), uintptr(len(r.buf)), 0,
			uintptr(unsafe.Pointer(&r.sa)), uintptr(unsafe.Pointer(&r.salen)))
		switch e {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		r.n, r.err = int(n), e
		return true
	}
}

// read receives one datagram into the buffer and returns its length and
// source (the zero AddrPort when it is not IPv4).
func (r *rawRecv) read() (int, netip.AddrPort, error) {
	if r.u.rc == nil {
		n, ap, err := r.u.c.ReadFromUDPAddrPort(r.buf)
		return n, netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), err
	}
	r.n, r.err = 0, 0
	if err := r.u.rc.Read(r.fn); err != nil {
		return 0, netip.AddrPort{}, err
	}
	if r.err != 0 {
		return 0, netip.AddrPort{}, r.err
	}
	var src netip.AddrPort
	if r.sa.Family == syscall.AF_INET && r.salen >= uint32(unsafe.Sizeof(r.sa)) {
		pb := (*[2]byte)(unsafe.Pointer(&r.sa.Port)) // network byte order
		port := uint16(pb[0])<<8 | uint16(pb[1])
		src = netip.AddrPortFrom(netip.AddrFrom4(r.sa.Addr), port)
	}
	return r.n, src, nil
}
