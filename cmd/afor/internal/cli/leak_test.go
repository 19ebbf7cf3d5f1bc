package cli

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the tests if they leave goroutines behind: every command
// closes what it opened, Ctrl-C included.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
