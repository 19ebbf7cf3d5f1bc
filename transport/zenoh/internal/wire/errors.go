package wire

import "errors"

// Sentinel errors. Every error returned by this package wraps one of them, so
// callers can test the cause with errors.Is.
var (
	// ErrTruncated reports input that ends in the middle of a field.
	ErrTruncated = errors.New("wire: truncated input")
	// ErrOverlong reports a zint that is not minimally encoded.
	ErrOverlong = errors.New("wire: overlong zint")
	// ErrOverflow reports a value too large for its field (a bounded zint,
	// a length, a duration).
	ErrOverflow = errors.New("wire: value out of range")
	// ErrLimit reports input that exceeds one of the configured Limits.
	ErrLimit = errors.New("wire: limit exceeded")
	// ErrMandatoryExtension reports an unknown extension marked mandatory,
	// which the protocol requires to reject.
	ErrMandatoryExtension = errors.New("wire: unknown mandatory extension")
	// ErrUnknownMessage reports a header whose message id is not known in
	// the current context (transport, network, declaration or zenoh).
	ErrUnknownMessage = errors.New("wire: unknown message id")
	// ErrInvalid reports a malformed field, or a message whose fields cannot
	// be encoded.
	ErrInvalid = errors.New("wire: invalid message")
)
