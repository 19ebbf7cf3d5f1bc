package ros_test

import (
	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
)

// fakeString claims to be a std_msgs/msg/String but encodes as an Int32: a
// misbehaving peer.
type fakeString struct{ std_msgs.Int32 }

func (*fakeString) TypeName() string    { return named().TypeName() }
func (*fakeString) DDSTypeName() string { return named().DDSTypeName() }
func (*fakeString) TypeHash() string    { return named().TypeHash() }

// named works whether the generated methods have pointer or value
// receivers.
func named() cdr.Named { return &std_msgs.String{} }

var _ cdr.Message = (*fakeString)(nil)
