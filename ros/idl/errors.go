package idl

import "errors"

// Sentinel errors, usable with [errors.Is].
var (
	// ErrSyntax reports a malformed interface file. It is wrapped in a
	// [*SyntaxError] that gives the position.
	ErrSyntax = errors.New("idl: syntax error")
	// ErrTooLarge reports an interface file larger than [MaxFileSize].
	ErrTooLarge = errors.New("idl: file too large")
	// ErrUnknownType reports a nested type that the registry does not hold,
	// or a lookup of a name it does not hold.
	ErrUnknownType = errors.New("idl: unknown type")
	// ErrDuplicate reports a type added twice to a registry.
	ErrDuplicate = errors.New("idl: duplicate type")
	// ErrBadName reports a malformed fully qualified type name.
	ErrBadName = errors.New("idl: bad type name")
	// ErrCycle reports message types that contain themselves.
	ErrCycle = errors.New("idl: recursive type")
)

// SyntaxError is the error for a malformed interface file: what is wrong, and
// where. It matches [ErrSyntax] with [errors.Is].
type SyntaxError struct {
	Pos Pos    // where the problem is
	Msg string // what is wrong
}

// Error returns "file:line:col: msg".
func (e *SyntaxError) Error() string { return e.Pos.String() + ": " + e.Msg }

// Unwrap returns [ErrSyntax].
func (e *SyntaxError) Unwrap() error { return ErrSyntax }
