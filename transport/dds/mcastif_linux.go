package dds

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// setMulticastIface makes c send multicast datagrams through interface
// ni, named by its index (so that the choice survives a change of its
// address), with a TTL of 1 and a copy to the sockets of this host.
func setMulticastIface(c *net.UDPConn, ni netIface) error {
	return control(c, func(fd int) error {
		if err := unix.SetsockoptIPMreqn(fd, unix.IPPROTO_IP, unix.IP_MULTICAST_IF, &unix.IPMreqn{Ifindex: int32(ni.index)}); err != nil {
			return err
		}
		if err := syscall.SetsockoptByte(fd, syscall.IPPROTO_IP, syscall.IP_MULTICAST_TTL, 1); err != nil {
			return err
		}
		return syscall.SetsockoptByte(fd, syscall.IPPROTO_IP, syscall.IP_MULTICAST_LOOP, 1)
	})
}
