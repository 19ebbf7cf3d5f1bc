package dds

import (
	"fmt"

	"github.com/afor-go/afor/transport/dds/internal/rtps"
)

// maxNameLen bounds topic and type names (Fast DDS and Cyclone accept 256).
const maxNameLen = 256

// Topic names a DDS topic and the name of its data type, such as
// {"rt/chatter", "std_msgs::msg::dds_::String_"}. Writers and readers match
// when both are equal and both are keyed or both keyless.
type Topic struct {
	Name     string
	TypeName string
	// Keyed announces the topic's type as one with a key (every ROS 2
	// topic is keyless), so that its endpoints match those of other
	// implementations on a keyed topic, such as Cyclone's ddsperf. The
	// key stays in the payload: samples of all instances form one
	// stream, without per-instance history, dispose or unregister.
	Keyed bool
}

// kinds returns the entity kinds of t's writers and readers.
func (t Topic) kinds() (writer, reader byte) {
	if t.Keyed {
		return rtps.KindWriterKey, rtps.KindReaderKey
	}
	return rtps.KindWriterNoKey, rtps.KindReaderNoKey
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
