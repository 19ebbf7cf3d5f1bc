package ros_test

import (
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/dynmsg"
	"github.com/afor-go/afor/ros/idl"
	"github.com/afor-go/afor/ros/interfaces"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/ros/msgs/std_srvs"
	"github.com/afor-go/afor/ros/msgs/type_description_interfaces"
)

func TestTypeDescriptionService(t *testing.T) {
	net := ros.NewMemoryNetwork()
	ctx := testCtx(t)
	talker := memNode(t, net, "talker")
	pub, err := ros.NewPublisher[std_msgs.String](talker, "chatter", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ros.NewServer(talker, "set", std_srvs.SetBool{}); err != nil {
		t.Fatal(err)
	}
	tc, err := ros.NewTypeDescriptionClient(memNode(t, net, "tool"), "/talker")
	if err != nil {
		t.Fatal(err)
	}
	if err := tc.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	reg, _ := interfaces.Registry()
	str := &std_msgs.String{}
	info, err := tc.Get(ctx, str.TypeName(), str.TypeHash(), true)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := reg.TypeDescription("std_msgs/msg/String")
	if !reflect.DeepEqual(info.Description, want) {
		t.Errorf("description %+v, want %+v", info.Description, want)
	}
	if len(info.Sources) != 1 || info.Sources[0] != (ros.TypeSource{TypeName: "std_msgs/msg/String", Encoding: "msg", Contents: "string data\n"}) {
		t.Errorf("sources %+v", info.Sources)
	}
	// A service: its file, then its implicit parts.
	sb := std_srvs.SetBool{}
	info, err = tc.Get(ctx, sb.TypeName(), sb.TypeHash(), true)
	if err != nil {
		t.Fatal(err)
	}
	var enc []string
	for _, s := range info.Sources {
		enc = append(enc, s.TypeName+":"+s.Encoding)
	}
	if got := strings.Join(enc, " "); got != "std_srvs/srv/SetBool:srv builtin_interfaces/msg/Time:msg service_msgs/msg/ServiceEventInfo:msg "+
		"std_srvs/srv/SetBool_Event:implicit std_srvs/srv/SetBool_Request:implicit std_srvs/srv/SetBool_Response:implicit" {
		t.Errorf("service sources %s", got)
	}
	// Without sources; the service's own type, in use too.
	gtd := type_description_interfaces.GetTypeDescription{}
	if info, err := tc.Get(ctx, gtd.TypeName(), gtd.TypeHash(), false); err != nil || len(info.Sources) != 0 {
		t.Errorf("GetTypeDescription itself: %+v %v", info, err)
	}
	// A type the node does not use, a malformed hash, and the type of a
	// closed publisher.
	b := &std_msgs.Bool{}
	for _, tc2 := range []struct{ name, hash, reason string }{
		{b.TypeName(), b.TypeHash(), "Type not currently in use by this node"},
		{b.TypeName(), "RIHS01_12", "Failed to parse type hash"},
		{b.TypeName(), "RIHS02_" + strings.Repeat("0", 64), "Failed to parse type hash"},
	} {
		if _, err := tc.Get(ctx, tc2.name, tc2.hash, false); !errors.Is(err, ros.ErrTypeDescription) || !strings.Contains(err.Error(), tc2.reason) {
			t.Errorf("%s %s: %v, want %q", tc2.name, tc2.hash, err, tc2.reason)
		}
	}
	_ = pub.Close()
	if _, err := tc.Get(ctx, str.TypeName(), str.TypeHash(), false); !errors.Is(err, ros.ErrTypeDescription) {
		t.Errorf("the type of a closed publisher: %v", err)
	}
}

// A type afor does not ship, described from WithInterfaces, whose
// description builds a working dynamic type on the client side.
func TestTypeDescriptionCustomType(t *testing.T) {
	net := ros.NewMemoryNetwork()
	ctx := testCtx(t)
	defs := fstest.MapFS{
		"robot_msgs/msg/Status.msg": {Data: []byte("# the robot's status\nuint8 OK=0\nuint8 level 0\nrobot_msgs/Joint[<=4] joints\nstring<=8 name \"robot\"\n")},
		"robot_msgs/msg/Joint.msg":  {Data: []byte("float64 position\nfloat64[3] axis [0.0, 0.0, 1.0]\n")},
	}
	reg := idl.NewRegistry()
	if err := reg.LoadFS(defs); err != nil {
		t.Fatal(err)
	}
	hash, err := reg.TypeHash("robot_msgs/msg/Status")
	if err != nil {
		t.Fatal(err)
	}
	c, err := ros.Open(ctx, ros.WithMiddleware(ros.Memory(net)), ros.WithInterfaces(defs), ros.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n, err := c.NewNode("robot")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ros.NewRawPublisher(n, "status", ros.RawType{Name: "robot_msgs/msg/Status", Hash: hash}, ros.QoSDefault); err != nil {
		t.Fatal(err)
	}
	tc, err := ros.NewTypeDescriptionClient(memNode(t, net, "tool"), "/robot")
	if err != nil {
		t.Fatal(err)
	}
	if err := tc.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	info, err := tc.Get(ctx, "robot_msgs/msg/Status", hash, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Sources) != 2 || !strings.HasPrefix(info.Sources[0].Contents, "# the robot's status") {
		t.Errorf("sources %+v", info.Sources)
	}
	typ, err := dynmsg.NewTypeFromDescription(info.Description)
	if err != nil {
		t.Fatal(err)
	}
	if typ.Hash() != hash {
		t.Errorf("hash %s, want %s", typ.Hash(), hash)
	}
	want, _ := dynmsg.NewType(reg, "robot_msgs/msg/Status")
	if !reflect.DeepEqual(typ.Zero(), want.Zero()) {
		t.Errorf("zero %v, want %v", typ.Zero(), want.Zero())
	}
	// A hash that is not the type's.
	if _, err := tc.Get(ctx, "robot_msgs/msg/Status", "RIHS01_"+strings.Repeat("ab", 32), false); !errors.Is(err, ros.ErrTypeDescription) {
		t.Errorf("a wrong hash: %v", err)
	}
}

func TestTypeDescriptionServiceOff(t *testing.T) {
	n := memNode(t, ros.NewMemoryNetwork(), "quiet", ros.WithArgs([]string{"--ros-args", "-p", "start_type_description_service:=false"}))
	if got := n.Graph().Snapshot().Servers("/quiet/get_type_description"); len(got) != 0 {
		t.Errorf("servers %v", got)
	}
	if err := n.SetParameters(ros.Parameter{Name: "start_type_description_service", Value: true})[0]; !errors.Is(err, ros.ErrParameterRejected) {
		t.Errorf("set the read-only parameter: %v", err)
	}
}
