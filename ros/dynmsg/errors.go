package dynmsg

import (
	"errors"
	"fmt"
	"strings"

	"github.com/afor-go/afor/ros/idl"
)

// Sentinel errors, usable with [errors.Is].
var (
	// ErrUnknownType reports a type name that the registry does not hold.
	// It is idl.ErrUnknownType, so either sentinel matches.
	ErrUnknownType = idl.ErrUnknownType
	// ErrBadValue reports a value that does not fit its field: a wrong Go
	// type or range given to Encode, or YAML given to ParseYAML that is not
	// a value of the field's type, or an unknown field. The error text
	// names the field and the expected type.
	ErrBadValue = errors.New("dynmsg: bad value")
)

// fieldError is a value error located at a field path ("pose.position.x",
// "points[2].y").
type fieldError struct {
	path string
	err  error
}

func (e *fieldError) Error() string {
	if ve, ok := e.err.(*valueError); ok {
		return "dynmsg: field " + e.path + ": " + ve.msg
	}
	return "dynmsg: field " + e.path + ": " + e.err.Error()
}

// Unwrap returns the cause and ErrBadValue: every error located at a
// field is a bad value, even one found by package cdr (a bound exceeded).
func (e *fieldError) Unwrap() []error { return []error{e.err, ErrBadValue} }

// valueError is an ErrBadValue error.
type valueError struct{ msg string }

func (e *valueError) Error() string { return "dynmsg: " + e.msg }
func (e *valueError) Unwrap() error { return ErrBadValue }

// inField locates err in the field (or "[i]" element) name.
func inField(name string, err error) error {
	if fe, ok := err.(*fieldError); ok {
		if strings.HasPrefix(fe.path, "[") {
			fe.path = name + fe.path
		} else {
			fe.path = name + "." + fe.path
		}
		return fe
	}
	return &fieldError{path: name, err: err}
}

// badValue returns an ErrBadValue error saying what was wanted.
func badValue(format string, args ...any) error {
	return &valueError{msg: fmt.Sprintf(format, args...)}
}

// aType returns "an int32", "a float64", "a uint8": a type name with its
// article.
func aType(name string) string {
	if strings.HasPrefix(name, "int") {
		return "an " + name
	}
	return "a " + name
}

// describe names a value and its Go type for errors: `"abc" (string)`.
func describe(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	if v == nil {
		return "nil"
	}
	return fmt.Sprintf("%v (%T)", v, v)
}
