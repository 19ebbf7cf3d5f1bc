package rmwzenoh

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/afor-go/afor/ros/internal/rmw"
)

// rmw_zenoh's defaults: the values a QoS string leaves empty, and the
// values given to system-default policies and depth 0.
const (
	defaultDepth = 42
	// infiniteSec and infiniteNsec are the halves of RMW_DURATION_INFINITE,
	// compared one by one when a duration is written.
	infiniteSec  = 9223372036
	infiniteNsec = 854775807
)

// adaptQoS replaces the system-default values of q by rmw_zenoh's
// defaults (reliable, volatile, keep last, depth 42, automatic
// liveliness), as rmw_zenoh does before using or announcing a profile.
// Negative depths and durations are errors.
func adaptQoS(q rmw.QoS) (rmw.QoS, error) {
	if q.Depth < 0 {
		return q, fmt.Errorf("%w: negative QoS depth %d", ErrInvalid, q.Depth)
	}
	if q.Deadline < 0 || q.Lifespan < 0 || q.LivelinessLease < 0 {
		return q, fmt.Errorf("%w: negative QoS duration", ErrInvalid)
	}
	switch q.Reliability {
	case rmw.ReliabilitySystemDefault:
		q.Reliability = rmw.ReliabilityReliable
	case rmw.ReliabilityReliable, rmw.ReliabilityBestEffort:
	default:
		return q, fmt.Errorf("%w: reliability %d", ErrInvalid, q.Reliability)
	}
	switch q.Durability {
	case rmw.DurabilitySystemDefault:
		q.Durability = rmw.DurabilityVolatile
	case rmw.DurabilityVolatile, rmw.DurabilityTransientLocal:
	default:
		return q, fmt.Errorf("%w: durability %d", ErrInvalid, q.Durability)
	}
	switch q.History {
	case rmw.HistorySystemDefault:
		q.History = rmw.HistoryKeepLast
	case rmw.HistoryKeepLast, rmw.HistoryKeepAll:
	default:
		return q, fmt.Errorf("%w: history %d", ErrInvalid, q.History)
	}
	switch q.Liveliness {
	case rmw.LivelinessSystemDefault:
		q.Liveliness = rmw.LivelinessAutomatic
	case rmw.LivelinessAutomatic, rmw.LivelinessManualByTopic:
	default:
		return q, fmt.Errorf("%w: liveliness %d", ErrInvalid, q.Liveliness)
	}
	if q.Depth == 0 {
		q.Depth = defaultDepth
	}
	return q, nil
}

// qosString writes a QoS profile as rmw_zenoh writes it at the end of an
// entity's liveliness token:
//
//	rel:dur:hist,depth:deadline_s,deadline_ns:lifespan_s,lifespan_ns:liveliness,lease_s,lease_ns
//
// with every field equal to rmw_zenoh's default left empty. q should have
// been through adaptQoS; system defaults are written as the values
// adaptQoS gives them.
func qosString(q rmw.QoS) string {
	if a, err := adaptQoS(q); err == nil {
		q = a
	}
	b := make([]byte, 0, 32)
	field := func(v, def int64) {
		if v != def {
			b = strconv.AppendInt(b, v, 10)
		}
	}
	duration := func(d time.Duration) {
		sec, nsec := int64(infiniteSec), int64(infiniteNsec)
		if d > 0 && d < math.MaxInt64 {
			sec, nsec = int64(d/time.Second), int64(d%time.Second)
		}
		field(sec, infiniteSec)
		b = append(b, ',')
		field(nsec, infiniteNsec)
	}
	field(int64(q.Reliability), int64(rmw.ReliabilityReliable))
	b = append(b, ':')
	field(int64(q.Durability), int64(rmw.DurabilityVolatile))
	b = append(b, ':')
	field(int64(q.History), int64(rmw.HistoryKeepLast))
	b = append(b, ',')
	field(int64(q.Depth), defaultDepth)
	b = append(b, ':')
	duration(q.Deadline)
	b = append(b, ':')
	duration(q.Lifespan)
	b = append(b, ':')
	field(int64(q.Liveliness), int64(rmw.LivelinessAutomatic))
	b = append(b, ',')
	duration(q.LivelinessLease)
	return string(b)
}

// parseQoS reads a QoS string written by qosString (or by rmw_zenoh): empty
// fields take rmw_zenoh's defaults, an infinite duration is 0, and the
// result is adapted as adaptQoS does (system defaults and depth 0 replaced
// by rmw_zenoh's defaults).
func parseQoS(s string) (rmw.QoS, error) {
	bad := func(why string) (rmw.QoS, error) {
		return rmw.QoS{}, fmt.Errorf("%w: QoS string %q: %s", ErrMalformed, s, why)
	}
	parts := strings.Split(s, ":")
	if len(parts) != 6 {
		return bad("want 6 ':'-separated fields")
	}
	num := func(f string, def, limit int64) (int64, bool) {
		if f == "" {
			return def, true
		}
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil || v < 0 || v > limit {
			return 0, false
		}
		return v, true
	}
	enum := func(f string, def int64) (uint8, bool) {
		v, ok := num(f, def, 3)
		return uint8(v), ok
	}
	pair := func(f string) (string, string, bool) {
		a, b, ok := strings.Cut(f, ",")
		return a, b, ok && !strings.Contains(b, ",")
	}
	duration := func(f string) (time.Duration, bool) {
		a, b, ok := pair(f)
		if !ok {
			return 0, false
		}
		sec, ok1 := num(a, infiniteSec, math.MaxInt64)
		nsec, ok2 := num(b, infiniteNsec, math.MaxInt64)
		if !ok1 || !ok2 {
			return 0, false
		}
		if sec == infiniteSec && nsec == infiniteNsec {
			return 0, true
		}
		if nsec >= int64(time.Second) || sec > infiniteSec || (sec == infiniteSec && nsec > infiniteNsec) {
			return 0, false
		}
		return time.Duration(sec)*time.Second + time.Duration(nsec), true
	}
	var q rmw.QoS
	var ok bool
	rel, ok := enum(parts[0], int64(rmw.ReliabilityReliable))
	if !ok {
		return bad("reliability")
	}
	dur, ok := enum(parts[1], int64(rmw.DurabilityVolatile))
	if !ok {
		return bad("durability")
	}
	h, d, ok := pair(parts[2])
	if !ok {
		return bad("history,depth")
	}
	hist, ok := enum(h, int64(rmw.HistoryKeepLast))
	if !ok {
		return bad("history")
	}
	depth, ok := num(d, defaultDepth, math.MaxInt32)
	if !ok {
		return bad("depth")
	}
	q.Reliability, q.Durability, q.History, q.Depth = rmw.Reliability(rel), rmw.Durability(dur), rmw.History(hist), int(depth)
	if q.Deadline, ok = duration(parts[3]); !ok {
		return bad("deadline")
	}
	if q.Lifespan, ok = duration(parts[4]); !ok {
		return bad("lifespan")
	}
	l, lease, ok := strings.Cut(parts[5], ",")
	if !ok {
		return bad("liveliness")
	}
	liv, ok := enum(l, int64(rmw.LivelinessAutomatic))
	if !ok {
		return bad("liveliness")
	}
	q.Liveliness = rmw.Liveliness(liv)
	if q.LivelinessLease, ok = duration(lease); !ok {
		return bad("liveliness lease")
	}
	a, err := adaptQoS(q)
	if err != nil {
		return bad(err.Error())
	}
	return a, nil
}
