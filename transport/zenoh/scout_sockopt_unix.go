//go:build unix

package zenoh

import (
	"net"
	"syscall"
)

// joinGroup makes c a member of the IPv4 multicast group on the interface
// whose address is ifaddr (nil: the operating system chooses).
func joinGroup(c *net.UDPConn, group, ifaddr net.IP) error {
	var mreq syscall.IPMreq
	copy(mreq.Multiaddr[:], group.To4())
	if ifaddr != nil {
		copy(mreq.Interface[:], ifaddr.To4())
	}
	return control(c, func(fd int) error {
		return syscall.SetsockoptIPMreq(fd, syscall.IPPROTO_IP, syscall.IP_ADD_MEMBERSHIP, &mreq)
	})
}

// setMulticastSend makes c send multicast datagrams through the interface
// whose address is ifaddr (nil: the operating system chooses), with a TTL
// of 1 (the local network) and a copy to the sockets of this host.
func setMulticastSend(c *net.UDPConn, ifaddr net.IP) error {
	return control(c, func(fd int) error {
		if ifaddr != nil {
			var a [4]byte
			copy(a[:], ifaddr.To4())
			if err := syscall.SetsockoptInet4Addr(fd, syscall.IPPROTO_IP, syscall.IP_MULTICAST_IF, a); err != nil {
				return err
			}
		}
		// One-byte values are accepted by every Unix for these options
		// (the BSDs require them).
		if err := syscall.SetsockoptByte(fd, syscall.IPPROTO_IP, syscall.IP_MULTICAST_TTL, 1); err != nil {
			return err
		}
		return syscall.SetsockoptByte(fd, syscall.IPPROTO_IP, syscall.IP_MULTICAST_LOOP, 1)
	})
}

// joinGroup6 makes c a member of the IPv6 multicast group on the
// interface of index ifindex (0: the operating system chooses).
func joinGroup6(c *net.UDPConn, group net.IP, ifindex int) error {
	var mreq syscall.IPv6Mreq
	copy(mreq.Multiaddr[:], group.To16())
	mreq.Interface = uint32(ifindex)
	return control(c, func(fd int) error {
		return syscall.SetsockoptIPv6Mreq(fd, syscall.IPPROTO_IPV6, syscall.IPV6_JOIN_GROUP, &mreq)
	})
}

// setMulticastSend6 makes c send IPv6 multicast datagrams through the
// interface of index ifindex (0: the operating system chooses), one hop
// (the local link), with a copy to the sockets of this host.
func setMulticastSend6(c *net.UDPConn, ifindex int) error {
	return control(c, func(fd int) error {
		if ifindex != 0 {
			if err := syscall.SetsockoptInt(fd, syscall.IPPROTO_IPV6, syscall.IPV6_MULTICAST_IF, ifindex); err != nil {
				return err
			}
		}
		if err := syscall.SetsockoptInt(fd, syscall.IPPROTO_IPV6, syscall.IPV6_MULTICAST_HOPS, 1); err != nil {
			return err
		}
		return syscall.SetsockoptInt(fd, syscall.IPPROTO_IPV6, syscall.IPV6_MULTICAST_LOOP, 1)
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
