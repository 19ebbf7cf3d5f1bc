package bag

import (
	"fmt"
	"strconv"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/afor-go/afor/ros"
)

// QoS is a QoS profile as rosbag2 records it for each publisher of a topic
// (offered_qos_profiles): the rmw policy values, "unknown" and
// "best_available" included, which [ros.QoS] has no room for. A zero
// duration means infinite (rmw's RMW_DURATION_INFINITE in the file).
type QoS struct {
	History         QoSPolicy // rmw history: 0 system_default, 1 keep_last, 2 keep_all, 3 unknown
	Depth           int
	Reliability     QoSPolicy // 0 system_default, 1 reliable, 2 best_effort, 3 unknown, 4 best_available
	Durability      QoSPolicy // 0 system_default, 1 transient_local, 2 volatile, 3 unknown, 4 best_available
	Deadline        time.Duration
	Lifespan        time.Duration
	Liveliness      QoSPolicy // 0 system_default, 1 automatic, 2 manual_by_node, 3 manual_by_topic, 4 unknown, 5 best_available
	LivelinessLease time.Duration
	// AvoidROSNamespaceConventions is rmw's flag of the same name.
	AvoidROSNamespaceConventions bool
}

// QoSPolicy is the number of an rmw QoS policy value.
type QoSPolicy uint8

// The rmw values with no [ros.QoS] counterpart.
const (
	HistoryUnknown       QoSPolicy = 3
	ReliabilityUnknown   QoSPolicy = 3
	ReliabilityBestAvail QoSPolicy = 4
	DurabilityUnknown    QoSPolicy = 3
	DurabilityBestAvail  QoSPolicy = 4
	LivelinessUnknown    QoSPolicy = 4
	LivelinessBestAvail  QoSPolicy = 5
)

// The names rmw_qos_*_policy_to_str gives the values (metadata version 9).
var (
	historyNames     = []string{"system_default", "keep_last", "keep_all", "unknown"}
	reliabilityNames = []string{"system_default", "reliable", "best_effort", "unknown", "best_available"}
	durabilityNames  = []string{"system_default", "transient_local", "volatile", "unknown", "best_available"}
	livelinessNames  = []string{"system_default", "automatic", "manual_by_node", "manual_by_topic", "unknown", "best_available"}
)

func policyName(names []string, v QoSPolicy) string {
	if int(v) < len(names) {
		return names[v]
	}
	return "unknown"
}

// QoSFromROS returns the profile rosbag2 records for an endpoint of the
// graph with QoS q. An unannounced history (a Fast DDS publisher's, which
// the graph gives as HistorySystemDefault and depth 0) is recorded as
// unknown, as rmw reports it.
func QoSFromROS(q ros.QoS) QoS {
	out := QoS{History: QoSPolicy(q.History), Depth: q.Depth, Reliability: QoSPolicy(q.Reliability),
		Durability: QoSPolicy(q.Durability), Deadline: q.Deadline, Lifespan: q.Lifespan,
		Liveliness: QoSPolicy(q.Liveliness), LivelinessLease: q.LivelinessLease}
	if q.History == ros.HistorySystemDefault && q.Depth == 0 {
		out.History = HistoryUnknown
	}
	return out
}

// ROS returns the profile to publish with: unknown and best-available
// values become the system default, and an unknown history keeps the last
// depth messages (10 when no depth was recorded).
func (q QoS) ROS() ros.QoS {
	out := ros.QoS{Depth: q.Depth, Deadline: q.Deadline, Lifespan: q.Lifespan, LivelinessLease: q.LivelinessLease}
	switch q.History {
	case 1, 2:
		out.History = ros.History(q.History)
	default:
		out.History = ros.KeepLast
	}
	if out.History == ros.KeepLast && out.Depth <= 0 {
		out.Depth = 10
	}
	if q.Reliability <= 2 {
		out.Reliability = ros.Reliability(q.Reliability)
	}
	if q.Durability <= 2 {
		out.Durability = ros.Durability(q.Durability)
	}
	if q.Liveliness == 1 || q.Liveliness == 3 {
		out.Liveliness = ros.Liveliness(q.Liveliness)
	}
	return out
}

// rmw's infinite duration, as rosbag2 writes it.
const (
	infiniteSec  = 9223372036
	infiniteNsec = 854775807
)

// yamlNode builds the node rosbag2 writes for a profile (version 9).
func (q QoS) yamlNode() *ynode {
	dur := func(d time.Duration) *ynode {
		sec, nsec := int64(infiniteSec), int64(infiniteNsec)
		if d > 0 {
			sec, nsec = int64(d/time.Second), int64(d%time.Second)
		}
		return ymap("sec", yint(sec), "nsec", yint(nsec))
	}
	return ymap(
		"history", yplain(policyName(historyNames, q.History)),
		"depth", yint(int64(q.Depth)),
		"reliability", yplain(policyName(reliabilityNames, q.Reliability)),
		"durability", yplain(policyName(durabilityNames, q.Durability)),
		"deadline", dur(q.Deadline),
		"lifespan", dur(q.Lifespan),
		"liveliness", yplain(policyName(livelinessNames, q.Liveliness)),
		"liveliness_lease_duration", dur(q.LivelinessLease),
		"avoid_ros_namespace_conventions", ybool(q.AvoidROSNamespaceConventions),
	)
}

