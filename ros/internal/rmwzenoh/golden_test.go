package rmwzenoh

import (
	"encoding/hex"
	"slices"
	"testing"
	"time"

	"github.com/afor-go/afor/ros/internal/rmw"
)

// Golden values from /work/shared/notes/rmw-zenoh-captured.md, captured
// from a real rmw_zenoh_cpp 0.6.6 (ROS 2 Kilted).

const (
	hashString   = "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18"
	hashSetBool  = "RIHS01_abe9e4bb6b41b40e6789712c00ec8871923e089af3f667a79992a428cff2da0a"
	hashAddTwo   = "RIHS01_e118de6bf5eeb66a2491b5bda11202e7b68f198d6f67922cf30364858239c81a"
	hashDescribe = "RIHS01_845b484d71eb0673dae682f2e3ba3c4851a65a3dcfb97bddd82c5b57e91e4cff"
	hashLog      = "RIHS01_e28ce254ca8abc06abf92773b74602cdbf116ed34fbaf294fb9f81da9f318eac"
	hashParamEv  = "RIHS01_043e627780fcad87a22d225bc2a037361dba713fca6a6b9f4b869a5aa0393204"
	hashTypeDesc = "RIHS01_69b9c19c1021405984cc60dbbb1edceb147a6538b411d812ba6afabeed962cd5"
	hashStatus   = "RIHS01_6c1684b00f177d37438febe6e709fc4e2b0d4248dca4854946f9ed8b30cda83e"

	ddsString  = "std_msgs::msg::dds_::String_"
	ddsSetBool = "std_srvs::srv::dds_::SetBool_"

	zidGnode = "1595186fd80ccdb1e467f83c97e133d5"
)

var (
	root     = rmw.NodeName{Namespace: "/", Enclave: "/"}
	gnode    = rmw.NodeName{Namespace: "/robot1", Name: "gnode", Enclave: "/enc1"}
	second   = rmw.NodeName{Namespace: "/", Name: "second", Enclave: "/enc1"}
	depth10  = rmw.QoS{History: rmw.HistoryKeepLast, Depth: 10}
	depth1k  = rmw.QoS{History: rmw.HistoryKeepLast, Depth: 1000}
	rosoutQ  = rmw.QoS{History: rmw.HistoryKeepLast, Depth: 1000, Durability: rmw.DurabilityTransientLocal, Lifespan: 10 * time.Second}
	statusQ  = rmw.QoS{History: rmw.HistoryKeepLast, Depth: 1, Durability: rmw.DurabilityTransientLocal}
	sensorQ  = rmw.QoS{History: rmw.HistoryKeepLast, Depth: 5, Reliability: rmw.ReliabilityBestEffort}
	keepAllQ = rmw.QoS{History: rmw.HistoryKeepAll, Depth: 1}
)

func named(n rmw.NodeName, name string) rmw.NodeName { n.Name = name; return n }

func mustAdapt(t *testing.T, q rmw.QoS) rmw.QoS {
	t.Helper()
	a, err := adaptQoS(q)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestGoldenQoSStrings(t *testing.T) {
	cases := []struct {
		name string
		q    rmw.QoS
		want string
	}{
		{"default depth 10", depth10, "::,10:,:,:,,"},
		{"parameters depth 1000", depth1k, "::,1000:,:,:,,"},
		{"rosout", rosoutQ, ":1:,1000:,:10,0:,,"},
		{"action status", statusQ, ":1:,1:,:,:,,"},
		{"sensor data", sensorQ, "2::,5:,:,:,,"},
		{"keep all depth 1", keepAllQ, "::2,1:,:,:,,"},
		{"TL reliable depth 5", rmw.QoS{Depth: 5, Durability: rmw.DurabilityTransientLocal, Reliability: rmw.ReliabilityReliable}, ":1:,5:,:,:,,"},
		{"TL best effort depth 5", rmw.QoS{Depth: 5, Durability: rmw.DurabilityTransientLocal, Reliability: rmw.ReliabilityBestEffort}, "2:1:,5:,:,:,,"},
		{"timed", rmw.QoS{Depth: 7, Deadline: time.Second + 500, Lifespan: 2 * time.Second,
			Liveliness: rmw.LivelinessManualByTopic, LivelinessLease: 3 * time.Second}, "::,7:1,500:2,0:3,3,0"},
		{"all system defaults, depth 0", rmw.QoS{}, "::,:,:,:,,"},
		{"explicit defaults", rmw.QoS{Reliability: 1, Durability: 2, History: 1, Depth: 42, Liveliness: 1}, "::,:,:,:,,"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := mustAdapt(t, c.q)
			if got := qosString(a); got != c.want {
				t.Fatalf("qosString = %q, want %q", got, c.want)
			}
			back, err := parseQoS(c.want)
			if err != nil {
				t.Fatal(err)
			}
			if back != a {
				t.Fatalf("parseQoS(%q) = %+v, want %+v", c.want, back, a)
			}
		})
	}
}

