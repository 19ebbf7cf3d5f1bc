//go:build unix

package zenoh

import (
	"io"
	"net"
	"syscall"
	"unsafe"
)

// vectorReader makes vectored reads (readv) on a raw connection. Its
// callback is built once, so that a read allocates nothing. It is used by
// the link's reader goroutine only.
type vectorReader struct {
	rc  syscall.RawConn
	fn  func(fd uintptr) bool
	iov [2]syscall.Iovec
	n   int
	err error
}

func newVectorReader(conn net.Conn) *vectorReader {
	rc := rawWriter(conn) // a RawConn serves reads as well as writes
	if rc == nil {
		return nil
	}
	v := &vectorReader{rc: rc}
	v.fn = func(fd uintptr) bool {
		for {
			n, _, errno := syscall.Syscall(syscall.SYS_READV, fd, uintptr(unsafe.Pointer(&v.iov[0])), uintptr(len(v.iov)))
			switch errno {
			case 0:
				v.n, v.err = int(n), nil
				return true
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // wait until readable (or the read deadline)
			}
			v.n, v.err = 0, errno
			return true
		}
	}
	return v
}

// read reads into dst and, past it, into spill, in one system call that
// waits until something can be read. It returns how many bytes went into
// each.
func (v *vectorReader) read(dst, spill []byte) (n, spilled int, err error) {
	v.iov[0] = syscall.Iovec{Base: &dst[0]}
	v.iov[0].SetLen(len(dst))
	v.iov[1] = syscall.Iovec{Base: &spill[0]}
	v.iov[1].SetLen(len(spill))
	err = v.rc.Read(v.fn)
	v.iov = [2]syscall.Iovec{} // do not pin the buffers
	switch {
	case err != nil:
		return 0, 0, err
	case v.err != nil:
		return 0, 0, v.err
	case v.n == 0:
		return 0, 0, io.ErrUnexpectedEOF
	case v.n > len(dst):
		return len(dst), v.n - len(dst), nil
	}
	return v.n, 0, nil
}
