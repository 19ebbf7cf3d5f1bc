package rmwzenoh

import (
	"errors"
	"fmt"
)

// Sentinel errors of this package, wrapped with details; test them with
// errors.Is.
var (
	// ErrInvalid reports an argument that cannot be carried by rmw_zenoh's
	// conventions (an empty name, a type without hash, a bad QoS value).
	ErrInvalid = errors.New("rmwzenoh: invalid argument")
	// ErrMalformed reports bytes or a token from a peer that do not follow
	// rmw_zenoh's conventions.
	ErrMalformed = errors.New("rmwzenoh: malformed input")
	// ErrClosed is returned by operations on a closed session, node or
	// entity.
	ErrClosed = errors.New("rmwzenoh: closed")
	// ErrAlreadyReplied is returned by a second Reply to one request.
	ErrAlreadyReplied = errors.New("rmwzenoh: request already answered")
)

// errorf wraps sentinel with a formatted detail.
func errorf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
}
