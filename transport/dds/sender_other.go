//go:build !linux

package dds

import (
	"net"
	"net/netip"
	"sync"
)

// sender sends the participant's datagrams from its metatraffic socket.
type sender struct {
	c   *net.UDPConn
	mu  sync.Mutex // guards buf
	buf []byte     // writeParts's datagram
}

func openSender(meta *net.UDPConn, _ int) (*sender, error) { return &sender{c: meta}, nil }

// writeTo sends b to to.
func (s *sender) writeTo(b []byte, to netip.AddrPort) error {
	_, err := s.c.WriteToUDPAddrPort(b, to)
	return err
}

// writeParts sends the datagram made of head, body and tail to to. The
// socket has no vectored send here: the parts are copied into one buffer.
func (s *sender) writeParts(head, body, tail []byte, to netip.AddrPort) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf = append(append(append(s.buf[:0], head...), body...), tail...)
	return s.writeTo(s.buf, to)
}

// close does nothing: the metatraffic socket closes with the others.
func (s *sender) close() {}
