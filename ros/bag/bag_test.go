package bag_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/afor-go/afor/ros/bag"
	"github.com/afor-go/afor/ros/msgs/geometry_msgs"
	"github.com/afor-go/afor/ros/msgs/sensor_msgs"
)

func readBack(t testing.TB, path string, o bag.ReadOptions) ([]bag.Message, []error) {
	t.Helper()
	r, err := bag.Open(path, bag.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var msgs []bag.Message
	var errs []error
	for m, err := range r.Messages(o) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		msgs = append(msgs, m)
	}
	return msgs, errs
}

func TestWriteRead(t *testing.T) {
	msgs := sampleMessages(t, 30)
	for name, o := range map[string]bag.WriterOptions{
		"default":       {},
		"zstd":          {Compression: bag.CompressionZstd, ChunkSize: 2048},
		"lz4":           {Compression: bag.CompressionLZ4, ChunkSize: 2048},
		"unchunked":     {ChunkSize: -1},
		"split by size": {MaxFileSize: 4096, ChunkSize: 1024},
		"split by time": {MaxFileDuration: 100 * time.Millisecond},
	} {
		t.Run(name, func(t *testing.T) {
			path := writeBag(t, t.TempDir(), o, msgs)
			got, errs := readBack(t, path, bag.ReadOptions{})
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			if len(got) != len(msgs) {
				t.Fatalf("read %d messages, want %d", len(got), len(msgs))
			}
			for i, m := range got {
				w := msgs[i]
				if m.Topic != w.topic || m.Type != w.typ || !m.Received.Equal(w.t) || !m.Published.Equal(w.t.Add(-time.Millisecond)) ||
					m.Sequence != 7 || !bytes.Equal(m.Data, w.data) {
					t.Fatalf("message %d: %+v, want %+v", i, m, w)
				}
			}
			r, err := bag.Open(path, bag.ReaderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			md := r.Metadata()
			if md.MessageCount != uint64(len(msgs)) || !md.StartingTime.Equal(t0) || md.End() != msgs[len(msgs)-1].t {
				t.Errorf("metadata: %d messages from %v to %v", md.MessageCount, md.StartingTime, md.End())
			}
			var n uint64
			for _, f := range md.Files {
				n += f.MessageCount
			}
			if n != md.MessageCount || len(md.Files) != len(md.RelativeFilePaths) {
				t.Errorf("files: %+v", md.Files)
			}
			if strings.HasPrefix(name, "split") && len(md.Files) < 3 {
				t.Errorf("%d files", len(md.Files))
			}
			// Decoding: generated and dynamic types.
			for _, m := range got {
				switch m.Topic {
				case "/pose":
					p, err := bag.Decode[geometry_msgs.PoseStamped](m)
					if err != nil || p.Header.FrameID != "map" {
						t.Fatalf("decode pose: %+v %v", p, err)
					}
					if _, err := bag.Decode[sensor_msgs.Image](m); !errors.Is(err, bag.ErrDecode) {
						t.Fatalf("a pose decoded as an image: %v", err)
					}
				case "/camera/image":
					v, err := r.DecodeDynamic(m)
					if err != nil || v["encoding"] != "mono8" || len(v["data"].([]byte)) != 6 {
						t.Fatalf("decode image: %v %v", v, err)
					}
				}
			}
			// A topic and a time range.
			start, end := t0.Add(50*time.Millisecond), t0.Add(150*time.Millisecond)
			sel, errs := readBack(t, path, bag.ReadOptions{Topics: []string{"/imu", "/arrays"}, Start: start, End: end})
			var want []written
			for _, w := range msgs {
				if (w.topic == "/imu" || w.topic == "/arrays") && !w.t.Before(start) && w.t.Before(end) {
					want = append(want, w)
				}
			}
			if len(errs) > 0 || len(sel) != len(want) || len(want) == 0 {
				t.Fatalf("selected %d, want %d (%v)", len(sel), len(want), errs)
			}
		})
	}
}

func TestMetadataYAML(t *testing.T) {
	msgs := sampleMessages(t, 3)
	path := writeBag(t, t.TempDir(), bag.WriterOptions{ROSDistro: "kilted", CustomData: map[string]string{"robot": "r1"}}, msgs)
	b, err := os.ReadFile(filepath.Join(path, bag.MetadataFile))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{
		"rosbag2_bagfile_information:\n  version: 9\n  storage_identifier: mcap\n  duration:\n    nanoseconds: 20003000\n  starting_time:\n    nanoseconds_since_epoch: 1700000000123000000\n  message_count: 14\n  topics_with_message_count:\n    - topic_metadata:\n        name: /chatter\n        type: std_msgs/msg/String\n        serialization_format: cdr\n        offered_qos_profiles:\n          - history: keep_last\n            depth: 10\n            reliability: reliable\n            durability: volatile\n            deadline:\n              sec: 9223372036\n              nsec: 854775807\n",
		"        type_description_hash: RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18\n      message_count: 3\n",
		"            durability: transient_local\n",
		"  compression_format: \"\"\n  compression_mode: \"\"\n  relative_file_paths:\n    - sample_bag_0.mcap\n  files:\n    - path: sample_bag_0.mcap\n      starting_time:\n        nanoseconds_since_epoch: 1700000000123000000\n      duration:\n        nanoseconds: 20003000\n      message_count: 14\n  custom_data:\n    robot: r1\n  ros_distro: kilted",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("metadata.yaml lacks\n%s\nin\n%s", want, s)
		}
	}
	m, err := bag.ParseMetadata(b)
	if err != nil {
		t.Fatal(err)
	}
	if m.MessageCount != 14 || len(m.Topics) != 6 || m.Topics[1].Name != "/pose" || m.Topics[1].OfferedQoS[0].Durability != 1 || m.CustomData["robot"] != "r1" {
		t.Errorf("parsed %+v", m)
	}
}

