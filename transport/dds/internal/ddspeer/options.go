package ddspeer

import (
	"strconv"
	"time"
)

// DefaultTopic is the DDS topic of the peers unless [Options.Topic] is set:
// the ROS 2 topic /chatter.
const DefaultTopic = "rt/chatter"

// TypeName is the DDS type of every peer's topic: the ROS 2
// std_msgs/msg/String, a struct with one string member, data.
const TypeName = "std_msgs::msg::dds_::String_"

// DefaultDepth is the KEEP_LAST depth unless [Options.Depth] or
// [Options.KeepAll] says otherwise.
const DefaultDepth = 10

// Role says whether a peer writes, reads or relays.
type Role string

// The roles of a peer.
const (
	Writer Role = "writer"
	Reader Role = "reader"
	// Relay reads Topic and writes every sample, unchanged, to OutTopic
	// with the same QoS. Its "matched" events carry Side "reader" or
	// "writer". The Python peers relay; the C peer does not.
	Relay Role = "relay"
)

// Options configures a peer. The zero value (but for Role) is a reliable,
// volatile, KEEP_LAST 10 endpoint on [DefaultTopic] in domain 0.
type Options struct {
	Role Role
	// Topic is the DDS topic name; empty means [DefaultTopic]. The rclpy
	// peer needs a ROS topic: "rt/" followed by the ROS name.
	Topic string
	// OutTopic is the topic a [Relay] writes to.
	OutTopic string
	// BestEffort selects BEST_EFFORT reliability instead of RELIABLE.
	BestEffort bool
	// TransientLocal selects TRANSIENT_LOCAL durability instead of VOLATILE.
	TransientLocal bool
	// Depth is the KEEP_LAST depth; 0 means [DefaultDepth].
	Depth int
	// KeepAll selects KEEP_ALL history; Depth is then ignored.
	KeepAll bool
	// Count is, for a writer, the number of samples to write (0: until
	// closed) and, for a reader, the number after which it prints "done"
	// and exits (0: never).
	Count int
	// Period is the pause between two writes; 0 writes as fast as the
	// writer accepts.
	Period time.Duration
	// Size pads every payload to this many bytes (see [Payload]).
	Size int
	// Domain is the DDS domain ID.
	Domain int
	// WaitMatch makes a writer wait until this many readers match before
	// its first write.
	WaitMatch int
	// WaitGo makes a writer, after WaitMatch, wait for [Peer.Go] before its
	// first write. A VOLATILE reader drops what was written before it, in
	// turn, matched the writer: wait for both sides' "matched", then Go.
	WaitGo bool
	// Env adds NAME=value variables to the peer's environment (after the
	// harness's own, so they win), for example CYCLONEDDS_URI or
	// ROS_AUTOMATIC_DISCOVERY_RANGE.
	Env []string
}

// args returns the command-line arguments that testdata/peer_common.py and
// the C peer understand.
func (o Options) args() []string {
	topic := o.Topic
	if topic == "" {
		topic = DefaultTopic
	}
	reliability, durability := "reliable", "volatile"
	if o.BestEffort {
		reliability = "best-effort"
	}
	if o.TransientLocal {
		durability = "transient-local"
	}
	depth := o.Depth
	switch {
	case o.KeepAll:
		depth = 0
	case depth <= 0:
		depth = DefaultDepth
	}
	args := []string{
		"--role", string(o.Role),
		"--topic", topic,
		"--reliability", reliability,
		"--durability", durability,
		"--depth", strconv.Itoa(depth),
		"--count", strconv.Itoa(o.Count),
		"--period", strconv.FormatFloat(o.Period.Seconds(), 'f', -1, 64),
		"--size", strconv.Itoa(o.Size),
		"--domain", strconv.Itoa(o.Domain),
		"--wait-match", strconv.Itoa(o.WaitMatch),
	}
	if o.WaitGo {
		args = append(args, "--wait-go")
	}
	if o.OutTopic != "" {
		args = append(args, "--out-topic", o.OutTopic)
	}
	return args
}

// Payload returns the text that the writer peers send as sample i: "<i>:"
// then "x" up to size bytes. The reader peers check it and report "ok".
func Payload(i, size int) string {
	head := strconv.Itoa(i) + ":"
	if size <= len(head) {
		return head
	}
	b := make([]byte, size)
	copy(b, head)
	for k := len(head); k < size; k++ {
		b[k] = 'x'
	}
	return string(b)
}
