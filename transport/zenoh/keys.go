package zenoh

import (
	"strings"

	"github.com/afor-go/afor/keyexpr"
)

// checkKeyExpr validates a key expression given by the user: it must be
// canonical, as in every transport of this module and in the reference
// implementations' declarations (the error names the canonical form).
func checkKeyExpr(k string) (string, error) {
	if err := keyexpr.Validate(k); err != nil {
		return "", &keyExprError{err: err}
	}
	return k, nil
}

// canonKeyExpr validates a key expression received from another node and
// returns its canonical form: what arrives is taken if it can be read.
func canonKeyExpr(k string) (string, error) {
	ke, err := keyexpr.Autocanonize(k)
	if err != nil {
		return "", &keyExprError{err: err}
	}
	return ke.String(), nil
}

// keyExprError is a keyexpr error that also matches ErrInvalidKeyExpr, with
// one prefix: `zenoh: invalid key expression "a/**/**": ...`.
type keyExprError struct{ err error }

func (e *keyExprError) Error() string {
	return ErrInvalidKeyExpr.Error() + strings.TrimPrefix(e.err.Error(), keyexpr.ErrInvalid.Error())
}

func (e *keyExprError) Unwrap() []error { return []error{ErrInvalidKeyExpr, e.err} }

// intersects reports whether some key matches both expressions; it does
// not allocate.
func intersects(a, b string) bool { return keyexpr.Intersects(a, b) }

// includes reports whether every key matching b matches a.
func includes(a, b string) bool { return keyexpr.Includes(a, b) }
