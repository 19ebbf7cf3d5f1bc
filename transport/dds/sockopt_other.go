//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package dds

import (
	"errors"
	"net"
	"syscall"
)

// reuseControl is not implemented on this platform: only one participant
// per host can then listen to SPDP multicast.
func reuseControl(string, string, syscall.RawConn) error { return nil }

// joinGroup is not implemented on this platform.
func joinGroup(*net.UDPConn, [4]byte, net.IP) error { return errors.ErrUnsupported }

// setMulticastSend is not implemented on this platform.
func setMulticastSend(*net.UDPConn, net.IP) error { return errors.ErrUnsupported }
