package ddsperf

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// ParsePingLine reads the mean latency (half the round trip, as ddsperf
// reports it) and the count of a ping statistics line such as "[18678]
// 7.000  vm:18677 size 64 mean 16.020us min 8.877us 50% 12.308us 90%
// 13.940us 99% 47.585us max 3005.557us cnt 31092", printed by Cyclone's
// ddsperf or by this package.
func ParsePingLine(l string) (mean time.Duration, count int64, ok bool) {
	f := strings.Fields(l)
	i, j := slices.Index(f, "mean"), slices.Index(f, "cnt")
	if i < 0 || j < 0 || i+1 >= len(f) || j+1 >= len(f) {
		return 0, 0, false
	}
	mean, err := time.ParseDuration(strings.TrimSuffix(f[i+1], "us") + "us")
	if err != nil {
		return 0, 0, false
	}
	count, err = strconv.ParseInt(f[j+1], 10, 64)
	return mean, count, err == nil
}

// ParseSubLine reads the rate (samples/s), the total received and the
// total lost of a sub statistics line such as "[19078] 9.002  size 64
// total 5896296 lost 0 delta 593224 lost 0 rate 591.99 kS/s 303.10 Mb/s
// (588.40 kS/s 301.26 Mb/s)".
func ParseSubLine(l string) (rate float64, total, lost int64, ok bool) {
	f := strings.Fields(l)
	i, j, k := slices.Index(f, "rate"), slices.Index(f, "total"), slices.Index(f, "lost")
	if i < 0 || j < 0 || k < 0 || i+2 >= len(f) || j+1 >= len(f) || k+1 >= len(f) {
		return 0, 0, 0, false
	}
	v, err := strconv.ParseFloat(f[i+1], 64)
	if err != nil {
		return 0, 0, 0, false
	}
	switch f[i+2] {
	case "S/s":
	case "kS/s":
		v *= 1e3
	case "MS/s":
		v *= 1e6
	default:
		return 0, 0, 0, false
	}
	total, err1 := strconv.ParseInt(f[j+1], 10, 64)
	lost, err2 := strconv.ParseInt(f[k+1], 10, 64)
	return v, total, lost, err1 == nil && err2 == nil
}
