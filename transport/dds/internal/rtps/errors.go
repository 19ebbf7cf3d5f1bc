package rtps

import "errors"

// Sentinel errors. Every error returned by this package wraps one of them, so
// callers test the cause with errors.Is.
var (
	// ErrMalformed reports bytes that do not form a valid message,
	// submessage, parameter list or discovery sample.
	ErrMalformed = errors.New("rtps: malformed input")
	// ErrNotRTPS reports a datagram that does not start with an RTPS
	// header, or has a protocol major version other than 2.
	ErrNotRTPS = errors.New("rtps: not an RTPS 2.x message")
	// ErrIncompatible reports a parameter list holding a PID this package
	// does not understand but whose "must understand" bit (0x4000) is set:
	// the entity it describes must be ignored.
	ErrIncompatible = errors.New("rtps: unknown must-understand parameter")
	// ErrLimit reports a list longer than the limits of this package (see
	// MaxLocators and the other Max* constants).
	ErrLimit = errors.New("rtps: limit exceeded")
	// ErrTooLarge reports a value that cannot be encoded, such as a
	// parameter or submessage over 65535 bytes.
	ErrTooLarge = errors.New("rtps: value too large to encode")
)

// Limits on lists decoded from the wire. Longer lists make the decoder fail
// with ErrLimit, so no allocation is sized by a count read off the wire.
const (
	// MaxLocators bounds each locator list of a participant or endpoint.
	MaxLocators = 32
	// MaxProperties bounds the entries of a PROPERTY_LIST.
	MaxProperties = 64
	// MaxPartitions bounds the names of a PARTITION.
	MaxPartitions = 64
	// MaxDataRepresentations bounds a DATA_REPRESENTATION list.
	MaxDataRepresentations = 16
	// MaxReplyLocators bounds each locator list of an INFO_REPLY kept in a
	// Context; further locators are skipped.
	MaxReplyLocators = 4
)
