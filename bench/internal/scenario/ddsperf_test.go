package scenario

import (
	"testing"
	"time"
)

func TestParseDDSPerfLines(t *testing.T) {
	mean, cnt, ok := parsePingLine("[18678] 7.000  vm:18677 size 64 mean 16.020us min 8.877us 50% 12.308us 90% 13.940us 99% 47.585us max 3005.557us cnt 31092")
	if !ok || mean != 16020*time.Nanosecond || cnt != 31092 {
		t.Errorf("ping line: %v %d %v", mean, cnt, ok)
	}
	rate, total, ok := parseSubLine("[19078] 9.002  size 64 total 5896296 lost 0 delta 593224 lost 0 rate 591.99 kS/s 303.10 Mb/s (588.40 kS/s 301.26 Mb/s)")
	if !ok || rate != 591990 || total != 5896296 {
		t.Errorf("sub line: %v %d %v", rate, total, ok)
	}
	for _, l := range []string{"", "[1] 1.000 ddsperf: waiting for peers", "size 64 mean", "mean x cnt 3", "total 1 rate 5 GS/s x"} {
		if _, _, ok := parsePingLine(l); ok {
			t.Errorf("ping line %q parsed", l)
		}
		if _, _, ok := parseSubLine(l); ok {
			t.Errorf("sub line %q parsed", l)
		}
	}
}

func FuzzParseDDSPerfLines(f *testing.F) {
	f.Add("[18678] 7.000  vm:18677 size 64 mean 16.020us min 8.877us cnt 31092")
	f.Add("[19078] 9.002  size 64 total 5896296 lost 0 rate 591.99 kS/s 303.10 Mb/s")
	f.Fuzz(func(t *testing.T, l string) {
		parsePingLine(l)
		parseSubLine(l)
	})
}

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
