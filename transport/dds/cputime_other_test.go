//go:build !unix

package dds

import "time"

// cpuTime reports no CPU time where getrusage is missing, so the attack
// tests bound only the heap there.
func cpuTime() time.Duration { return 0 }
