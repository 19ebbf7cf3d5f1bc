package scenario

import (
	"slices"
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

// A row of 3 seconds averages the subscriber's second and third lines: not
// the warm-up, not the line printed after the publisher ended.
func TestMeasuredSubLine(t *testing.T) {
	var got []int
	for n := 1; n <= 5; n++ {
		if measuredSubLine(n, 3) {
			got = append(got, n)
		}
	}
	if !slices.Equal(got, []int{2, 3}) {
		t.Fatalf("measured lines %v, want [2 3]", got)
	}
}
