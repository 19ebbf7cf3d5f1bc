package keyexpr

import (
	"fmt"
	"strconv"
	"strings"
)

// Limits on the size of a key expression. Zenoh itself sets none, but the
// Rust stack recurses once per chunk: a key of 8,001 chunks or more crashes
// eclipse-zenoh 1.10 (segmentation fault) and zenohd 1.10 (stack overflow)
// when it is relayed to them. These limits are far below that and far
// above real keys (a ROS 2 liveliness token has about 15 chunks and 300
// bytes), and they bound the work [Intersects] and [Includes] do on
// expressions from remote peers.
const (
	// MaxLen is the longest key expression, in bytes.
	MaxLen = 4096
	// MaxChunks is the most chunks a key expression may have.
	MaxChunks = 256
)

// ErrTooLong is the sentinel of a key expression over [MaxLen] bytes or
// [MaxChunks] chunks. It wraps [ErrInvalid], so errors.Is(err, ErrInvalid)
// holds for such an error as well.
var ErrTooLong = fmt.Errorf("%w: too long", ErrInvalid)

// CheckLimits returns an *[Error] wrapping [ErrTooLong] when s is longer
// than [MaxLen] bytes or has more than [MaxChunks] chunks, and nil
// otherwise; it checks nothing else (see [Validate]). [Validate], [New],
// [Canonize] and [Autocanonize] apply it first, so a too-long input is
// rejected in time linear in [MaxLen], whatever its length.
func CheckLimits(s string) error {
	if err := checkLimits(s); err != nil {
		return err
	}
	return nil
}

func checkLimits(s string) *Error {
	if len(s) > MaxLen {
		return &Error{Expr: s, Chunk: -1, Offset: MaxLen, tooLong: true,
			Reason: strconv.Itoa(len(s)) + " bytes, more than MaxLen (" + strconv.Itoa(MaxLen) + ")"}
	}
	if len(s) < 2*MaxChunks-1 {
		return nil // too short to hold more than MaxChunks chunks
	}
	if n := strings.Count(s, "/") + 1; n > MaxChunks {
		return &Error{Expr: s, Chunk: -1, tooLong: true,
			Reason: strconv.Itoa(n) + " chunks, more than MaxChunks (" + strconv.Itoa(MaxChunks) + ")"}
	}
	return nil
}

// maxQuoted is how much of a rejected expression an error message quotes.
const maxQuoted = 64

// quoteExpr quotes s for an error message, cut after maxQuoted bytes.
func quoteExpr(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:maxQuoted]) + "..."
}
