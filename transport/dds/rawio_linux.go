//go:build linux

package dds

import (
	"net"
	"net/netip"
	"sync"
	"syscall"
	"unsafe"
)

// Raw UDP I/O. The sockets are non-blocking, so sendto and recvfrom never
// wait in the kernel: they are issued with syscall.RawSyscall6, which
// skips the runtime's entersyscall/exitsyscall. In a request/answer
// exchange where the process is idle between datagrams, the runtime's
// sysmon thread is in its deep sleep, and every ordinary system call wakes
// it (a futex wake and a context switch per datagram, measured at several
// microseconds of a round trip on two cores). When the socket has no
// datagram or no room, the call returns false to RawConn.Read/Write, which
// waits in the network poller as net.UDPConn does.

// rawConn sends and receives on a UDP socket with raw system calls.
type rawConn struct {
	c     *net.UDPConn
	rc    syscall.RawConn
	sends sync.Pool // *rawSend, with its function bound once
}

func newRawConn(c *net.UDPConn) *rawConn {
	rc, err := c.SyscallConn()
	if err != nil {
		return &rawConn{c: c}
	}
	return &rawConn{c: c, rc: rc}
}

// rawSend is one sendto in progress.
type rawSend struct {
	b   []byte
	sa  syscall.RawSockaddrInet4
	err syscall.Errno
	fn  func(uintptr) bool
}

func (s *rawSend) do(fd uintptr) bool {
	for {
		_, _, e := syscall.RawSyscall6(syscall.SYS_SENDTO, fd, uintptr(unsafe.Pointer(unsafe.SliceData(s.b))), uintptr(len(s.b)),
			0, uintptr(unsafe.Pointer(&s.sa)), syscall.SizeofSockaddrInet4)
		switch e {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		s.err = e
		return true
	}
}

// writeTo sends b to an IPv4 destination, like WriteToUDPAddrPort.
func (u *rawConn) writeTo(b []byte, to netip.AddrPort) error {
	if u.rc == nil || !to.Addr().Is4() {
		_, err := u.c.WriteToUDPAddrPort(b, to)
		return err
	}
	s, _ := u.sends.Get().(*rawSend)
	if s == nil {
		s = &rawSend{}
		s.fn = s.do
	}
	s.b, s.err = b, 0
	s.sa.Family = syscall.AF_INET
	s.sa.Addr = to.Addr().As4()
	port := (*[2]byte)(unsafe.Pointer(&s.sa.Port))
	port[0], port[1] = byte(to.Port()>>8), byte(to.Port())
	err := u.rc.Write(s.fn)
	if err == nil && s.err != 0 {
		err = s.err
	}
	s.b = nil
	u.sends.Put(s)
	return err
}

// rawRecv reads datagrams from one socket into one buffer; it is used by
// one goroutine.
type rawRecv struct {
	u   *rawConn
	buf []byte
	n   int
	err syscall.Errno
	fn  func(uintptr) bool
}

func (u *rawConn) receiver(buf []byte) *rawRecv {
	r := &rawRecv{u: u, buf: buf}
	r.fn = r.do
	return r
}

func (r *rawRecv) do(fd uintptr) bool {
	for {
		n, _, e := syscall.RawSyscall6(syscall.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(unsafe.SliceData(r.buf))), uintptr(len(r.buf)), 0, 0, 0)
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

// read receives one datagram into the buffer and returns its length.
func (r *rawRecv) read() (int, error) {
	if r.u.rc == nil {
		n, _, err := r.u.c.ReadFromUDPAddrPort(r.buf)
		return n, err
	}
	r.n, r.err = 0, 0
	if err := r.u.rc.Read(r.fn); err != nil {
		return 0, err
	}
	if r.err != 0 {
		return 0, r.err
	}
	return r.n, nil
}
