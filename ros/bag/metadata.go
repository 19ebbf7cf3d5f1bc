package bag

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"gopkg.in/yaml.v3"
)

// MetadataFile is the name of a bag folder's metadata file.
const MetadataFile = "metadata.yaml"

// MetadataVersion is the version of the metadata this package writes:
// rosbag2's since Jazzy (9: QoS policies by name).
const MetadataVersion = 9

// ErrMetadata is matched by the errors for metadata that cannot be read.
var ErrMetadata = errors.New("bag: bad metadata")

// Metadata is a bag's description, as rosbag2 writes it to the bag
// folder's metadata.yaml (under rosbag2_bagfile_information) and to a
// "rosbag2" metadata record in each MCAP file.
type Metadata struct {
	Version           int
	StorageIdentifier string   // "mcap"
	RelativeFilePaths []string // the bag's files, relative to its folder
	Files             []FileInfo
	Duration          time.Duration // from the first message's receive time to the last's
	StartingTime      time.Time     // the first message's receive time
	MessageCount      uint64
	Topics            []TopicInfo
	CompressionFormat string // rosbag2's file compression ("" for MCAP's own chunk compression)
	CompressionMode   string
	CustomData        map[string]string
	ROSDistro         string
	// BagSize is the size of the bag's files in bytes; it is not written
	// to metadata.yaml (rosbag2 measures the folder).
	BagSize uint64
}

// FileInfo describes one file of a bag.
type FileInfo struct {
	Path         string
	StartingTime time.Time
	Duration     time.Duration
	MessageCount uint64
}

// TopicInfo is a recorded topic and its message count.
type TopicInfo struct {
	Name                string // "/chatter"
	Type                string // "std_msgs/msg/String"
	SerializationFormat string // "cdr"
	// OfferedQoS lists the QoS profiles of the topic's publishers when it
	// was recorded.
	OfferedQoS []QoS
	// TypeHash is the type's RIHS01 hash ("RIHS01_" and 64 hex digits),
	// "" when unknown.
	TypeHash     string
	MessageCount uint64
}

// End returns the receive time of the last message.
func (m *Metadata) End() time.Time { return m.StartingTime.Add(m.Duration) }

func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// node builds rosbag2's YAML node of the metadata (its BagMetadata).
func (m *Metadata) node() *ynode {
	topics := yseq()
	for _, t := range m.Topics {
		topics.items = append(topics.items, ymap(
			"topic_metadata", ymap(
				"name", ystr(t.Name),
				"type", ystr(t.Type),
				"serialization_format", ystr(t.SerializationFormat),
				"offered_qos_profiles", qosList(t.OfferedQoS),
				"type_description_hash", ystr(t.TypeHash),
			),
			"message_count", yuint(t.MessageCount),
		))
	}
	paths := yseq()
	for _, p := range m.RelativeFilePaths {
		paths.items = append(paths.items, ystr(p))
	}
	files := yseq()
	for _, f := range m.Files {
		files.items = append(files.items, ymap(
			"path", ystr(f.Path),
			"starting_time", ymap("nanoseconds_since_epoch", yint(nanos(f.StartingTime))),
			"duration", ymap("nanoseconds", yint(int64(f.Duration))),
			"message_count", yuint(f.MessageCount),
		))
	}
	custom := ymap()
	for _, k := range slices.Sorted(maps.Keys(m.CustomData)) {
		custom.keys = append(custom.keys, ystr(k).scalar)
		custom.vals = append(custom.vals, ystr(m.CustomData[k]))
	}
	version := m.Version
	if version == 0 {
		version = MetadataVersion
	}
	return ymap(
		"version", yint(int64(version)),
		"storage_identifier", ystr(m.StorageIdentifier),
		"duration", ymap("nanoseconds", yint(int64(m.Duration))),
		"starting_time", ymap("nanoseconds_since_epoch", yint(nanos(m.StartingTime))),
		"message_count", yuint(m.MessageCount),
		"topics_with_message_count", topics,
		"compression_format", ystr(m.CompressionFormat),
		"compression_mode", ystr(m.CompressionMode),
		"relative_file_paths", paths,
		"files", files,
		"custom_data", custom,
		"ros_distro", ystr(m.ROSDistro),
	)
}

// MarshalYAML returns the metadata as rosbag2 writes it inside an MCAP
// file (the "serialized_metadata" of its "rosbag2" metadata record).
func (m *Metadata) MarshalYAML() string { return emitYAML(m.node()) }

