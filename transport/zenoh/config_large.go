package zenoh

import "fmt"

// linkReadBuffer is the size of a link's read buffer (see handshake).
const linkReadBuffer = 4 << 10

// resolveReassembly checks the reassembly limits of r and fills in their
// defaults (MaxMessageSize already resolved).
func (r *resolved) resolveReassembly() error {
	switch {
	case r.MaxLinkReassembly < 0:
		return fmt.Errorf("%w: negative MaxLinkReassembly", ErrInvalidConfig)
	case r.MaxLinkReassembly == 0:
		r.MaxLinkReassembly = r.MaxMessageSize
	}
	switch {
	case r.MaxSessionReassembly < 0:
		return fmt.Errorf("%w: negative MaxSessionReassembly", ErrInvalidConfig)
	case r.MaxSessionReassembly == 0:
		r.MaxSessionReassembly = 2 * r.MaxMessageSize
	}
	return nil
}
