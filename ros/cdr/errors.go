package cdr

import "errors"

// Sentinel errors returned (possibly wrapped) by encoders and decoders; test
// for them with errors.Is.
var (
	// ErrTruncated reports input that ends before the value it announces.
	ErrTruncated = errors.New("cdr: truncated input")
	// ErrInvalid reports bytes that cannot be a valid encoding: an unknown
	// encapsulation kind, a bool that is neither 0 nor 1, a string without
	// its NUL terminator, or a wstring that is not valid UTF-16.
	ErrInvalid = errors.New("cdr: invalid encoding")
	// ErrBoundExceeded reports a bounded string or sequence longer than
	// its bound, on encode or decode.
	ErrBoundExceeded = errors.New("cdr: bound exceeded")
	// ErrTooLarge reports a string or sequence whose length does not fit
	// the uint32 length field of the wire format, on encode.
	ErrTooLarge = errors.New("cdr: value too large")
)
