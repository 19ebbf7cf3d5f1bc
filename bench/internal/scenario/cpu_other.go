//go:build !unix

package scenario

import "time"

// cpuTime is not measured on this system: rows report 0% CPU.
func cpuTime() time.Duration { return 0 }