func TestQoSProfilesV8(t *testing.T) {
	// rosbag2 before Jazzy: policies as numbers, Foxy's infinities.
	v8 := "- history: 3\n  depth: 0\n  reliability: 1\n  durability: 2\n  deadline:\n    sec: 2147483647\n    nsec: 4294967295\n  lifespan:\n    sec: 0\n    nsec: 0\n  liveliness: 1\n  liveliness_lease_duration:\n    sec: 9223372036\n    nsec: 854775807\n  avoid_ros_namespace_conventions: false"
	qs, err := bag.ParseQoSProfiles(v8)
	if err != nil || len(qs) != 1 {
		t.Fatal(qs, err)
	}
	q := qs[0]
	if q.History != bag.HistoryUnknown || q.Reliability != 1 || q.Durability != 2 || q.Deadline != 0 || q.Liveliness != 1 {
		t.Errorf("%+v", q)
	}
	if got := bag.FormatQoSProfiles(nil); got != "[]" {
		t.Errorf("no profiles: %q", got)
	}
	back, err := bag.ParseQoSProfiles(bag.FormatQoSProfiles(qs))
	if err != nil || !slices.Equal(back, qs) {
		t.Errorf("round trip %+v %v", back, err)
	}
}

func TestSchemaText(t *testing.T) {
	d, err := bag.NewDefinitions()
	if err != nil {
		t.Fatal(err)
	}
	enc, data, err := d.Schema("geometry_msgs/msg/PoseStamped")
	if err != nil || enc != "ros2msg" {
		t.Fatal(enc, err)
	}
	want := "std_msgs/Header header\nPose pose\n" +
		"\n================================================================================\nMSG: geometry_msgs/Pose\n" +
		"Point position\nQuaternion orientation\n" +
		"\n================================================================================\nMSG: geometry_msgs/Point\n" +
		"float64 x\nfloat64 y\nfloat64 z\n" +
		"\n================================================================================\nMSG: geometry_msgs/Quaternion\n" +
		"float64 x 0\nfloat64 y 0\nfloat64 z 0\nfloat64 w 1\n" +
		"\n================================================================================\nMSG: std_msgs/Header\n" +
		"builtin_interfaces/Time stamp\nstring frame_id\n" +
		"\n================================================================================\nMSG: builtin_interfaces/Time\n" +
		"int32 sec\nuint32 nanosec\n"
	if string(data) != want {
		t.Errorf("schema:\n%s\nwant\n%s", data, want)
	}
	if _, _, err := d.Schema("no_pkg/msg/Nothing"); !errors.Is(err, bag.ErrNoDefinition) {
		t.Errorf("unknown type: %v", err)
	}
}

func TestCreateRefusesExisting(t *testing.T) {
	if _, err := bag.Create(t.TempDir(), bag.WriterOptions{}); !errors.Is(err, bag.ErrExists) {
		t.Fatalf("err = %v", err)
	}
}

// TestTruncatedBag cuts a recording's file: the messages of its whole
// chunks are read, then the damage is reported.
func TestTruncatedBag(t *testing.T) {
	msgs := sampleMessages(t, 200)
	path := writeBag(t, t.TempDir(), bag.WriterOptions{ChunkSize: 4096, Compression: bag.CompressionZstd}, msgs)
	file := filepath.Join(path, "sample_bag_0.mcap")
	b, _ := os.ReadFile(file)
	if err := os.WriteFile(file, b[:len(b)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	got, errs := readBack(t, path, bag.ReadOptions{})
	if len(errs) == 0 || !strings.Contains(errs[len(errs)-1].Error(), "sample_bag_0.mcap: mcap: truncated") {
		t.Fatalf("errors %v", errs)
	}
	if len(got) < len(msgs)/3 || len(got) >= len(msgs) {
		t.Fatalf("read %d of %d", len(got), len(msgs))
	}
	for i, m := range got {
		if !bytes.Equal(m.Data, msgs[i].data) {
			t.Fatalf("message %d differs", i)
		}
	}
}
