package lifecycle_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/afor-go/afor/internal/netns"
)

// TestMain runs the tests in a loopback-only network namespace (see package
// netns), where the DDS middleware and its rclpy peers on Fast DDS reach
// each other over 127.0.0.1 only, and fails them if they leave goroutines
// behind.
func TestMain(m *testing.M) {
	if code, done := netns.Exec(); done {
		os.Exit(code)
	}
	goleak.VerifyTestMain(m)
}
