package peers

import (
	"os/exec"
	"testing"
)

// Command returns the path of name, a reference-peer program installed from
// Debian packages (.ci/apt-packages.txt, installed by .ci/setup-peers), such
// as Cyclone DDS's idlc and ddsperf. When it is not on PATH the test is
// skipped, or failed in CI, where .ci/setup-peers must have installed it.
func Command(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		missing(t, name+" not found on PATH: run .ci/setup-peers (its Debian package is in .ci/apt-packages.txt): "+err.Error())
		return ""
	}
	return p
}