// FormatQoSProfiles returns the YAML rosbag2 stores for a list of profiles
// (as the offered_qos_profiles metadata of an MCAP channel): yaml-cpp's
// block style, "[]" for none.
func FormatQoSProfiles(qs []QoS) string {
	return emitYAML(qosList(qs))
}

func qosList(qs []QoS) *ynode {
	n := yseq()
	for _, q := range qs {
		n.items = append(n.items, q.yamlNode())
	}
	return n
}

// qosYAML is a profile as either version writes it: policies as numbers
// (version 8 and before) or names (9).
type qosYAML struct {
	History                      yaml.Node `yaml:"history"`
	Depth                        int       `yaml:"depth"`
	Reliability                  yaml.Node `yaml:"reliability"`
	Durability                   yaml.Node `yaml:"durability"`
	Deadline                     rmwTime   `yaml:"deadline"`
	Lifespan                     rmwTime   `yaml:"lifespan"`
	Liveliness                   yaml.Node `yaml:"liveliness"`
	LivelinessLeaseDuration      rmwTime   `yaml:"liveliness_lease_duration"`
	AvoidROSNamespaceConventions bool      `yaml:"avoid_ros_namespace_conventions"`
}

type rmwTime struct {
	Sec  uint64 `yaml:"sec"`
	Nsec uint64 `yaml:"nsec"`
}

// duration maps rmw's infinities (today's and Foxy's vendors') and zero
// to 0.
func (t rmwTime) duration() time.Duration {
	switch {
	case t.Sec == infiniteSec && t.Nsec == infiniteNsec,
		t.Sec == 0x7FFFFFFF && (t.Nsec == 0xFFFFFFFF || t.Nsec == 0x7FFFFFFF),
		t.Sec >= uint64(1<<63-1)/uint64(time.Second):
		return 0
	}
	return time.Duration(t.Sec)*time.Second + time.Duration(min(t.Nsec, 1<<62))
}

func policyValue(n *yaml.Node, names []string, what string) (QoSPolicy, error) {
	if n.Kind == 0 {
		return 0, nil
	}
	if v, err := strconv.ParseUint(n.Value, 10, 8); err == nil {
		return QoSPolicy(v), nil
	}
	for i, name := range names {
		if n.Value == name {
			return QoSPolicy(i), nil
		}
	}
	return 0, fmt.Errorf("%w: %s %q", ErrMetadata, what, n.Value)
}

func (y *qosYAML) qos() (QoS, error) {
	var q QoS
	var err error
	if q.History, err = policyValue(&y.History, historyNames, "history"); err != nil {
		return q, err
	}
	if q.Reliability, err = policyValue(&y.Reliability, reliabilityNames, "reliability"); err != nil {
		return q, err
	}
	if q.Durability, err = policyValue(&y.Durability, durabilityNames, "durability"); err != nil {
		return q, err
	}
	if q.Liveliness, err = policyValue(&y.Liveliness, livelinessNames, "liveliness"); err != nil {
		return q, err
	}
	q.Depth = y.Depth
	q.Deadline, q.Lifespan, q.LivelinessLease = y.Deadline.duration(), y.Lifespan.duration(), y.LivelinessLeaseDuration.duration()
	q.AvoidROSNamespaceConventions = y.AvoidROSNamespaceConventions
	return q, nil
}

// ParseQoSProfiles parses offered_qos_profiles as any rosbag2 version
// wrote them: a YAML list of profiles, with policies as numbers or names.
// An empty string is no profile.
func ParseQoSProfiles(s string) ([]QoS, error) {
	if s == "" {
		return nil, nil
	}
	var ys []qosYAML
	if err := yaml.Unmarshal([]byte(s), &ys); err != nil {
		return nil, fmt.Errorf("%w: offered_qos_profiles: %w", ErrMetadata, err)
	}
	return qosFromYAML(ys)
}

func qosFromYAML(ys []qosYAML) ([]QoS, error) {
	out := make([]QoS, 0, len(ys))
	for _, y := range ys {
		q, err := y.qos()
		if err != nil {
			return nil, err
		}
		out = append(out, q)
	}
	return out, nil
}

// PlaybackQoS returns the profile to publish a recorded topic with, as
// rosbag2's player adapts it: the recorded publishers' common profile when
// they agree on the policies that matter for matching (history aside,
// with the default history), else the default profile. It keeps
// TRANSIENT_LOCAL, so late subscriptions get the latched messages.
func PlaybackQoS(offered []QoS) ros.QoS {
	if len(offered) == 0 {
		return ros.QoSDefault
	}
	ref := offered[0]
	for _, q := range offered[1:] {
		if q.Reliability != ref.Reliability || q.Durability != ref.Durability || q.Deadline != ref.Deadline ||
			q.Liveliness != ref.Liveliness || q.LivelinessLease != ref.LivelinessLease {
			return ros.QoSDefault
		}
	}
	out := ref.ROS()
	out.History, out.Depth = ros.KeepLast, 10
	return out
}
