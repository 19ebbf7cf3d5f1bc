package bag

import (
	"testing"

	"github.com/afor-go/afor/ros/dynmsg"
)

// FuzzParseMetadata parses any bytes as metadata.yaml or a
// serialized_metadata record: errors, never a panic.
func FuzzParseMetadata(f *testing.F) {
	m := Metadata{Version: 9, StorageIdentifier: "mcap", RelativeFilePaths: []string{"a_0.mcap"},
		Topics:     []TopicInfo{{Name: "/a", Type: "std_msgs/msg/String", SerializationFormat: "cdr", OfferedQoS: []QoS{{History: 1, Depth: 10}}}},
		CustomData: map[string]string{"k": "v"}}
	f.Add([]byte(m.FileYAML()))
	f.Add([]byte(m.MarshalYAML()))
	f.Add([]byte("rosbag2_bagfile_information:\n  version: 8\n  topics_with_message_count:\n    - topic_metadata:\n        offered_qos_profiles: \"- history: 3\\n  depth: 0\"\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = ParseMetadata(b)
		_, _ = ParseQoSProfiles(string(b))
	})
}

// FuzzSchema builds decoders from any ros2msg schema text and decodes a
// payload with them.
func FuzzSchema(f *testing.F) {
	d, err := NewDefinitions()
	if err != nil {
		f.Fatal(err)
	}
	for _, typ := range []string{"std_msgs/msg/String", "sensor_msgs/msg/Image", "geometry_msgs/msg/PoseStamped"} {
		_, data, err := d.Schema(typ)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(typ, data, []byte{0, 1, 0, 0, 2, 0, 0, 0, 'a', 0})
	}
	f.Fuzz(func(t *testing.T, root string, schema, payload []byte) {
		if len(schema) > 1<<16 {
			return
		}
		reg, err := registryOf(root, schema)
		if err != nil {
			return
		}
		typ, err := dynmsg.NewType(reg, root)
		if err != nil {
			return
		}
		_, _ = typ.Decode(payload)
	})
}
