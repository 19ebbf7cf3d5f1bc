package dds

import "fmt"

// maxNameLen bounds topic and type names (Fast DDS and Cyclone accept 256).
const maxNameLen = 256

// Topic names a DDS topic and the name of its data type, such as
// {"rt/chatter", "std_msgs::msg::dds_::String_"}. Writers and readers match
// when both are equal. Topics here are keyless (as every ROS 2 topic is).
type Topic struct {
	Name     string
	TypeName string
}

func (t Topic) validate() error {
	switch {
	case t.Name == "" || t.TypeName == "":
		return fmt.Errorf("%w: empty name or type name in %+v", ErrInvalidTopic, t)
	case len(t.Name) > maxNameLen || len(t.TypeName) > maxNameLen:
		return fmt.Errorf("%w: name or type name longer than %d bytes", ErrInvalidTopic, maxNameLen)
	}
	return nil
}
