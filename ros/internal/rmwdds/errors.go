package rmwdds

import (
	"errors"
	"fmt"
)

// Sentinel errors of this package, wrapped with details; test them with
// errors.Is.
var (
	// ErrInvalid reports an argument that the ROS 2 DDS conventions cannot
	// carry (an empty name, a type without hash, a bad QoS value).
	ErrInvalid = errors.New("rmwdds: invalid argument")
	// ErrMalformed reports bytes or names from a peer that do not follow
	// the ROS 2 DDS conventions.
	ErrMalformed = errors.New("rmwdds: malformed input")
)

// errorf wraps sentinel with a formatted detail.
func errorf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
}

// Sentinel errors of the Session.
var (
	// ErrClosed is returned by operations on a closed session, node or
	// entity.
	ErrClosed = errors.New("rmwdds: closed")
	// ErrAlreadyReplied is returned by a second Reply to one request.
	ErrAlreadyReplied = errors.New("rmwdds: request already answered")
	// ErrRemote is matched by the error a client gets when an afor server
	// failed its request (see appendErrorReply).
	ErrRemote = errors.New("rmwdds: server error")
)
