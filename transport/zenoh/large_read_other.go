//go:build !unix

package zenoh

import "net"

// vectorReader is not available outside Unix: fragments are read with
// conn.Read.
type vectorReader struct{}

func newVectorReader(net.Conn) *vectorReader { return nil }

func (*vectorReader) read(dst, spill []byte) (int, int, error) {
	panic("zenoh: no vectored reads on this platform")
}
