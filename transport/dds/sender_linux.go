//go:build linux

package dds

import (
	"fmt"
	"net"
	"net/netip"
	"slices"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// sender sends the participant's datagrams from a UDP socket of its own
// that the Go network poller does not watch. The poller registers every
// socket for write readiness as well as read readiness, edge-triggered, so
// a socket in it that sends wakes the poller's thread once more for every
// datagram, when the receiver has taken it and the room in the send buffer
// comes back: a wake-up of the sending process per datagram, for nothing
// (sends never wait in the poller). The socket blocks: a send is a raw
// sendto with MSG_DONTWAIT (no runtime bookkeeping, see rawio_linux.go)
// and, only when the buffer is full, an ordinary blocking one, bounded by
// SO_SNDTIMEO.
type sender struct {
	mu     sync.RWMutex // shared by sends, exclusive for close
	fd     int
	closed bool
	// other sends to destinations that are not IPv4 (meta: it fails as
	// the socket does).
	other *net.UDPConn
}

// sendTimeoutSec bounds, in seconds, a send that waits for room in a full
// send buffer.
const sendTimeoutSec = 1

// openSender opens the send socket; bufferSize sets its SO_SNDBUF.
func openSender(meta *net.UDPConn, bufferSize int) (*sender, error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, syscall.IPPROTO_UDP)
	if err != nil {
		return nil, fmt.Errorf("dds: send socket: %w", err)
	}
	tv := syscall.Timeval{Sec: sendTimeoutSec}
	if err := syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &tv); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("dds: send socket: %w", err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{}); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("dds: send socket: %w", err)
	}
	_ = syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_SNDBUF, bufferSize)
	return &sender{fd: fd, other: meta}, nil
}

// writeTo sends b to to. It returns net.ErrClosed after close.
func (s *sender) writeTo(b []byte, to netip.AddrPort) error {
	return s.writeParts(b, nil, nil, to)
}

// writeParts sends the datagram made of head, body and tail (either of
// the last two may be empty) to to, in one vectored send: body, a
// sample's payload, is sent from where it lies, not copied. It returns
// net.ErrClosed after close.
func (s *sender) writeParts(head, body, tail []byte, to netip.AddrPort) error {
	if !to.Addr().Is4() {
		_, err := s.other.WriteToUDPAddrPort(slices.Concat(head, body, tail), to)
		return err
	}
	var sa syscall.RawSockaddrInet4
	sa.Family = syscall.AF_INET
	sa.Addr = to.Addr().As4()
	port := (*[2]byte)(unsafe.Pointer(&sa.Port))
	port[0], port[1] = byte(to.Port()>>8), byte(to.Port())
	var iov [3]unix.Iovec
	n := 0
	for _, b := range [3][]byte{head, body, tail} {
		if len(b) > 0 {
			iov[n].Base = unsafe.SliceData(b)
			iov[n].SetLen(len(b))
			n++
		}
	}
	msg := unix.Msghdr{Name: (*byte)(unsafe.Pointer(&sa)), Namelen: syscall.SizeofSockaddrInet4, Iov: &iov[0]}
	msg.SetIovlen(n)
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return net.ErrClosed
	}
	for {
		_, _, e := syscall.RawSyscall(syscall.SYS_SENDMSG, uintptr(s.fd), uintptr(unsafe.Pointer(&msg)), syscall.MSG_DONTWAIT)
		if e == syscall.EAGAIN {
			_, _, e = syscall.Syscall(syscall.SYS_SENDMSG, uintptr(s.fd), uintptr(unsafe.Pointer(&msg)), 0)
		}
		switch e {
		case 0:
			return nil
		case syscall.EINTR:
			continue
		}
		return e
	}
}

// close closes the socket once the sends under way are done.
func (s *sender) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		syscall.Close(s.fd)
	}
}
