package rmwdds

import (
	"errors"
	"testing"
)

func TestTopicNames(t *testing.T) {
	cases := []struct {
		ros, topic, request, reply string
	}{
		// [cap] dds-rtps.md §5.1.
		{"/chatter", "rt/chatter", "rq/chatterRequest", "rr/chatterReply"},
		{"/set_flag", "rt/set_flag", "rq/set_flagRequest", "rr/set_flagReply"},
		{"/ns/x", "rt/ns/x", "rq/ns/xRequest", "rr/ns/xReply"},
		{"/talker/describe_parameters", "rt/talker/describe_parameters",
			"rq/talker/describe_parametersRequest", "rr/talker/describe_parametersReply"},
		{"/fibonacci/_action/send_goal", "rt/fibonacci/_action/send_goal",
			"rq/fibonacci/_action/send_goalRequest", "rr/fibonacci/_action/send_goalReply"},
	}
	for _, c := range cases {
		got, err := TopicName(c.ros)
		if err != nil || got != c.topic {
			t.Errorf("TopicName(%q) = %q, %v, want %q", c.ros, got, err, c.topic)
		}
		got, err = RequestTopic(c.ros)
		if err != nil || got != c.request {
			t.Errorf("RequestTopic(%q) = %q, %v, want %q", c.ros, got, err, c.request)
		}
		got, err = ReplyTopic(c.ros)
		if err != nil || got != c.reply {
			t.Errorf("ReplyTopic(%q) = %q, %v, want %q", c.ros, got, err, c.reply)
		}
		for _, back := range []struct {
			dds  string
			kind TopicKind
		}{{c.topic, TopicMessage}, {c.request, TopicRequest}, {c.reply, TopicReply}} {
			if k, name := ParseTopic(back.dds); k != back.kind || name != c.ros {
				t.Errorf("ParseTopic(%q) = %v %q, want %v %q", back.dds, k, name, back.kind, c.ros)
			}
		}
	}
	for _, bad := range []string{"", "/", "chatter", "rt/chatter"} {
		for _, f := range []func(string) (string, error){TopicName, RequestTopic, ReplyTopic} {
			if got, err := f(bad); !errors.Is(err, ErrInvalid) {
				t.Errorf("%q: got %q, %v, want ErrInvalid", bad, got, err)
			}
		}
	}
}

func TestParseTopicNotROS(t *testing.T) {
	for _, s := range []string{
		"ros_discovery_info", "", "rt", "rt/", "rq/Request", "rr/Reply", "rq/s", "rr/sRequest",
		"rq/sReply", "xx/chatter", "DCPSParticipant", "/rt/chatter",
	} {
		if k, name := ParseTopic(s); k != TopicNotROS || name != "" {
			t.Errorf("ParseTopic(%q) = %v %q, want not ROS", s, k, name)
		}
	}
}

func TestTypeNames(t *testing.T) {
	cases := []struct {
		ros, dds, service string
	}{
		{"std_msgs/msg/String", "std_msgs::msg::dds_::String_", ""},
		{"rmw_dds_common/msg/ParticipantEntitiesInfo", DiscoveryInfoTypeName, ""},
		{"rcl_interfaces/msg/Log", "rcl_interfaces::msg::dds_::Log_", ""},
		{"std_srvs/srv/SetBool_Request", "std_srvs::srv::dds_::SetBool_Request_", "std_srvs/srv/SetBool"},
		{"std_srvs/srv/SetBool_Response", "std_srvs::srv::dds_::SetBool_Response_", "std_srvs/srv/SetBool"},
		{"test_msgs/action/Fibonacci_SendGoal_Request", "test_msgs::action::dds_::Fibonacci_SendGoal_Request_",
			"test_msgs/action/Fibonacci_SendGoal"},
		{"test_msgs/action/Fibonacci_FeedbackMessage", "test_msgs::action::dds_::Fibonacci_FeedbackMessage_", ""},
		{"action_msgs/srv/CancelGoal_Request", "action_msgs::srv::dds_::CancelGoal_Request_", "action_msgs/srv/CancelGoal"},
	}
	for _, c := range cases {
		got, err := DDSTypeName(c.ros)
		if err != nil || got != c.dds {
			t.Errorf("DDSTypeName(%q) = %q, %v, want %q", c.ros, got, err, c.dds)
		}
		if back, ok := ROSTypeName(c.dds); !ok || back != c.ros {
			t.Errorf("ROSTypeName(%q) = %q, %v, want %q", c.dds, back, ok, c.ros)
		}
		svc, ok := ServiceTypeName(c.dds)
		if c.service == "" {
			if ok {
				t.Errorf("ServiceTypeName(%q) = %q, want not a service", c.dds, svc)
			}
		} else if !ok || svc != c.service {
			t.Errorf("ServiceTypeName(%q) = %q, %v, want %q", c.dds, svc, ok, c.service)
		}
	}
	for _, bad := range []string{"", "String", "std_msgs/", "/String", "std_msgs::msg::String"} {
		if got, err := DDSTypeName(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("DDSTypeName(%q) = %q, %v, want ErrInvalid", bad, got, err)
		}
	}
	// Names not in the ROS form come back unchanged.
	for _, s := range []string{"", "DDS::String", "::dds_::X_", "a::dds_::_", "a::dds_::X"} {
		if got, ok := ROSTypeName(s); ok || got != s {
			t.Errorf("ROSTypeName(%q) = %q, %v, want it unchanged", s, got, ok)
		}
	}
	for _, s := range []string{"", "DDS::String", "a::msg::dds_::X_", "a::srv::dds_::_Request_", "a::srv::dds_::X_Reply_"} {
		if got, ok := ServiceTypeName(s); ok || got != s {
			t.Errorf("ServiceTypeName(%q) = %q, %v, want it unchanged", s, got, ok)
		}
	}
}