func TestAdaptQoSRejects(t *testing.T) {
	for _, q := range []rmw.QoS{{Depth: -1}, {Reliability: 7}, {Durability: 9}, {History: 3}, {Liveliness: 2}, {Deadline: -1}} {
		if _, err := adaptQoS(q); err == nil {
			t.Errorf("adaptQoS(%+v) accepted", q)
		}
	}
}

func TestGoldenDataKeys(t *testing.T) {
	cases := []struct{ name, dds, hash, want string }{
		{"/chatter", ddsString, hashString, "0/chatter/std_msgs::msg::dds_::String_/" + hashString},
		{"/set_flag", ddsSetBool, hashSetBool, "0/set_flag/std_srvs::srv::dds_::SetBool_/" + hashSetBool},
		{"/add_two_ints", "example_interfaces::srv::dds_::AddTwoInts_", hashAddTwo,
			"0/add_two_ints/example_interfaces::srv::dds_::AddTwoInts_/" + hashAddTwo},
		{"/latched_pub/describe_parameters", "rcl_interfaces::srv::dds_::DescribeParameters_", hashDescribe,
			"0/latched_pub/describe_parameters/rcl_interfaces::srv::dds_::DescribeParameters_/" + hashDescribe},
		{"/fibonacci/_action/send_goal", "test_msgs::action::dds_::Fibonacci_SendGoal_",
			"RIHS01_d807633803e38e164276573cd97e9fbd71e109c290bbf4cc312a0a1c9da7bbd9",
			"0/fibonacci/_action/send_goal/test_msgs::action::dds_::Fibonacci_SendGoal_/RIHS01_d807633803e38e164276573cd97e9fbd71e109c290bbf4cc312a0a1c9da7bbd9"},
		{"/fibonacci/_action/status", "action_msgs::msg::dds_::GoalStatusArray_", hashStatus,
			"0/fibonacci/_action/status/action_msgs::msg::dds_::GoalStatusArray_/" + hashStatus},
		{"/robot1/a/b", ddsString, hashString, "0/robot1/a/b/std_msgs::msg::dds_::String_/" + hashString},
		{"/robot1/gnode/private", ddsString, hashString, "0/robot1/gnode/private/std_msgs::msg::dds_::String_/" + hashString},
	}
	for _, c := range cases {
		if got := dataKey(0, c.name, c.dds, c.hash); got != c.want {
			t.Errorf("dataKey(%q) =\n %q\nwant\n %q", c.name, got, c.want)
		}
	}
	if got, want := dataKey(42, "/chatter", ddsString, hashString), "42/chatter/std_msgs::msg::dds_::String_/"+hashString; got != want {
		t.Errorf("domain 42: %q, want %q", got, want)
	}
}

func TestGoldenZIDString(t *testing.T) {
	for _, s := range []string{"43323e6689f1000939a0a3a13f9ede6", "4eeef373aa448b06578be633528491e0", zidGnode} {
		be, err := hex.DecodeString(map[bool]string{true: "0" + s, false: s}[len(s)%2 == 1])
		if err != nil {
			t.Fatal(err)
		}
		wire := slices.Clone(be)
		slices.Reverse(wire)
		if got := zidString(wire); got != s {
			t.Errorf("zidString(% x) = %q, want %q", wire, got, s)
		}
		if got := zidFromSession(hex.EncodeToString(be)); got != s {
			t.Errorf("zidFromSession = %q, want %q", got, s)
		}
	}
	// A wire ID trimmed of its most significant zero byte prints the same.
	if got := zidString([]byte{0xe6, 0xed, 0x00}); got != "ede6" {
		t.Errorf("zidString = %q, want ede6", got)
	}
	if got := zidString([]byte{0}); got != "0" {
		t.Errorf("zero ZID = %q", got)
	}
}

