//go:build !linux

package dds

import "net"

// setMulticastIface makes c send multicast datagrams through interface
// ni, named by its first address, with a TTL of 1 and a copy to the
// sockets of this host.
func setMulticastIface(c *net.UDPConn, ni netIface) error { return setMulticastSend(c, ifaceIP(ni)) }
