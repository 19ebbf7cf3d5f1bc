//go:build !unix

package zenoh

import (
	"testing"
	"time"
)

// cpuTime skips the test: the process's CPU time is read with getrusage.
func cpuTime(t *testing.T) time.Duration {
	t.Skip("the CPU-time bounds need getrusage (unix)")
	return 0
}
