package rmwdds

import (
	"bytes"
	"encoding/hex"
	"reflect"
	"strings"
	"testing"
)

// FuzzParseParticipantInfo feeds arbitrary payloads to the
// ros_discovery_info decoder: it must return a sample or an error, never
// panic, and what it accepts must encode and decode to the same sample.
func FuzzParseParticipantInfo(f *testing.F) {
	golden, _ := hex.DecodeString(strings.Join(strings.Fields(goldenTalkerInfo), ""))
	f.Add(golden)
	f.Add(golden[:30])
	be := bytes.Clone(golden)
	be[1] = 0
	f.Add(be)
	f.Add([]byte{0, 1, 0, 0})
	f.Add(append(bytes.Clone(golden[:20]), 0xff, 0xff, 0xff, 0xff))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParseParticipantInfo(b)
		if err != nil {
			return
		}
		out, err := p.AppendCDR(nil)
		if err != nil {
			t.Fatalf("accepted %x, cannot encode it: %v", b, err)
		}
		back, err := ParseParticipantInfo(out)
		if err != nil || !reflect.DeepEqual(back, p) {
			t.Fatalf("%x: round trip gives %+v, %v, want %+v", b, back, err, p)
		}
	})
}

// FuzzCutCyclone checks that the Cyclone header decoder never panics and
// that what it accepts goes back to the same bytes.
func FuzzCutCyclone(f *testing.F) {
	f.Add([]byte{0, 1, 0, 0, 8, 7, 6, 5, 4, 3, 2, 1, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2})
	f.Add([]byte{0, 1, 0, 0})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		orig := bytes.Clone(b)
		h, rest, err := CutCyclone(b)
		if err != nil {
			return
		}
		back, err := AppendCyclone(nil, rest, h)
		if err != nil || !bytes.Equal(back, orig) {
			t.Fatalf("%x: header %+v body %x gives back %x, %v", orig, h, rest, back, err)
		}
	})
}

// FuzzParseSampleIdentity checks the related sample identity decoder.
func FuzzParseSampleIdentity(f *testing.F) {
	f.Add(bytes.Repeat([]byte{0xff}, 24), true)
	f.Add(make([]byte, 23), false)
	f.Fuzz(func(t *testing.T, b []byte, le bool) {
		si, err := ParseSampleIdentity(b, le)
		if err != nil {
			return
		}
		if got := AppendSampleIdentity(nil, si, le); !bytes.Equal(got, b[:24]) {
			t.Fatalf("%x: %+v writes back %x", b, si, got)
		}
	})
}

// FuzzParseUserData checks the USER_DATA readers: no panic, and an
// accepted type hash writes back to USER_DATA that reads the same.
func FuzzParseUserData(f *testing.F) {
	f.Add([]byte("typehash=" + hashString + ";"))
	f.Add([]byte("enclave=/;"))
	f.Add([]byte("clientid=01;typehash=;;=;"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = ParseEnclave(b)
		h, err := ParseTypeHash(b)
		if err != nil || h == "" {
			return
		}
		ud, err := TypeHashUserData(h)
		if err != nil {
			t.Fatalf("%q: accepted hash %q does not encode: %v", b, h, err)
		}
		if back, err := ParseTypeHash(ud); err != nil || back != h {
			t.Fatalf("%q: %q reads back as %q, %v", b, h, back, err)
		}
	})
}

// FuzzParseTopic checks that DDS topic and type names from peers never
// panic the name parsers and that ROS names map back to the same DDS
// names.
func FuzzParseTopic(f *testing.F) {
	for _, s := range []string{"rt/chatter", "rq/set_flagRequest", "rr/set_flagReply", "ros_discovery_info",
		"std_msgs::msg::dds_::String_", "std_srvs::srv::dds_::SetBool_Request_", "rq/Request"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		kind, name := ParseTopic(s)
		var back string
		var err error
		switch kind {
		case TopicMessage:
			back, err = TopicName(name)
		case TopicRequest:
			back, err = RequestTopic(name)
		case TopicReply:
			back, err = ReplyTopic(name)
		default:
			if name != "" {
				t.Fatalf("%q: not ROS but name %q", s, name)
			}
			back = s
		}
		if err != nil || back != s {
			t.Fatalf("%q: %v %q maps back to %q, %v", s, kind, name, back, err)
		}
		if ros, ok := ROSTypeName(s); ok {
			if _, err := DDSTypeName(ros); err != nil && !strings.Contains(ros, ":") {
				t.Fatalf("%q: ROS type %q has no DDS name: %v", s, ros, err)
			}
		}
		_, _ = ServiceTypeName(s)
	})
}