// FileYAML returns the metadata as rosbag2 writes metadata.yaml.
func (m *Metadata) FileYAML() string {
	return emitYAML(ymap("rosbag2_bagfile_information", m.node()))
}

// metadataYAML is the metadata as any version of rosbag2 wrote it.
type metadataYAML struct {
	Version           int    `yaml:"version"`
	StorageIdentifier string `yaml:"storage_identifier"`
	Duration          struct {
		Nanoseconds int64 `yaml:"nanoseconds"`
	} `yaml:"duration"`
	StartingTime struct {
		Nanoseconds int64 `yaml:"nanoseconds_since_epoch"`
	} `yaml:"starting_time"`
	MessageCount uint64 `yaml:"message_count"`
	Topics       []struct {
		Topic struct {
			Name                string    `yaml:"name"`
			Type                string    `yaml:"type"`
			SerializationFormat string    `yaml:"serialization_format"`
			OfferedQoS          yaml.Node `yaml:"offered_qos_profiles"`
			TypeHash            string    `yaml:"type_description_hash"`
		} `yaml:"topic_metadata"`
		MessageCount uint64 `yaml:"message_count"`
	} `yaml:"topics_with_message_count"`
	CompressionFormat string   `yaml:"compression_format"`
	CompressionMode   string   `yaml:"compression_mode"`
	RelativeFilePaths []string `yaml:"relative_file_paths"`
	Files             []struct {
		Path         string `yaml:"path"`
		StartingTime struct {
			Nanoseconds int64 `yaml:"nanoseconds_since_epoch"`
		} `yaml:"starting_time"`
		Duration struct {
			Nanoseconds int64 `yaml:"nanoseconds"`
		} `yaml:"duration"`
		MessageCount uint64 `yaml:"message_count"`
	} `yaml:"files"`
	CustomData map[string]string `yaml:"custom_data"`
	ROSDistro  string            `yaml:"ros_distro"`
}

// maxMetadataSize bounds a metadata.yaml or serialized_metadata read.
const maxMetadataSize = 64 << 20

func timeOf(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns)
}

func (y *metadataYAML) metadata() (*Metadata, error) {
	m := &Metadata{Version: y.Version, StorageIdentifier: y.StorageIdentifier,
		Duration: time.Duration(y.Duration.Nanoseconds), StartingTime: timeOf(y.StartingTime.Nanoseconds),
		MessageCount: y.MessageCount, CompressionFormat: y.CompressionFormat, CompressionMode: y.CompressionMode,
		RelativeFilePaths: y.RelativeFilePaths, CustomData: y.CustomData, ROSDistro: y.ROSDistro}
	for _, f := range y.Files {
		m.Files = append(m.Files, FileInfo{Path: f.Path, StartingTime: timeOf(f.StartingTime.Nanoseconds),
			Duration: time.Duration(f.Duration.Nanoseconds), MessageCount: f.MessageCount})
	}
	for _, t := range y.Topics {
		ti := TopicInfo{Name: t.Topic.Name, Type: t.Topic.Type, SerializationFormat: t.Topic.SerializationFormat,
			TypeHash: t.Topic.TypeHash, MessageCount: t.MessageCount}
		q := &t.Topic.OfferedQoS
		var err error
		switch q.Kind {
		case yaml.ScalarNode: // version 8 and before: a YAML string of YAML
			ti.OfferedQoS, err = ParseQoSProfiles(q.Value)
		case yaml.SequenceNode:
			var ys []qosYAML
			if err = q.Decode(&ys); err == nil {
				ti.OfferedQoS, err = qosFromYAML(ys)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("topic %s: %w", ti.Name, err)
		}
		m.Topics = append(m.Topics, ti)
	}
	return m, nil
}

// ParseMetadata parses metadata as rosbag2 writes it, in metadata.yaml
// (under rosbag2_bagfile_information) or in an MCAP file's "rosbag2"
// record, of any version.
func ParseMetadata(b []byte) (*Metadata, error) {
	if len(b) > maxMetadataSize {
		return nil, fmt.Errorf("%w: %d bytes, the limit is %d", ErrMetadata, len(b), maxMetadataSize)
	}
	var top struct {
		Info *metadataYAML `yaml:"rosbag2_bagfile_information"`
	}
	if err := yaml.Unmarshal(b, &top); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMetadata, err)
	}
	y := top.Info
	if y == nil {
		y = &metadataYAML{}
		if err := yaml.Unmarshal(b, y); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrMetadata, err)
		}
	}
	m, err := y.metadata()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMetadata, err)
	}
	return m, nil
}