// goldenToken is one captured token and how to rebuild it.
type goldenToken struct {
	want  string
	build func() string
	gid   string // hex of the captured GID, when known
}

func goldenTokens() []goldenToken {
	const zidTalker, zidListener = "4eeef373aa448b06578be633528491e0", "43323e6689f1000939a0a3a13f9ede6"
	const zidServer, zidClient = "5a07f412c2459567bffefa79f3d8fb2b", "2fd43084585032cf04c75b059bbea80f"
	const zidLatched, zidFib = "59cf8c5591445acbb54c57938e8f5ba9", "41c81ca506c889c67eae48dab8ae133b"
	return []goldenToken{
		{want: "@ros2_lv/0/4eeef373aa448b06578be633528491e0/0/0/NN/%/%/talker",
			build: func() string { return nodeToken(0, zidTalker, 0, named(root, "talker")) }},
		{want: "@ros2_lv/0/4eeef373aa448b06578be633528491e0/0/10/MP/%/%/talker/%chatter/std_msgs::msg::dds_::String_/" + hashString + "/::,10:,:,:,,",
			build: func() string {
				return entityToken(0, zidTalker, 0, 10, kindPublisher, named(root, "talker"), "/chatter", ddsString, hashString, depth10)
			},
			gid: "1d3552d47a9fb0dc58055e39f1a0b1ed"},
		{want: "@ros2_lv/0/43323e6689f1000939a0a3a13f9ede6/0/10/MS/%/%/listener/%chatter/std_msgs::msg::dds_::String_/" + hashString + "/::,10:,:,:,,",
			build: func() string {
				return entityToken(0, zidListener, 0, 10, kindSubscription, named(root, "listener"), "/chatter", ddsString, hashString, depth10)
			}},
		{want: "@ros2_lv/0/5a07f412c2459567bffefa79f3d8fb2b/0/10/SS/%/%/setbool_server/%set_flag/std_srvs::srv::dds_::SetBool_/" + hashSetBool + "/::,10:,:,:,,",
			build: func() string {
				return entityToken(0, zidServer, 0, 10, kindService, named(root, "setbool_server"), "/set_flag", ddsSetBool, hashSetBool, depth10)
			}},
		{want: "@ros2_lv/0/2fd43084585032cf04c75b059bbea80f/0/10/SC/%/%/setbool_client/%set_flag/std_srvs::srv::dds_::SetBool_/" + hashSetBool + "/::,10:,:,:,,",
			build: func() string {
				return entityToken(0, zidClient, 0, 10, kindClient, named(root, "setbool_client"), "/set_flag", ddsSetBool, hashSetBool, depth10)
			},
			gid: "d1c5fb7d389e7b07f43a364d34cdea43"},
		{want: "@ros2_lv/0/59cf8c5591445acbb54c57938e8f5ba9/0/10/MP/%/%/latched_pub/%latched/std_msgs::msg::dds_::String_/" + hashString + "/:1:,5:,:,:,,",
			build: func() string {
				return entityToken(0, zidLatched, 0, 10, kindPublisher, named(root, "latched_pub"), "/latched", ddsString, hashString,
					rmw.QoS{Depth: 5, Durability: rmw.DurabilityTransientLocal})
			},
			gid: "63c5e2740d431c42fd11b724b74c35e2"},
		{want: "@ros2_lv/0/41c81ca506c889c67eae48dab8ae133b/0/14/MP/%/%/fib_server/%fibonacci%_action%status/action_msgs::msg::dds_::GoalStatusArray_/" + hashStatus + "/:1:,1:,:,:,,",
			build: func() string {
				return entityToken(0, zidFib, 0, 14, kindPublisher, named(root, "fib_server"), "/fibonacci/_action/status",
					"action_msgs::msg::dds_::GoalStatusArray_", hashStatus, statusQ)
			}},
		// Nested namespace, enclave /enc1.
		{want: "@ros2_lv/0/" + zidGnode + "/0/0/NN/%enc1/%robot1/gnode",
			build: func() string { return nodeToken(0, zidGnode, 0, gnode) }},
		{want: "@ros2_lv/0/" + zidGnode + "/0/1/MP/%enc1/%robot1/gnode/%rosout/rcl_interfaces::msg::dds_::Log_/" + hashLog + "/:1:,1000:,:10,0:,,",
			build: func() string {
				return entityToken(0, zidGnode, 0, 1, kindPublisher, gnode, "/rosout", "rcl_interfaces::msg::dds_::Log_", hashLog, rosoutQ)
			}},
		{want: "@ros2_lv/0/" + zidGnode + "/0/2/MP/%enc1/%robot1/gnode/%parameter_events/rcl_interfaces::msg::dds_::ParameterEvent_/" + hashParamEv + "/::,1000:,:,:,,",
			build: func() string {
				return entityToken(0, zidGnode, 0, 2, kindPublisher, gnode, "/parameter_events", "rcl_interfaces::msg::dds_::ParameterEvent_", hashParamEv, depth1k)
			}},
		{want: "@ros2_lv/0/" + zidGnode + "/0/3/SS/%enc1/%robot1/gnode/%robot1%gnode%describe_parameters/rcl_interfaces::srv::dds_::DescribeParameters_/" + hashDescribe + "/::,1000:,:,:,,",
			build: func() string {
				return entityToken(0, zidGnode, 0, 3, kindService, gnode, "/robot1/gnode/describe_parameters", "rcl_interfaces::srv::dds_::DescribeParameters_", hashDescribe, depth1k)
			}},
		{want: "@ros2_lv/0/" + zidGnode + "/0/9/SS/%enc1/%robot1/gnode/%robot1%gnode%get_type_description/type_description_interfaces::srv::dds_::GetTypeDescription_/" + hashTypeDesc + "/::,10:,:,:,,",
			build: func() string {
				return entityToken(0, zidGnode, 0, 9, kindService, gnode, "/robot1/gnode/get_type_description", "type_description_interfaces::srv::dds_::GetTypeDescription_", hashTypeDesc, depth10)
			}},
		{want: "@ros2_lv/0/" + zidGnode + "/0/10/MP/%enc1/%robot1/gnode/%robot1%gnode%private/std_msgs::msg::dds_::String_/" + hashString + "/::,10:,:,:,,",
			build: func() string {
				return entityToken(0, zidGnode, 0, 10, kindPublisher, gnode, "/robot1/gnode/private", ddsString, hashString, depth10)
			}},
		{want: "@ros2_lv/0/" + zidGnode + "/0/11/MP/%enc1/%robot1/gnode/%robot1%a%b/std_msgs::msg::dds_::String_/" + hashString + "/::,10:,:,:,,",
			build: func() string {
				return entityToken(0, zidGnode, 0, 11, kindPublisher, gnode, "/robot1/a/b", ddsString, hashString, depth10)
			}},
		{want: "@ros2_lv/0/" + zidGnode + "/0/12/MS/%enc1/%robot1/gnode/%robot1%sensor/std_msgs::msg::dds_::String_/" + hashString + "/2::,5:,:,:,,",
			build: func() string {
				return entityToken(0, zidGnode, 0, 12, kindSubscription, gnode, "/robot1/sensor", ddsString, hashString, sensorQ)
			}},
		{want: "@ros2_lv/0/" + zidGnode + "/0/13/MP/%enc1/%robot1/gnode/%robot1%keepall/std_msgs::msg::dds_::String_/" + hashString + "/::2,1:,:,:,,",
			build: func() string {
				return entityToken(0, zidGnode, 0, 13, kindPublisher, gnode, "/robot1/keepall", ddsString, hashString, keepAllQ)
			}},
		{want: "@ros2_lv/0/" + zidGnode + "/0/14/MP/%enc1/%robot1/gnode/%robot1%timed/std_msgs::msg::dds_::String_/" + hashString + "/::,7:1,500:2,0:3,3,0",
			build: func() string {
				return entityToken(0, zidGnode, 0, 14, kindPublisher, gnode, "/robot1/timed", ddsString, hashString,
					rmw.QoS{Depth: 7, Deadline: time.Second + 500, Lifespan: 2 * time.Second, Liveliness: rmw.LivelinessManualByTopic, LivelinessLease: 3 * time.Second})
			}},
		{want: "@ros2_lv/0/" + zidGnode + "/0/16/SC/%enc1/%robot1/gnode/%robot1%robot_srv/std_srvs::srv::dds_::SetBool_/" + hashSetBool + "/::,10:,:,:,,",
			build: func() string {
				return entityToken(0, zidGnode, 0, 16, kindClient, gnode, "/robot1/robot_srv", ddsSetBool, hashSetBool, depth10)
			}},
		{want: "@ros2_lv/0/" + zidGnode + "/0/17/SS/%enc1/%robot1/gnode/%robot1%robot_srv/std_srvs::srv::dds_::SetBool_/" + hashSetBool + "/::,10:,:,:,,",
			build: func() string {
				return entityToken(0, zidGnode, 0, 17, kindService, gnode, "/robot1/robot_srv", ddsSetBool, hashSetBool, depth10)
			}},
		// Second node of the same context.
		{want: "@ros2_lv/0/" + zidGnode + "/18/18/NN/%enc1/%/second",
			build: func() string { return nodeToken(0, zidGnode, 18, second) }},
		{want: "@ros2_lv/0/" + zidGnode + "/18/28/MP/%enc1/%/second/%abs%topic/std_msgs::msg::dds_::String_/" + hashString + "/::,10:,:,:,,",
			build: func() string {
				return entityToken(0, zidGnode, 18, 28, kindPublisher, second, "/abs/topic", ddsString, hashString, depth10)
			}},
		// Domain 42 (an earlier capture: same shape).
		{want: "@ros2_lv/42/" + zidGnode + "/0/0/NN/%/%/talker",
			build: func() string { return nodeToken(42, zidGnode, 0, rmw.NodeName{Name: "talker"}) }},
	}
}

