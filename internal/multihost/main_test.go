//go:build linux

package multihost_test

import (
	"os"
	"testing"

	"github.com/afor-go/afor/internal/netns"
	"github.com/afor-go/afor/internal/netns/hosts"
	"go.uber.org/goleak"
)

// TestMain runs the roles the tests start on their hosts, or the tests in
// their namespace, and fails them if they leave goroutines behind.
func TestMain(m *testing.M) {
	if code, done := hosts.RunRole(map[string]hosts.Role{"node": nodeRole, "probe": probeRole, "sniff": sniffRole}); done {
		os.Exit(code)
	}
	if code, done := netns.Exec(); done {
		os.Exit(code)
	}
	goleak.VerifyTestMain(m)
}
