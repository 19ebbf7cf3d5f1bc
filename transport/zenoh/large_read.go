package zenoh

import (
	"io"
	"net"
)

// spillReader is the source of a link's bufio.Reader: the connection,
// after the bytes that a vectored read of a fragment's payload took past
// its end (the next batch's length and header, and the start of its
// payload). Reading a fragment's payload then costs one system call, not
// two (one for the header into the read buffer, one for the payload).
type spillReader struct {
	conn io.Reader
	v    *vectorReader // nil: the payload is read with conn.Read
	// wake, if set, tells whether a read that ended with an error goes on
	// (a housekeeping deadline, see link.wake).
	wake  func(error) bool
	spill []byte
	r, w  int // unread bytes: spill[r:w]
}

func newSpillReader(conn net.Conn) *spillReader {
	s := &spillReader{conn: conn, spill: make([]byte, linkReadBuffer)}
	s.v = newVectorReader(conn)
	return s
}

// Read reads the spilled bytes, then from the connection.
func (s *spillReader) Read(p []byte) (int, error) {
	if s.r < s.w {
		n := copy(p, s.spill[s.r:s.w])
		s.r += n
		return n, nil
	}
	return s.conn.Read(p)
}

// readInto fills dst with the next bytes of the stream: the spilled bytes,
// then from the connection, the bytes that follow going to spill in the
// same system call. The bufio.Reader reading from s must hold no bytes.
func (s *spillReader) readInto(dst []byte) error {
	for len(dst) > 0 {
		if s.r < s.w {
			n := copy(dst, s.spill[s.r:s.w])
			s.r += n
			dst = dst[n:]
			continue
		}
		if s.v == nil {
			_, err := io.ReadFull(s.conn, dst)
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		n, spilled, err := s.v.read(dst, s.spill)
		if err != nil {
			if s.wake != nil && s.wake(err) {
				continue
			}
			return err
		}
		s.r, s.w = 0, spilled
		dst = dst[n:]
	}
	return nil
}
