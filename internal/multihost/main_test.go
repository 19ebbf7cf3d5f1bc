//go:build linux

package multihost_test

import (
	"os"
	"testing"

	"github.com/afor-go/afor/internal/netns/hosts"
)

// TestMain runs the roles the tests start on their hosts, or the tests in
// their namespace.
func TestMain(m *testing.M) {
	os.Exit(hosts.Main(m, map[string]hosts.Role{"node": nodeRole, "probe": probeRole, "sniff": sniffRole}))
}
