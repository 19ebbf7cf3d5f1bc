//go:build unix

package zenoh

import (
	"net"
	"syscall"
)

// rawWriter returns the raw connection of a socket that supports
// non-blocking writes from the calling goroutine, or nil.
func rawWriter(conn net.Conn) syscall.RawConn {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return rc
}

// directWriter makes non-blocking writes on a raw connection. Its callback
// is built once, so that a write allocates nothing. It is used by one
// goroutine at a time (the link's write mutex is held).
type directWriter struct {
	rc  syscall.RawConn
	fn  func(fd uintptr) bool
	buf []byte
	n   int
	err error
}

func newDirectWriter(conn net.Conn) *directWriter {
	rc := rawWriter(conn)
	if rc == nil {
		return nil
	}
	d := &directWriter{rc: rc}
	d.fn = func(fd uintptr) bool {
		for {
			d.n, d.err = syscall.Write(int(fd), d.buf)
			if d.err != syscall.EINTR {
				return true // never wait for the socket to become writable
			}
		}
	}
	return d
}

// write makes one non-blocking write attempt of b. It returns how many
// bytes went out; a full socket buffer is not an error.
func (d *directWriter) write(b []byte) (int, error) {
	d.buf = b
	err := d.rc.Write(d.fn)
	d.buf = nil
	switch {
	case err != nil:
		return 0, err
	case d.err == syscall.EAGAIN:
		return 0, nil
	case d.err != nil:
		return 0, d.err
	}
	return d.n, nil
}
