package ros

import (
	"errors"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/internal/names"
)

var (
	// ErrInvalidName is matched by the errors for an invalid node name,
	// namespace, topic or service name, or remapping rule. The error says
	// what is wrong and at which byte of the name.
	ErrInvalidName = names.ErrInvalidName
	// ErrInvalidArgs is matched by the error for a malformed "--ros-args"
	// section (see WithArgs).
	ErrInvalidArgs = names.ErrInvalidArgs
	// ErrInvalidQoS is matched by the error for an invalid QoS profile.
	ErrInvalidQoS = errors.New("ros: invalid QoS")
	// ErrInvalidDomainID is matched by the error for a domain ID out of
	// range (0 to MaxDomainID) or a ROS_DOMAIN_ID that is not a number.
	ErrInvalidDomainID = errors.New("ros: invalid domain ID")
	// ErrUnsupportedMiddleware is matched by the error for a middleware this
	// build cannot run, such as the DDS ones named by RMW_IMPLEMENTATION.
	ErrUnsupportedMiddleware = errors.New("ros: unsupported middleware")
	// ErrClosed is matched by the errors of calls on a closed context, node
	// or entity. It is afor.ErrClosed, which the waits of a closed
	// subscription or server return.
	ErrClosed = afor.ErrClosed
)
