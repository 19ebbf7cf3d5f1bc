package bag_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/peers"
	"github.com/afor-go/afor/ros/bag"
)

// bagPeer runs testdata/bag_peer.py (the mcap, mcap-ros2-support and
// rosbags packages of .ci/requirements-bag.txt) with commands, in one
// process, and returns the output of each.
func bagPeer(t testing.TB, cmds ...[]string) [][]byte {
	t.Helper()
	py := peers.Python(t, "mcap", "mcap_ros2", "rosbags", "numpy")
	args := []string{filepath.Join("testdata", "bag_peer.py")}
	for i, c := range cmds {
		if i > 0 {
			args = append(args, "--")
		}
		args = append(args, c...)
	}
	cmd := exec.Command(py, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bag_peer.py %s: %v\n%s", strings.Join(args[1:], " "), err, stderr.Bytes())
	}
	var outs [][]byte
	for _, line := range bytes.SplitAfter(out, []byte("\n")) {
		if bytes.HasPrefix(line, []byte(`{"__cmd__"`)) {
			outs = append(outs, nil)
			continue
		}
		if len(outs) > 0 {
			outs[len(outs)-1] = append(outs[len(outs)-1], line...)
		}
	}
	if len(outs) != len(cmds) {
		t.Fatalf("bag_peer.py ran %d of %d commands", len(outs), len(cmds))
	}
	return outs
}

func cmd(args ...string) []string { return args }

// peerMessage is a message as bag_peer.py prints it.
type peerMessage struct {
	Topic       string  `json:"topic"`
	LogTime     int64   `json:"log_time"`
	PublishTime *int64  `json:"publish_time"`
	Sequence    *uint32 `json:"sequence"`
	Msg         any     `json:"msg"`
}

func peerMessages(t testing.TB, out []byte) []peerMessage {
	t.Helper()
	var msgs []peerMessage
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var m peerMessage
		d := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		d.UseNumber()
		if err := d.Decode(&m); err != nil {
			t.Fatalf("%v: %s", err, sc.Bytes())
		}
		msgs = append(msgs, m)
	}
	return msgs
}

// sameValue compares decoded messages as JSON values: numbers within a
// float32's precision (a float32 prints shorter in Go than the double
// Python widens it to), everything else exactly.
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if !sameValue(v, y[k]) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		xi, err1 := x.Int64()
		yi, err2 := y.Int64()
		if err1 == nil && err2 == nil {
			return xi == yi
		}
		if !strings.ContainsAny(string(x)+string(y), ".eE") {
			return x == y // integers beyond int64: the digits
		}
		xf, err1 := x.Float64()
		yf, err2 := y.Float64()
		if err1 != nil || err2 != nil {
			return false
		}
		return xf == yf || math.Abs(xf-yf) <= 1e-6*math.Max(math.Abs(xf), math.Abs(yf))
	}
	return reflect.DeepEqual(a, b)
}

