package ros

import (
	"fmt"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/internal/rmw"
)

// History says how many samples a publisher or subscription keeps.
type History uint8

// Reliability says whether delivery is retried.
type Reliability uint8

// Durability says whether late-joining subscriptions get samples published
// before they joined.
type Durability uint8

// Liveliness says how a publisher's liveliness is asserted.
type Liveliness uint8

// Values of the QoS policies, with the numbers of rmw/types.h.
const (
	HistorySystemDefault History = 0
	KeepLast             History = 1 // keep the last Depth samples
	KeepAll              History = 2 // keep every sample, within resource limits

	ReliabilitySystemDefault Reliability = 0
	Reliable                 Reliability = 1
	BestEffort               Reliability = 2

	DurabilitySystemDefault Durability = 0
	TransientLocal          Durability = 1 // late joiners get the kept samples
	Volatile                Durability = 2

	LivelinessSystemDefault Liveliness = 0
	LivelinessAutomatic     Liveliness = 1
	LivelinessManualByTopic Liveliness = 3
)

func (h History) String() string {
	switch h {
	case HistorySystemDefault:
		return "system_default"
	case KeepLast:
		return "keep_last"
	case KeepAll:
		return "keep_all"
	}
	return fmt.Sprintf("History(%d)", uint8(h))
}

func (r Reliability) String() string {
	switch r {
	case ReliabilitySystemDefault:
		return "system_default"
	case Reliable:
		return "reliable"
	case BestEffort:
		return "best_effort"
	}
	return fmt.Sprintf("Reliability(%d)", uint8(r))
}

func (d Durability) String() string {
	switch d {
	case DurabilitySystemDefault:
		return "system_default"
	case TransientLocal:
		return "transient_local"
	case Volatile:
		return "volatile"
	}
	return fmt.Sprintf("Durability(%d)", uint8(d))
}

func (l Liveliness) String() string {
	switch l {
	case LivelinessSystemDefault:
		return "system_default"
	case LivelinessAutomatic:
		return "automatic"
	case LivelinessManualByTopic:
		return "manual_by_topic"
	}
	return fmt.Sprintf("Liveliness(%d)", uint8(l))
}

// QoS is a ROS 2 quality-of-service profile. Start from one of the named
// profiles and change what differs:
//
//	q := ros.QoSDefault.WithDepth(1).WithDurability(ros.TransientLocal)
//
// A zero duration means infinite (not set), as in rmw.
type QoS struct {
	History         History
	Depth           int // samples kept with KeepLast; 0 is the middleware's default
	Reliability     Reliability
	Durability      Durability
	Deadline        time.Duration // longest expected time between samples
	Lifespan        time.Duration // how long a sample stays valid
	Liveliness      Liveliness
	LivelinessLease time.Duration
}

// The profiles ROS 2 names (rmw/qos_profiles.h, rcl's rosout profile).
// They are values: assigning one copies it.
var (
	// QoSDefault is rmw_qos_profile_default: keep last 10, reliable,
	// volatile.
	QoSDefault = QoS{History: KeepLast, Depth: 10, Reliability: Reliable, Durability: Volatile}
	// QoSSensorData is rmw_qos_profile_sensor_data: keep last 5, best
	// effort, volatile.
	QoSSensorData = QoS{History: KeepLast, Depth: 5, Reliability: BestEffort, Durability: Volatile}
	// QoSServices is rmw_qos_profile_services_default: keep last 10,
	// reliable, volatile.
	QoSServices = QoS{History: KeepLast, Depth: 10, Reliability: Reliable, Durability: Volatile}
	// QoSParameters is rmw_qos_profile_parameters: keep last 1000,
	// reliable, volatile.
	QoSParameters = QoS{History: KeepLast, Depth: 1000, Reliability: Reliable, Durability: Volatile}
	// QoSParameterEvents is rmw_qos_profile_parameter_events: keep last
	// 1000, reliable, volatile.
	QoSParameterEvents = QoS{History: KeepLast, Depth: 1000, Reliability: Reliable, Durability: Volatile}
	// QoSRosout is rcl_qos_profile_rosout_default: keep last 1000,
	// reliable, transient local, lifespan 10 s.
	QoSRosout = QoS{History: KeepLast, Depth: 1000, Reliability: Reliable, Durability: TransientLocal, Lifespan: 10 * time.Second}
	// QoSSystemDefault is rmw_qos_profile_system_default: every policy left
	// to the middleware.
	QoSSystemDefault = QoS{}
)

// QoSKeepLast returns QoSDefault keeping the last depth samples.
func QoSKeepLast(depth int) QoS { return QoSDefault.WithDepth(depth) }

// QoSKeepAll returns QoSDefault keeping every sample.
func QoSKeepAll() QoS { q := QoSDefault; q.History, q.Depth = KeepAll, 0; return q }