func TestGoldenTokens(t *testing.T) {
	for _, g := range goldenTokens() {
		got := g.build()
		if got != g.want {
			t.Errorf("token\n got %q\nwant %q", got, g.want)
			continue
		}
		tok, err := parseToken(got)
		if err != nil {
			t.Errorf("parseToken(%q): %v", got, err)
			continue
		}
		// Parsing and rebuilding gives the same bytes.
		var again string
		if tok.Kind == kindNode {
			again = nodeToken(tok.Domain, tok.ZID, tok.NodeID, tok.Node)
		} else {
			again = entityToken(tok.Domain, tok.ZID, tok.NodeID, tok.EntityID, tok.Kind, tok.Node, tok.Name, tok.DDSType, tok.Hash, tok.QoS)
		}
		if again != got {
			t.Errorf("round trip\n got %q\nwant %q", again, got)
		}
		if g.gid != "" {
			gid := gidOf(got)
			if h := hex.EncodeToString(gid[:]); h != g.gid {
				t.Errorf("GID of %q = %s, want %s", got, h, g.gid)
			}
		}
	}
}

func TestParseTokenEndpoint(t *testing.T) {
	raw := goldenTokens()[1].want
	tok, err := parseToken(raw)
	if err != nil {
		t.Fatal(err)
	}
	ep := tok.endpoint(raw)
	want := rmw.Endpoint{Kind: rmw.KindPublisher, Node: rmw.NodeName{Enclave: "/", Namespace: "/", Name: "talker"},
		Name: "/chatter", Type: "std_msgs/msg/String", TypeHash: hashString, QoS: mustAdapt(t, depth10), GID: gidOf(raw)}
	if ep != want {
		t.Fatalf("endpoint = %+v\nwant %+v", ep, want)
	}
	if tok.ZID != "4eeef373aa448b06578be633528491e0" || tok.Domain != 0 || tok.NodeID != 0 || tok.EntityID != 10 {
		t.Fatalf("token ids = %+v", tok)
	}
	if got := rosTypeName("std_srvs::srv::dds_::SetBool_"); got != "std_srvs/srv/SetBool" {
		t.Fatalf("rosTypeName = %q", got)
	}
	if got := rosTypeName("weird"); got != "weird" {
		t.Fatalf("rosTypeName(weird) = %q", got)
	}
}

