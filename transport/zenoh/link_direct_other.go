//go:build !unix

package zenoh

import "net"

// directWriter is not available outside Unix: every write goes through the
// link's writer goroutine.
type directWriter struct{}

func newDirectWriter(net.Conn) *directWriter { return nil }

func (*directWriter) write([]byte) (int, error) { panic("zenoh: no direct writes on this platform") }
