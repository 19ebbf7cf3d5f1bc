package ddsperf

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/afor-go/afor/internal/netns"
)

// TestMain runs the tests in a loopback-only network namespace (see package
// netns) and checks that they leak no goroutine.
func TestMain(m *testing.M) {
	if code, done := netns.Exec(); done {
		os.Exit(code)
	}
	goleak.VerifyTestMain(m)
}