// QoSTransientLocal returns the profile of latched topics: keep last depth,
// reliable, transient local.
func QoSTransientLocal(depth int) QoS { return QoSKeepLast(depth).WithDurability(TransientLocal) }

// WithDepth returns q keeping the last depth samples.
func (q QoS) WithDepth(depth int) QoS { q.History, q.Depth = KeepLast, depth; return q }

// WithReliability returns q with reliability r.
func (q QoS) WithReliability(r Reliability) QoS { q.Reliability = r; return q }

// WithDurability returns q with durability d.
func (q QoS) WithDurability(d Durability) QoS { q.Durability = d; return q }

// WithDeadline returns q with deadline d: a publisher offers to publish,
// a subscription expects a message, at least once every d (0: no
// deadline). Missed deadlines are QoS events ([Publisher.Events],
// [SubscriptionEventsOf]); over DDS a subscription matches only a
// publisher offering a deadline no longer than its own.
func (q QoS) WithDeadline(d time.Duration) QoS { q.Deadline = d; return q }

// WithLifespan returns q with lifespan d: a message older than d is not
// delivered to late joiners (0: forever).
func (q QoS) WithLifespan(d time.Duration) QoS { q.Lifespan = d; return q }

// WithLiveliness returns q with liveliness kind l and lease (0: infinite):
// how a publisher's liveliness is asserted (LivelinessAutomatic: by the
// middleware; LivelinessManualByTopic: by publishing) and within which
// lease, or for a subscription, the longest lease it accepts.
func (q QoS) WithLiveliness(l Liveliness, lease time.Duration) QoS {
	q.Liveliness, q.LivelinessLease = l, lease
	return q
}

// Validate reports, as an error matching ErrInvalidQoS, a policy value that
// does not exist, a negative depth, or a negative duration.
func (q QoS) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidQoS, fmt.Sprintf(format, args...))
	}
	switch {
	case q.History > KeepAll:
		return bad("unknown history %d", q.History)
	case q.Reliability > BestEffort:
		return bad("unknown reliability %d", q.Reliability)
	case q.Durability > Volatile:
		return bad("unknown durability %d", q.Durability)
	case q.Liveliness != LivelinessSystemDefault && q.Liveliness != LivelinessAutomatic && q.Liveliness != LivelinessManualByTopic:
		return bad("unknown liveliness %d", q.Liveliness)
	case q.Depth < 0:
		return bad("negative depth %d", q.Depth)
	case q.Deadline < 0:
		return bad("negative deadline %v", q.Deadline)
	case q.Lifespan < 0:
		return bad("negative lifespan %v", q.Lifespan)
	case q.LivelinessLease < 0:
		return bad("negative liveliness lease %v", q.LivelinessLease)
	}
	return nil
}

func (q QoS) String() string {
	s := q.History.String()
	if q.History != KeepAll {
		s += fmt.Sprintf("(%d)", q.Depth)
	}
	s += ", " + q.Reliability.String() + ", " + q.Durability.String()
	if q.Deadline > 0 {
		s += fmt.Sprintf(", deadline %v", q.Deadline)
	}
	if q.Lifespan > 0 {
		s += fmt.Sprintf(", lifespan %v", q.Lifespan)
	}
	if q.Liveliness != LivelinessSystemDefault || q.LivelinessLease > 0 {
		s += ", liveliness " + q.Liveliness.String()
		if q.LivelinessLease > 0 {
			s += fmt.Sprintf(" lease %v", q.LivelinessLease)
		}
	}
	return s
}

// queueDepth is how many messages a subscription with q keeps for a slow
// consumer: its KEEP_LAST depth (the default 10 for the system default),
// afor.MaxBacklog for KEEP_ALL.
func (q QoS) queueDepth() int {
	switch {
	case q.History == KeepAll:
		return afor.MaxBacklog
	case q.Depth > 0:
		return q.Depth
	}
	return afor.DefaultQueueSize
}

func (q QoS) rmw() rmw.QoS {
	return rmw.QoS{
		History:         rmw.History(q.History),
		Depth:           q.Depth,
		Reliability:     rmw.Reliability(q.Reliability),
		Durability:      rmw.Durability(q.Durability),
		Deadline:        q.Deadline,
		Lifespan:        q.Lifespan,
		Liveliness:      rmw.Liveliness(q.Liveliness),
		LivelinessLease: q.LivelinessLease,
	}
}

func qosFromRMW(q rmw.QoS) QoS {
	return QoS{
		History:         History(q.History),
		Depth:           q.Depth,
		Reliability:     Reliability(q.Reliability),
		Durability:      Durability(q.Durability),
		Deadline:        q.Deadline,
		Lifespan:        q.Lifespan,
		Liveliness:      Liveliness(q.Liveliness),
		LivelinessLease: q.LivelinessLease,
	}
}
