//go:build !linux

package dds

import (
	"net"
	"net/netip"
)

// sender sends the participant's datagrams from its metatraffic socket.
type sender struct{ c *net.UDPConn }

func openSender(meta *net.UDPConn, _ int) (*sender, error) { return &sender{c: meta}, nil }

// setMulticast makes multicast datagrams leave by the interface of ifaddr.
func (s *sender) setMulticast(ifaddr net.IP) error { return setMulticastSend(s.c, ifaddr) }

// writeTo sends b to to.
func (s *sender) writeTo(b []byte, to netip.AddrPort) error {
	_, err := s.c.WriteToUDPAddrPort(b, to)
	return err
}

// close does nothing: the metatraffic socket closes with the others.
func (s *sender) close() {}
