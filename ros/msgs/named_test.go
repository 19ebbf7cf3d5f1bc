package msgs_test

import (
	"testing"

	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/ros/msgs/std_srvs"
)

// Constant facts about a type are methods of the value: they need no
// pointer, and the pointer types still implement cdr.Named and
// cdr.Message.
func TestTypeFactsOnValues(t *testing.T) {
	if got := (std_msgs.String{}).TypeName(); got != "std_msgs/msg/String" {
		t.Errorf("TypeName = %q", got)
	}
	if got := (std_msgs.String{}).DDSTypeName(); got != "std_msgs::msg::dds_::String_" {
		t.Errorf("DDSTypeName = %q", got)
	}
	if got := (std_msgs.String{}).TypeHash(); got != (&std_msgs.String{}).TypeHash() || len(got) != len("RIHS01_")+64 {
		t.Errorf("TypeHash = %q", got)
	}
	var _ cdr.Named = std_msgs.String{}
	var _ cdr.Named = &std_msgs.String{}
	var _ cdr.Message = &std_msgs.String{}
	var _ cdr.Named = std_srvs.Trigger{}
}
