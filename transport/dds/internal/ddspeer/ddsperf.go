package ddspeer

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/peers"
)

// DDSPerf returns the path of Cyclone DDS's ddsperf (Debian's
// cyclonedds-tools), the benchmark peer: "ddsperf pong" answers the Go
// side's pings, "ddsperf sub" and "ddsperf pub" measure throughput.
func DDSPerf(t testing.TB) string {
	t.Helper()
	return peers.Command(t, "ddsperf")
}

// StartDDSPerf runs ddsperf (see [DDSPerf]) with args as a peer, for example
// "pong", or "-D", "10", "ping", "size", "64". Its lines are ddsperf's
// statistics, one a second: read them with [Peer.WaitLine] and
// [ParsePingLine] or [ParseSubLine].
func StartDDSPerf(t testing.TB, args ...string) *Peer {
	t.Helper()
	cmd := exec.Command(DDSPerf(t), args...)
	cmd.Env = env()
	return start(t, "ddsperf "+strings.Join(args, " "), cmd)
}

// PingStats is one second of round trips measured by "ddsperf ping".
type PingStats struct {
	Size   int           // payload size in bytes
	Mean   time.Duration // half the round trips ((now - ping time) / 2, as ddsperf prints them)
	Median time.Duration
	P90    time.Duration
	P99    time.Duration
	Count  int // round trips in the second
}

// ParsePingLine decodes a statistics line of "ddsperf ping", such as
//
//	[18678] 7.000  vm:18677 size 64 mean 16.020us min 8.877us 50% 12.308us 90% 13.940us 99% 47.585us max 3005.557us cnt 31092
//
// and reports false for other lines.
func ParsePingLine(line string) (PingStats, bool) {
	f := fieldsOf(line)
	var s PingStats
	var ok [7]bool
	s.Size, ok[0] = f.int("size")
	s.Mean, ok[1] = f.dur("mean")
	s.Median, ok[2] = f.dur("50%")
	s.P90, ok[3] = f.dur("90%")
	s.P99, ok[4] = f.dur("99%")
	s.Count, ok[5] = f.int("cnt")
	ok[6] = true
	for _, b := range ok {
		if !b {
			return PingStats{}, false
		}
	}
	return s, true
}

// SubStats is one second of reception measured by "ddsperf sub".
type SubStats struct {
	Size    int     // payload size in bytes
	Total   int     // samples received so far
	Lost    int     // samples lost so far
	Rate    float64 // samples per second over the last second
	MbitSec float64 // megabits per second over the last second
}

// ParseSubLine decodes a statistics line of "ddsperf sub", such as
//
//	[19078] 9.002  size 64 total 5896296 lost 0 delta 593224 lost 0 rate 591.99 kS/s 303.10 Mb/s (588.40 kS/s 301.26 Mb/s)
//
// and reports false for other lines.
func ParseSubLine(line string) (SubStats, bool) {
	f := fieldsOf(line)
	var s SubStats
	var ok1, ok2, ok3, ok4, ok5 bool
	s.Size, ok1 = f.int("size")
	s.Total, ok2 = f.int("total")
	s.Lost, ok3 = f.int("lost")
	i := f.index("rate")
	if i < 0 || i+4 >= len(f) {
		return SubStats{}, false
	}
	s.Rate, ok4 = scaled(f[i+1], f[i+2], "S/s")
	s.MbitSec, ok5 = scaled(f[i+3], f[i+4], "b/s")
	if !(ok1 && ok2 && ok3 && ok4 && ok5) {
		return SubStats{}, false
	}
	s.MbitSec /= 1e6
	return s, true
}

// fields are the words of a ddsperf line.
type fields []string

func (f fields) index(key string) int {
	for i, w := range f {
		if w == key {
			return i
		}
	}
	return -1
}

// after returns the word following the first key.
func (f fields) after(key string) (string, bool) {
	i := f.index(key)
	if i < 0 || i+1 >= len(f) {
		return "", false
	}
	return f[i+1], true
}

func (f fields) int(key string) (int, bool) {
	w, ok := f.after(key)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(w)
	return n, err == nil
}

func (f fields) dur(key string) (time.Duration, bool) {
	w, ok := f.after(key)
	if !ok {
		return 0, false
	}
	d, err := time.ParseDuration(w)
	return d, err == nil
}

// scaled reads a number and its unit, such as "591.99" "kS/s", as a value in
// the base unit.
func scaled(num, unit, base string) (float64, bool) {
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, false
	}
	prefix, ok := strings.CutSuffix(unit, base)
	if !ok {
		return 0, false
	}
	switch prefix {
	case "":
	case "k":
		v *= 1e3
	case "M":
		v *= 1e6
	case "G":
		v *= 1e9
	default:
		return 0, false
	}
	return v, true
}

func fieldsOf(line string) fields { return fields(strings.Fields(line)) }
