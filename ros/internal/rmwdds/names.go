package rmwdds

import "strings"

// Prefixes and suffixes of the DDS topics that carry ROS 2 topics and
// services (rmw_dds_common, rmw_fastrtps and rmw_cyclonedds agree).
const (
	prefixTopic   = "rt"
	prefixRequest = "rq"
	prefixReply   = "rr"
	suffixRequest = "Request"
	suffixReply   = "Reply"
	ddsInfix      = "::dds_::"
)

// TopicKind says what a DDS topic carries for ROS 2.
type TopicKind uint8

// Kinds of DDS topic.
const (
	// TopicNotROS is a DDS topic that carries no ROS 2 topic or service
	// (ros_discovery_info, or another DDS application's).
	TopicNotROS TopicKind = iota
	// TopicMessage carries a ROS 2 topic ("rt/…").
	TopicMessage
	// TopicRequest carries a service's requests ("rq/…Request").
	TopicRequest
	// TopicReply carries a service's replies ("rr/…Reply").
	TopicReply
)

// String returns the kind's name.
func (k TopicKind) String() string {
	switch k {
	case TopicMessage:
		return "message"
	case TopicRequest:
		return "request"
	case TopicReply:
		return "reply"
	}
	return "not ROS"
}

// checkROSName guards the encoding of a fully qualified ROS name (package
// ros validates names; this only refuses what cannot be carried).
func checkROSName(what, name string) error {
	if len(name) < 2 || name[0] != '/' {
		return errorf(ErrInvalid, "%s %q is not a fully qualified name", what, name)
	}
	return nil
}

// TopicName returns the DDS topic of a ROS topic: "/ns/chatter" becomes
// "rt/ns/chatter".
func TopicName(topic string) (string, error) {
	if err := checkROSName("topic", topic); err != nil {
		return "", err
	}
	return prefixTopic + topic, nil
}

// RequestTopic returns the DDS topic of a service's requests: "/ns/add"
// becomes "rq/ns/addRequest".
func RequestTopic(service string) (string, error) {
	if err := checkROSName("service", service); err != nil {
		return "", err
	}
	return prefixRequest + service + suffixRequest, nil
}

// ReplyTopic returns the DDS topic of a service's replies: "/ns/add"
// becomes "rr/ns/addReply".
func ReplyTopic(service string) (string, error) {
	if err := checkROSName("service", service); err != nil {
		return "", err
	}
	return prefixReply + service + suffixReply, nil
}

// ParseTopic tells what a DDS topic carries and returns the ROS topic or
// service name: "rt/ns/x" is (TopicMessage, "/ns/x"), "rq/sRequest" is
// (TopicRequest, "/s"), "rr/sReply" is (TopicReply, "/s"). Any other name
// is (TopicNotROS, "").
func ParseTopic(dds string) (TopicKind, string) {
	prefix, rest, ok := strings.Cut(dds, "/")
	if !ok || len(rest) == 0 {
		return TopicNotROS, ""
	}
	name := "/" + rest
	switch prefix {
	case prefixTopic:
		return TopicMessage, name
	case prefixRequest:
		if s, ok := strings.CutSuffix(name, suffixRequest); ok && len(s) > 1 {
			return TopicRequest, s
		}
	case prefixReply:
		if s, ok := strings.CutSuffix(name, suffixReply); ok && len(s) > 1 {
			return TopicReply, s
		}
	}
	return TopicNotROS, ""
}

// DDSTypeName returns the DDS type name of a ROS type: "std_msgs/msg/String"
// becomes "std_msgs::msg::dds_::String_", "std_srvs/srv/SetBool_Request"
// becomes "std_srvs::srv::dds_::SetBool_Request_".
func DDSTypeName(rosType string) (string, error) {
	i := strings.LastIndexByte(rosType, '/')
	if i <= 0 || i == len(rosType)-1 || strings.Contains(rosType, ":") {
		return "", errorf(ErrInvalid, "type name %q is not pkg/ns/Name", rosType)
	}
	return strings.ReplaceAll(rosType[:i], "/", "::") + ddsInfix + rosType[i+1:] + "_", nil
}

// ROSTypeName returns the ROS type of a DDS type name:
// "std_msgs::msg::dds_::String_" becomes "std_msgs/msg/String". ok is false
// for a name not in the ROS form, which the graph then shows unchanged (as
// rmw_dds_common does).
func ROSTypeName(ddsType string) (name string, ok bool) {
	ns, typ, found := strings.Cut(ddsType, ddsInfix)
	if !found || ns == "" || len(typ) < 2 || typ[len(typ)-1] != '_' {
		return ddsType, false
	}
	return strings.ReplaceAll(ns, "::", "/") + "/" + typ[:len(typ)-1], true
}

// ServiceTypeName returns the ROS service type of the DDS type of its
// request or reply: "std_srvs::srv::dds_::SetBool_Request_" and
// "std_srvs::srv::dds_::SetBool_Response_" both become "std_srvs/srv/SetBool".
func ServiceTypeName(ddsType string) (name string, ok bool) {
	ros, ok := ROSTypeName(ddsType)
	if !ok {
		return ddsType, false
	}
	for _, suffix := range []string{"_Request", "_Response"} {
		if s, found := strings.CutSuffix(ros, suffix); found && !strings.HasSuffix(s, "/") {
			return s, true
		}
	}
	return ddsType, false
}
