// Package names implements the ROS 2 naming rules as rcl and rmw apply them:
// validation of node names, namespaces and topic or service names, expansion
// of relative, private ("~") and substituted ("{node}") names, and the
// remapping rules of the "--ros-args" command line.
package names

import (
	"errors"
	"fmt"
)

// ErrInvalidName is matched (errors.Is) by every validation error.
var ErrInvalidName = errors.New("invalid ROS name")

// Length limits, as rmw defines them.
const (
	// MaxTopicNameLength is RMW_TOPIC_MAX_NAME_LENGTH: 255 minus 8 bytes
	// reserved for the prefixes middlewares add.
	MaxTopicNameLength = 255 - 8
	// MaxNamespaceLength is RMW_NAMESPACE_MAX_LENGTH.
	MaxNamespaceLength = MaxTopicNameLength - 2
	// MaxNodeNameLength is RMW_NODE_NAME_MAX_NAME_LENGTH.
	MaxNodeNameLength = 255
)

// Error says what is wrong with a name and where. It matches
// ErrInvalidName.
type Error struct {
	Kind   string // "node name", "namespace", "topic name", ...
	Name   string
	Index  int // byte offset of the problem in Name, -1 when it is in Name's expansion
	Reason string
}

func (e *Error) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("invalid %s %q: %s", e.Kind, e.Name, e.Reason)
	}
	return fmt.Sprintf("invalid %s %q: %s (at index %d)", e.Kind, e.Name, e.Reason, e.Index)
}

// Unwrap returns ErrInvalidName.
func (e *Error) Unwrap() error { return ErrInvalidName }

func invalid(kind, name string, i int, reason string) error {
	return &Error{Kind: kind, Name: name, Index: i, Reason: reason}
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// ValidateNodeName checks a node name as rmw_validate_node_name does:
// not empty, only alphanumerics and '_', not starting with a digit, at most
// MaxNodeNameLength bytes.
func ValidateNodeName(name string) error {
	const kind = "node name"
	if name == "" {
		return invalid(kind, name, 0, "must not be empty")
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !isAlnum(c) && c != '_' {
			return invalid(kind, name, i, "must contain only alphanumerics and '_'")
		}
	}
	if isDigit(name[0]) {
		return invalid(kind, name, 0, "must not start with a number")
	}
	if len(name) > MaxNodeNameLength {
		return invalid(kind, name, MaxNodeNameLength-1, fmt.Sprintf("must not be longer than %d bytes", MaxNodeNameLength))
	}
	return nil
}

// ValidateNamespace checks a node namespace as rmw_validate_namespace does:
// "/" or a fully qualified name of at most MaxNamespaceLength bytes.
func ValidateNamespace(ns string) error {
	const kind = "namespace"
	if ns == "/" {
		return nil
	}
	if err := validateFull(kind, ns); err != nil {
		return err
	}
	if len(ns) > MaxNamespaceLength {
		return invalid(kind, ns, MaxNamespaceLength-1, fmt.Sprintf("must not be longer than %d bytes", MaxNamespaceLength))
	}
	return nil
}

// ValidateFullName checks a fully qualified topic or service name as
// rmw_validate_full_topic_name does: absolute, tokens of alphanumerics and
// '_' separated by single '/', no token starting with a digit, no trailing
// '/', at most MaxTopicNameLength bytes.
func ValidateFullName(name string) error {
	if err := validateFull("topic or service name", name); err != nil {
		return err
	}
	if len(name) > MaxTopicNameLength {
		return invalid("topic or service name", name, MaxTopicNameLength-1, fmt.Sprintf("must not be longer than %d bytes", MaxTopicNameLength))
	}
	return nil
}

func validateFull(kind, name string) error {
	if name == "" {
		return invalid(kind, name, 0, "must not be empty")
	}
	if name[0] != '/' {
		return invalid(kind, name, 0, "must be absolute (start with '/')")
	}
	if name[len(name)-1] == '/' {
		return invalid(kind, name, len(name)-1, "must not end with '/'")
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !isAlnum(c) && c != '_' && c != '/' {
			return invalid(kind, name, i, "must contain only alphanumerics, '_' and '/'")
		}
	}
	for i := 0; i+1 < len(name); i++ {
		if name[i] != '/' {
			continue
		}
		if name[i+1] == '/' {
			return invalid(kind, name, i+1, "must not contain '//'")
		}
		if isDigit(name[i+1]) {
			return invalid(kind, name, i+1, "a token must not start with a number")
		}
	}
	return nil
}

// ValidateName checks a topic or service name as the user writes it, before
// expansion, as rcl_validate_topic_name does: relative or absolute, '~' only
// as the first character and followed by '/', balanced '{}' substitutions of
// alphanumerics and '_' not starting with a digit.
func ValidateName(name string) error {
	const kind = "topic or service name"
	if name == "" {
		return invalid(kind, name, 0, "must not be empty")
	}
	if isDigit(name[0]) {
		return invalid(kind, name, 0, "must not start with a number")
	}
	if name[len(name)-1] == '/' {
		return invalid(kind, name, len(name)-1, "must not end with '/'")
	}
	open := -1
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case isAlnum(c):
			if isDigit(c) && open >= 0 && i == open+1 {
				return invalid(kind, name, i, "a substitution must not start with a number")
			}
		case c == '_':
		case c == '/':
			if open >= 0 {
				return invalid(kind, name, i, "a substitution must contain only alphanumerics and '_'")
			}
		case c == '~':
			if i != 0 {
				return invalid(kind, name, i, "'~' is allowed only as the first character")
			}
		case c == '{':
			if open >= 0 {
				return invalid(kind, name, i, "a substitution must contain only alphanumerics and '_'")
			}
			open = i
		case c == '}':
			if open < 0 {
				return invalid(kind, name, i, "unbalanced '}'")
			}
			open = -1
		default:
			if open >= 0 {
				return invalid(kind, name, i, "a substitution must contain only alphanumerics and '_'")
			}
			return invalid(kind, name, i, "must contain only alphanumerics, '_', '/', '~', '{' and '}'")
		}
	}
	if open >= 0 {
		return invalid(kind, name, open, "unbalanced '{'")
	}
	for i := 0; i+1 < len(name); i++ {
		if name[i] == '/' && isDigit(name[i+1]) {
			return invalid(kind, name, i+1, "a token must not start with a number")
		}
		if i == 1 && name[0] == '~' && name[1] != '/' {
			return invalid(kind, name, 1, "'~' must be followed by '/'")
		}
	}
	if len(name) > 1 && name[0] == '~' && name[1] != '/' {
		return invalid(kind, name, 1, "'~' must be followed by '/'")
	}
	return nil
}