// goJSON decodes a message with the bag's own definitions and returns it
// as JSON values.
func goJSON(t testing.TB, r *bag.Reader, m bag.Message) any {
	t.Helper()
	typ, err := r.Type(m.Topic, nil)
	if err != nil {
		t.Fatal(err)
	}
	v, err := typ.Decode(m.Data)
	if err != nil {
		t.Fatal(err)
	}
	j, err := typ.FormatJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	d := json.NewDecoder(bytes.NewReader(j))
	d.UseNumber()
	if err := d.Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// compareWithPeer checks that the peer read every message of the bag at
// path, in order, with equal values.
func compareWithPeer(t *testing.T, path string, got []peerMessage, times bool) {
	t.Helper()
	r, err := bag.Open(path, bag.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	i := 0
	for m, err := range r.Messages(bag.ReadOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		if i >= len(got) {
			t.Fatalf("the peer read %d messages, afor %d or more", len(got), i+1)
		}
		p := got[i]
		if p.Topic != m.Topic || p.LogTime != m.Received.UnixNano() {
			t.Fatalf("message %d: peer %s at %d, afor %s at %d", i, p.Topic, p.LogTime, m.Topic, m.Received.UnixNano())
		}
		if times && (p.PublishTime == nil || *p.PublishTime != m.Published.UnixNano() || p.Sequence == nil || *p.Sequence != m.Sequence) {
			t.Fatalf("message %d: peer published %v seq %v, afor %v seq %d", i, p.PublishTime, p.Sequence, m.Published.UnixNano(), m.Sequence)
		}
		if g := goJSON(t, r, m); !sameValue(g, p.Msg) {
			gj, _ := json.Marshal(g)
			pj, _ := json.Marshal(p.Msg)
			t.Fatalf("message %d on %s:\nafor %s\npeer %s", i, m.Topic, gj, pj)
		}
		i++
	}
	if i != len(got) || i == 0 {
		t.Fatalf("the peer read %d messages, afor %d", len(got), i)
	}
}

// TestPeersReadAforBags writes bags with afor, uncompressed and with zstd
// and lz4 chunks, and reads them back with mcap_ros2 (decoding with the
// schemas afor wrote) and rosbags (through metadata.yaml and its own
// parser of the schemas): every message, decoded and equal, and the same
// counts, times and types.
func TestPeersReadAforBags(t *testing.T) {
	msgs := sampleMessages(t, 40)
	// rosbags computes the RIHS01 hashes of types with byte or char
	// fields wrongly (test_msgs/msg/BasicTypes: it finds 51eee6..., rosidl
	// 7c300a...) and refuses bags whose topic_type_hash disagrees, as a
	// bag rosbag2 records would: it reads the other topics.
	var forRosbags []written
	for _, m := range msgs {
		if !strings.HasPrefix(m.typ, "test_msgs/") {
			forRosbags = append(forRosbags, m)
		}
	}
	for _, c := range []bag.Compression{bag.CompressionNone, bag.CompressionZstd, bag.CompressionLZ4} {
		name := string(c)
		if name == "" {
			name = "uncompressed"
		}
		t.Run(name, func(t *testing.T) {
			o := bag.WriterOptions{Compression: c, ChunkSize: 4096, ROSDistro: "kilted"}
			path := writeBag(t, t.TempDir(), o, msgs)
			file := filepath.Join(path, "sample_bag_0.mcap")
			rbPath := writeBag(t, t.TempDir(), o, forRosbags)
			outs := bagPeer(t, cmd("read-mcap", file), cmd("info-mcap", file), cmd("read-rosbags", rbPath), cmd("info-rosbags", rbPath))
			compareWithPeer(t, path, peerMessages(t, outs[0]), true)
			checkInfo(t, file, outs[1], false)
			compareWithPeer(t, rbPath, peerMessages(t, outs[2]), false)
			checkInfo(t, rbPath, outs[3], true)
		})
	}
}

// checkInfo compares what afor and a peer say of a bag: message count,
// first and last receive times, topics with their types and counts.
func checkInfo(t *testing.T, path string, out []byte, rosbags bool) {
	t.Helper()
	var info struct {
		Count   uint64           `json:"count"`
		Start   int64            `json:"start"`
		End     int64            `json:"end"`
		Topics  map[string][]any `json:"topics"`
		Profile string           `json:"profile"`
	}
	d := json.NewDecoder(bytes.NewReader(out))
	d.UseNumber()
	if err := d.Decode(&info); err != nil {
		t.Fatal(err)
	}
	r, err := bag.Open(path, bag.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	m := r.Metadata()
	end := info.End
	if rosbags {
		end-- // rosbags's end time is one past the last message
	}
	if info.Count != m.MessageCount || info.Start != m.StartingTime.UnixNano() || end != m.End().UnixNano() {
		t.Errorf("peer: %d messages from %d to %d; afor: %d from %d to %d", info.Count, info.Start, end,
			m.MessageCount, m.StartingTime.UnixNano(), m.End().UnixNano())
	}
	if !rosbags && info.Profile != "ros2" {
		t.Errorf("profile %q", info.Profile)
	}
	if len(info.Topics) != len(m.Topics) {
		t.Errorf("peer topics %v, afor %+v", info.Topics, m.Topics)
	}
	for _, ti := range m.Topics {
		p, ok := info.Topics[ti.Name]
		if !ok || len(p) != 2 || p[0] != ti.Type || fmt.Sprint(p[1]) != fmt.Sprint(ti.MessageCount) {
			t.Errorf("topic %s: peer %v, afor %s %d", ti.Name, p, ti.Type, ti.MessageCount)
		}
	}
}

// TestAforReadsPeerBags reads bags written by mcap_ros2 (uncompressed,
// zstd, lz4 chunks) and rosbags (rosbag2 folders, uncompressed and zstd
// chunks): every message, decoded from the files' own schemas and equal to
// what the peers read, and the same counts, times and types.
func TestAforReadsPeerBags(t *testing.T) {
	dir := t.TempDir()
	mcaps, folders := []string{"none", "zstd", "lz4"}, []string{"none", "zstd"}
	var writes, reads [][]string
	for _, c := range mcaps {
		file := filepath.Join(dir, "m_"+c+".mcap")
		writes = append(writes, cmd("write-mcap", file, c))
		reads = append(reads, cmd("read-mcap", file), cmd("info-mcap", file))
	}
	for _, c := range folders {
		path := filepath.Join(dir, "rb_"+c)
		writes = append(writes, cmd("write-rosbags", path, c))
		reads = append(reads, cmd("read-rosbags", path), cmd("info-rosbags", path))
	}
	bagPeer(t, writes...)
	outs := bagPeer(t, reads...)
	for i, c := range mcaps {
		t.Run("mcap_ros2 "+c, func(t *testing.T) {
			file := filepath.Join(dir, "m_"+c+".mcap")
			compareWithPeer(t, file, peerMessages(t, outs[2*i]), true)
			checkInfo(t, file, outs[2*i+1], false)
			r, err := bag.Open(file, bag.ReaderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if got := len(r.Topics()); got != 3 {
				t.Errorf("%d topics", got)
			}
		})
	}
	for i, c := range folders {
		k := 2 * (len(mcaps) + i)
		t.Run("rosbags "+c, func(t *testing.T) {
			path := filepath.Join(dir, "rb_"+c)
			compareWithPeer(t, path, peerMessages(t, outs[k]), false)
			checkInfo(t, path, outs[k+1], true)
			r, err := bag.Open(path, bag.ReaderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if m := r.Metadata(); m.ROSDistro != "rosbags" || len(m.Topics) != 3 || m.Topics[0].TypeHash == "" {
				t.Errorf("metadata %+v", m)
			}
			// A time range and a topic, against the peer's own list.
			start := time.Unix(0, 1_700_000_000_100_000_000)
			n := 0
			for m, err := range r.Messages(bag.ReadOptions{Topics: []string{"/pose"}, Start: start}) {
				if err != nil || m.Topic != "/pose" || m.Received.Before(start) {
					t.Fatal(m, err)
				}
				n++
			}
			if n != 30 {
				t.Errorf("%d /pose messages from %v, want 30", n, start)
			}
		})
	}
}
