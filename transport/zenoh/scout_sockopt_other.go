//go:build !unix

package zenoh

import (
	"errors"
	"net"
)

// joinGroup is not implemented on this platform.
func joinGroup(*net.UDPConn, net.IP, net.IP) error { return errors.ErrUnsupported }

// setMulticastSend is not implemented on this platform.
func setMulticastSend(*net.UDPConn, net.IP) error { return errors.ErrUnsupported }