func TestParseTokenRejects(t *testing.T) {
	good := goldenTokens()[1].want
	for _, s := range []string{
		"", "@ros2_lv", "@ros2_lv/0/z/0/0/NN/%/%", "@ros2_lv/0/z/0/0/NN/%/%/n/extra",
		"@ros2_lv/0/z/0/0/XX/%/%/n", "@ros2_lv/x/z/0/0/NN/%/%/n", "@ros2_lv/0/z/-1/0/NN/%/%/n",
		"@ros2_lv/0/z/0/0/NN/%//n", "@other/0/z/0/0/NN/%/%/n", "@ros2_lv/0/z/0/0/MP/%/%/n",
		"@ros2_lv/0/z/0/1/NN/%/%/n/t/T/H/::,10:,:,:,,",
		good[:len(good)-1] + ":", good[:len(good)-2], good + "/x",
		"@ros2_lv/0/z/0/1/MP/%/%/n/t/T/H/::,10:,:,:,,,",
		"@ros2_lv/0/z/0/1/MP/%/%/n/t/T/H/9::,10:,:,:,,",
		"@ros2_lv/0/z/0/1/MP/%/%/n/t/T/H/::,x:,:,:,,",
		"@ros2_lv/0/z/0/1/MP/%/%/n/t/T/H/::,10:1,2000000000:,:,,",
	} {
		if tok, err := parseToken(s); err == nil {
			t.Errorf("parseToken(%q) accepted: %+v", s, tok)
		}
	}
}

