package dds

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
)

// sockets are the UDP sockets of a participant (§3.7 of the research note):
// the shared SPDP multicast socket (nil without multicast), the unicast
// metatraffic and user sockets of its participant index, and the
// acknowledgment socket of its user writers.
type sockets struct {
	spdp *net.UDPConn
	meta *net.UDPConn
	user *net.UDPConn
	// acks, on an ephemeral port, is the unicast locator the user writers
	// announce, so that readers' ACKNACKs and NACK_FRAGs have a receive
	// goroutine of their own: a reader callback, which runs in the user
	// socket's goroutine, may then block in a KEEP_ALL Write that waits
	// for them (see ackLocators).
	acks  *net.UDPConn
	index int
	// send sends every datagram (sender_*.go).
	send *sender
}

func (s *sockets) close() {
	if s.send != nil {
		s.send.close()
	}
	for _, c := range []*net.UDPConn{s.spdp, s.meta, s.user, s.acks} {
		if c != nil {
			c.Close()
		}
	}
}

// openSockets binds the sockets of the first free participant index.
func openSockets(r *resolved) (*sockets, error) {
	s := &sockets{}
	last := r.MaxParticipantIndex
	if r.ExactIndex {
		last = r.ParticipantIndex
	}
	for i := r.ParticipantIndex; i <= last; i++ {
		meta, err := listenUDP(metaUnicastPort(r.DomainID, i), false)
		if err != nil {
			continue
		}
		user, err := listenUDP(userUnicastPort(r.DomainID, i), false)
		if err != nil {
			meta.Close()
			continue
		}
		s.meta, s.user, s.index = meta, user, i
		break
	}
	if s.meta == nil {
		return nil, fmt.Errorf("%w: indices %d to %d of domain %d are taken", ErrNoFreeIndex, r.ParticipantIndex, last, r.DomainID)
	}
	acks, err := listenUDP(r.AckPort, false)
	if err != nil {
		s.close()
		return nil, fmt.Errorf("dds: acknowledgment socket: %w", err)
	}
	s.acks = acks
	if s.send, err = openSender(s.meta, r.bufferSize); err != nil {
		s.close()
		return nil, err
	}
	for _, c := range []*net.UDPConn{s.meta, s.user, s.acks} {
		_ = c.SetReadBuffer(r.bufferSize)
		_ = c.SetWriteBuffer(r.bufferSize)
	}
	if r.multicast {
		c, err := listenUDP(spdpMulticastPort(r.DomainID), true)
		if err != nil {
			s.close()
			return nil, fmt.Errorf("dds: SPDP multicast socket: %w", err)
		}
		s.spdp = c
		_ = c.SetReadBuffer(r.bufferSize)
		// The group is joined on each multicast interface by the
		// participant (netif.go), as they come and go.
	}
	return s, nil
}

// listenUDP binds 0.0.0.0:port, with address and port reuse if shared.
func listenUDP(port int, shared bool) (*net.UDPConn, error) {
	lc := net.ListenConfig{}
	if shared {
		lc.Control = reuseControl
	}
	pc, err := lc.ListenPacket(context.Background(), "udp4", netip.AddrPortFrom(netip.IPv4Unspecified(), uint16(port)).String())
	if err != nil {
		return nil, err
	}
	return pc.(*net.UDPConn), nil
}

// isUnreachable reports a send error that only concerns one destination
// (an ICMP error reported on the socket, a refused or unreachable host).
func isUnreachable(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EHOSTUNREACH) ||
		errors.Is(err, syscall.ENETUNREACH) || errors.Is(err, syscall.EPERM)
}
