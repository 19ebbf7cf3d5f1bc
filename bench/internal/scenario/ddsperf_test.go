package scenario

import (
	"testing"
	"time"
)

// TestDDSPerfRows runs the ddsperf reference rows when ddsperf is
// installed: they measure something, or say why not.
func TestDDSPerfRows(t *testing.T) {
	if testing.Short() {
		t.Skip("ddsperf rows take seconds")
	}
	e := RunDDSPerfEcho(t.Context(), EchoConfig{Size: 64, Duration: 100 * time.Millisecond})
	if e.Skipped != "" {
		t.Skip(e.Skipped)
	}
	if e.Error != "" || e.NsPerOp <= 0 || e.Ops <= 0 {
		t.Errorf("echo row: %+v", e)
	}
	tp := RunDDSPerfThroughput(t.Context(), ThroughputConfig{Size: 64, Duration: 100 * time.Millisecond})
	if tp.Error != "" || tp.Rate <= 0 || tp.BytesPerSec <= 0 {
		t.Errorf("throughput row: %+v", tp)
	}
}
