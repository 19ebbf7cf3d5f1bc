//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package dds

import (
	"net"
	"syscall"
)

// reuseControl sets SO_REUSEADDR and SO_REUSEPORT on a socket before bind,
// so that every participant of the host shares the SPDP multicast port.
func reuseControl(_, _ string, c syscall.RawConn) error {
	var ferr error
	err := c.Control(func(fd uintptr) {
		if ferr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1); ferr != nil {
			return
		}
		ferr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, soReusePort, 1)
	})
	if err != nil {
		return err
	}
	return ferr
}

// joinGroup makes c a member of the IPv4 multicast group on the interface
// whose address is ifaddr.
func joinGroup(c *net.UDPConn, group [4]byte, ifaddr net.IP) error {
	var mreq syscall.IPMreq
	mreq.Multiaddr = group
	copy(mreq.Interface[:], ifaddr.To4())
	return control(c, func(fd int) error {
		return syscall.SetsockoptIPMreq(fd, syscall.IPPROTO_IP, syscall.IP_ADD_MEMBERSHIP, &mreq)
	})
}

// setMulticastSend makes c send multicast datagrams through the interface
// whose address is ifaddr, with a TTL of 1 and a copy to the sockets of
// this host.
func setMulticastSend(c *net.UDPConn, ifaddr net.IP) error {
	return control(c, func(fd int) error {
		var a [4]byte
		copy(a[:], ifaddr.To4())
		if err := syscall.SetsockoptInet4Addr(fd, syscall.IPPROTO_IP, syscall.IP_MULTICAST_IF, a); err != nil {
			return err
		}
		if err := syscall.SetsockoptByte(fd, syscall.IPPROTO_IP, syscall.IP_MULTICAST_TTL, 1); err != nil {
			return err
		}
		return syscall.SetsockoptByte(fd, syscall.IPPROTO_IP, syscall.IP_MULTICAST_LOOP, 1)
	})
}

// control runs f on c's file descriptor.
func control(c *net.UDPConn, f func(fd int) error) error {
	rc, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = f(int(fd)) }); err != nil {
		return err
	}
	return ferr
}
