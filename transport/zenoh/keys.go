package zenoh

import (
	"fmt"

	"github.com/afor-go/afor/keyexpr"
)

// checkKeyExpr validates a key expression and returns its canonical form.
func checkKeyExpr(k string) (string, error) {
	ke, err := keyexpr.Autocanonize(k)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalidKeyExpr, err)
	}
	return ke.String(), nil
}

// intersects reports whether some key matches both expressions; it does
// not allocate.
func intersects(a, b string) bool { return keyexpr.Intersects(a, b) }

// includes reports whether every key matching b matches a.
func includes(a, b string) bool { return keyexpr.Includes(a, b) }