func TestGoldenAttachments(t *testing.T) {
	cases := []struct {
		name, hex string
		want      attachment
	}{
		{"chatter seq 1", "0100000000000000037fd7600e39ed18101d3552d47a9fb0dc58055e39f1a0b1ed",
			attachment{Seq: 1, SourceTime: 1796154560307756803, GID: gidOf(goldenTokens()[1].want)}},
		{"SetBool request", "010000000000000080dcb220" + "1039ed1810" + "d1c5fb7d389e7b07f43a364d34cdea43",
			attachment{Seq: 1, SourceTime: 0x18ed391020b2dc80, GID: gidOf(goldenTokens()[4].want)}},
		{"SetBool reply", "010000000000000097a5c920" + "1039ed1810" + "d1c5fb7d389e7b07f43a364d34cdea43",
			attachment{Seq: 1, SourceTime: 0x18ed391020c9a597, GID: gidOf(goldenTokens()[4].want)}},
		{"latched cache reply", "01000000000000001bb8b7211139ed181063c5e2740d431c42fd11b724b74c35e2",
			attachment{Seq: 1, SourceTime: 0x18ed391121b7b81b, GID: gidOf(goldenTokens()[5].want)}},
	}
	for _, c := range cases {
		b, err := hex.DecodeString(c.hex)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendAttachment(nil, c.want); !slices.Equal(got, b) {
			t.Errorf("%s: encode = %x, want %s", c.name, got, c.hex)
		}
		a, err := parseAttachment(b)
		if err != nil || a != c.want {
			t.Errorf("%s: decode = %+v, %v; want %+v", c.name, a, err, c.want)
		}
	}
	if ts := time.Unix(0, 1796154560307756803).UTC(); ts.Format(time.RFC3339Nano) != "2026-12-01T19:49:20.307756803Z" {
		t.Errorf("source time %v", ts)
	}
}

func TestParseAttachmentRejects(t *testing.T) {
	good := appendAttachment(nil, attachment{Seq: 1})
	bad := slices.Clone(good)
	bad[16] = 15
	for _, b := range [][]byte{nil, {}, good[:32], append(slices.Clone(good), 0), bad} {
		if _, err := parseAttachment(b); err == nil {
			t.Errorf("parseAttachment(%x) accepted", b)
		}
	}
}
