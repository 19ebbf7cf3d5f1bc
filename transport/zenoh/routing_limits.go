package zenoh

import (
	"errors"
	"fmt"
	"strings"

	"github.com/afor-go/afor/keyexpr"
)

// Names of the key expression limits in Stats.ByLimit. They are the
// constants of package keyexpr that set them: a remote that sends a key
// expression over either (in any declaration, publication or query) loses
// its link, because the Rust stack cannot survive such keys when they are
// relayed to it (see keyexpr.MaxLen).
const (
	LimitKeyLen    = "keyexpr.MaxLen"
	LimitKeyChunks = "keyexpr.MaxChunks"
)

// checkPeerKey ends link l, logging and counting it, when the key
// expression key it sent is over the keyexpr limits; the error tells the
// reader that the link is closed. err, when not nil, is the error of
// canonizing key, which is checked the same way. Otherwise it returns nil.
// It costs O(1) for keys shorter than 2*keyexpr.MaxChunks bytes.
func (l *link) checkPeerKey(key string, err error) error {
	if err == nil {
		err = keyexpr.CheckLimits(key)
	}
	if err == nil || !errors.Is(err, keyexpr.ErrTooLong) {
		return nil
	}
	if ke := (*keyexpr.Error)(nil); errors.As(err, &ke) {
		key = ke.Expr // the key as received, when canonizing it failed
	}
	le := &limitError{limit: LimitKeyLen, max: keyexpr.MaxLen, what: fmt.Sprintf("a key expression of %d bytes", len(key))}
	if len(key) <= keyexpr.MaxLen {
		n := strings.Count(key, "/") + 1
		le = &limitError{limit: LimitKeyChunks, max: keyexpr.MaxChunks, what: fmt.Sprintf("a key expression of %d chunks", n)}
	}
	l.closeForLimit(le)
	return errLinkClosed
}
