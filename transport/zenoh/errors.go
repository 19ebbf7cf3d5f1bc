package zenoh

import (
	"context"
	"errors"
	"fmt"
)

// Sentinel errors returned (possibly wrapped) by this package. Test them
// with errors.Is.
var (
	// ErrInvalidEndpoint reports a malformed or unsupported endpoint string.
	ErrInvalidEndpoint = errors.New("zenoh: invalid endpoint")
	// ErrInvalidConfig reports a Config field out of range.
	ErrInvalidConfig = errors.New("zenoh: invalid config")
	// ErrInvalidKeyExpr reports a key expression that is not valid.
	ErrInvalidKeyExpr = errors.New("zenoh: invalid key expression")
	// ErrSessionClosed is returned by operations on a closed session.
	ErrSessionClosed = errors.New("zenoh: session closed")
	// ErrUndeclared is returned by operations on an undeclared entity.
	ErrUndeclared = errors.New("zenoh: entity undeclared")
	// ErrNoRouter is returned by Open in client mode when no router could
	// be reached.
	ErrNoRouter = errors.New("zenoh: no router reachable")
	// ErrConnectFailed is returned by Open, with
	// Config.ConnectExitOnFailure, when a Connect endpoint could not be
	// linked.
	ErrConnectFailed = errors.New("zenoh: connect failed")
	// ErrHandshake reports a failed INIT/OPEN exchange.
	ErrHandshake = errors.New("zenoh: handshake failed")
	// ErrProtocol reports bytes that do not follow the Zenoh protocol.
	ErrProtocol = errors.New("zenoh: protocol error")
	// ErrTooLarge reports a message or batch beyond a configured limit.
	ErrTooLarge = errors.New("zenoh: message too large")
	// ErrQueryFinished is returned when answering a query that has
	// finished (explicitly, by timeout, or because its queryable or
	// session ended).
	ErrQueryFinished = errors.New("zenoh: query finished")
	// ErrReplyError matches the error replies of queryables (see
	// ReplyError).
	ErrReplyError = errors.New("zenoh: error reply")
	// ErrQueryTimeout reports a query whose timeout passed before a reply.
	ErrQueryTimeout = errors.New("zenoh: query timed out")
	// ErrInvalidQoS reports a priority or congestion control out of range.
	ErrInvalidQoS = errors.New("zenoh: invalid QoS")
)

// ctxDone returns ctx's error if ctx has already ended, without blocking:
// every call that takes a ctx checks it first and, if it ended, does
// nothing else (see the package doc).
func ctxDone(ctx context.Context) error {
	if done := ctx.Done(); done != nil {
		select {
		case <-done:
			return ctx.Err()
		default:
		}
	}
	return nil
}

// Causes recorded (and logged) when a link ends.
var (
	errLinkClosed   = errors.New("zenoh: link closed")
	errLeaseExpired = errors.New("zenoh: peer lease expired")
	// errRemoteInvalid ends a link the remote closed as invalid (as a Go
	// session does over one of its limits).
	errRemoteInvalid = fmt.Errorf("%w: closed by the remote as invalid", errLinkClosed)
)
