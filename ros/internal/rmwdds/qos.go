package rmwdds

import (
	"time"

	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/transport/dds"
)

// MaxBlocking is the RELIABILITY max_blocking_time every ROS 2 endpoint
// announces (rmw_fastrtps and rmw_cyclonedds: 100 ms).
const MaxBlocking = 100 * time.Millisecond

// maxFinite is the longest duration DDS carries as finite: DURATION_INFINITE
// has 0x7fffffff seconds.
const maxFinite = (1<<31 - 1) * time.Second

// DDSQoS maps a ROS QoS profile onto the DDS QoS of an endpoint, as
// rmw_fastrtps does: system defaults become RELIABLE, VOLATILE, KEEP_LAST
// and AUTOMATIC liveliness; the depth goes into HISTORY (a KEEP_LAST depth
// of 0 becomes 1, the DDS default); zero deadline, lifespan and liveliness
// lease stay zero, which package dds announces as infinite; max_blocking
// is MaxBlocking. typeHash, when not empty, becomes the endpoint's
// "typehash=…;" USER_DATA.
func DDSQoS(q rmw.QoS, typeHash string) (dds.QoS, error) {
	var out dds.QoS
	switch q.Reliability {
	case rmw.ReliabilitySystemDefault, rmw.ReliabilityReliable:
		out.Reliability = dds.Reliable
	case rmw.ReliabilityBestEffort:
		out.Reliability = dds.BestEffort
	default:
		return dds.QoS{}, errorf(ErrInvalid, "reliability %d", q.Reliability)
	}
	switch q.Durability {
	case rmw.DurabilitySystemDefault, rmw.DurabilityVolatile:
		out.Durability = dds.Volatile
	case rmw.DurabilityTransientLocal:
		out.Durability = dds.TransientLocal
	default:
		return dds.QoS{}, errorf(ErrInvalid, "durability %d", q.Durability)
	}
	if q.Depth < 0 {
		return dds.QoS{}, errorf(ErrInvalid, "depth %d", q.Depth)
	}
	switch q.History {
	case rmw.HistorySystemDefault, rmw.HistoryKeepLast:
		out.History = dds.KeepLast
		out.Depth = max(q.Depth, 1)
	case rmw.HistoryKeepAll:
		out.History = dds.KeepAll
	default:
		return dds.QoS{}, errorf(ErrInvalid, "history %d", q.History)
	}
	switch q.Liveliness {
	case rmw.LivelinessSystemDefault, rmw.LivelinessAutomatic:
		out.Liveliness = dds.Automatic
	case rmw.LivelinessManualByTopic:
		out.Liveliness = dds.ManualByTopic
	default:
		return dds.QoS{}, errorf(ErrInvalid, "liveliness %d", q.Liveliness)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"deadline", q.Deadline}, {"lifespan", q.Lifespan}, {"liveliness lease", q.LivelinessLease}} {
		if d.v < 0 {
			return dds.QoS{}, errorf(ErrInvalid, "negative %s %v", d.name, d.v)
		}
	}
	out.Deadline = q.Deadline
	out.Lifespan = q.Lifespan
	out.LivelinessLease = q.LivelinessLease
	out.MaxBlocking = MaxBlocking
	if typeHash != "" {
		ud, err := TypeHashUserData(typeHash)
		if err != nil {
			return dds.QoS{}, err
		}
		out.UserData = ud
	}
	return out, nil
}

// finite maps DDS's infinite durations (zero, or 2³¹ s and more) to rmw's
// zero.
func finite(d time.Duration) time.Duration {
	if d <= 0 || d >= maxFinite {
		return 0
	}
	return d
}

// ROSQoS maps the QoS a remote endpoint announces back to a ROS profile,
// for the graph. historyKnown says whether the endpoint announced HISTORY:
// Fast DDS never does, and then the profile has HistorySystemDefault and
// depth 0 (rmw reports it as unknown). Infinite durations become zero.
// MANUAL_BY_PARTICIPANT liveliness is rmw's deprecated MANUAL_BY_NODE (2).
func ROSQoS(q dds.QoS, historyKnown bool) rmw.QoS {
	out := rmw.QoS{
		Reliability:     rmw.ReliabilityReliable,
		Durability:      rmw.DurabilityVolatile,
		Liveliness:      rmw.LivelinessAutomatic,
		Deadline:        finite(q.Deadline),
		Lifespan:        finite(q.Lifespan),
		LivelinessLease: finite(q.LivelinessLease),
	}
	if q.Reliability == dds.BestEffort {
		out.Reliability = rmw.ReliabilityBestEffort
	}
	if q.Durability == dds.TransientLocal {
		out.Durability = rmw.DurabilityTransientLocal
	}
	switch q.Liveliness {
	case dds.ManualByParticipant:
		out.Liveliness = 2
	case dds.ManualByTopic:
		out.Liveliness = rmw.LivelinessManualByTopic
	}
	if historyKnown {
		if q.History == dds.KeepAll {
			out.History = rmw.HistoryKeepAll
		} else {
			out.History = rmw.HistoryKeepLast
			out.Depth = q.Depth
		}
	}
	return out
}
