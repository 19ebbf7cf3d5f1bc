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

// joinGroup6 is not implemented on this platform.
func joinGroup6(*net.UDPConn, net.IP, int) error { return errors.ErrUnsupported }

// setMulticastSend6 is not implemented on this platform.
func setMulticastSend6(*net.UDPConn, int) error { return errors.ErrUnsupported }
