package rmwdds

import (
	"reflect"
	"testing"

	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/transport/dds"
)

// endpoint returns the SEDP data of a ROS endpoint.
func endpoint(t *testing.T, g dds.GUID, topic, typ, hash string, q rmw.QoS) Endpoint {
	t.Helper()
	d, err := DDSQoS(q, hash)
	if err != nil {
		t.Fatal(err)
	}
	return Endpoint{GUID: g, Topic: topic, TypeName: typ, QoS: d, UserData: d.UserData}
}

func TestGraphCache(t *testing.T) {
	const setBoolReq, setBoolRep = "std_srvs::srv::dds_::SetBool_Request_", "std_srvs::srv::dds_::SetBool_Response_"
	talker := talkerInfo(t) // participant …01c1, node /talker, writer …0303
	chatterW := talker.Nodes[0].Writers[0]
	server := guid(t, "010f7f01 aaaaaaaa 00000000 000001c1")
	rqR := guid(t, "010f7f01 aaaaaaaa 00000000 00000104")
	rrW := guid(t, "010f7f01 aaaaaaaa 00000000 00000203")
	subR := guid(t, "010f7f01 aaaaaaaa 00000000 00000304")
	stray := guid(t, "010f7f01 aaaaaaaa 00000000 00000404")
	infoR := guid(t, "010f7f01 aaaaaaaa 00000000 00000504")

	c := NewGraphCache()
	if g := c.Graph(); len(g.Nodes) != 0 || len(g.Endpoints) != 0 {
		t.Fatalf("empty cache: %+v", g)
	}
	if c.AddParticipant(talker.GUID, []byte("enclave=/;")) {
		t.Error("a participant without nodes changed the graph")
	}
	if !c.UpdateInfo(talker) {
		t.Error("first info: no change")
	}
	if c.UpdateInfo(talkerInfo(t)) {
		t.Error("same info again: a change")
	}
	if !c.AddEndpoint(endpoint(t, chatterW, "rt/chatter", "std_msgs::msg::dds_::String_", hashString, qosDefault)) {
		t.Error("publisher: no change")
	}
	// The server participant: a node with a service and a subscription,
	// announced in a secure enclave.
	c.AddParticipant(server, []byte("enclave=/secure;"))
	c.UpdateInfo(ParticipantInfo{GUID: server, Nodes: []NodeEntities{
		{Namespace: "/ns", Name: "server", Readers: []dds.GUID{rqR, subR}, Writers: []dds.GUID{rrW}},
	}})
	c.AddEndpoint(endpoint(t, rqR, "rq/ns/set_flagRequest", setBoolReq, hashSetFlagRequest, qosDefault))
	c.AddEndpoint(endpoint(t, rrW, "rr/ns/set_flagReply", setBoolRep, hashSetFlagReply, qosDefault))
	c.AddEndpoint(endpoint(t, subR, "rt/chatter", "std_msgs::msg::dds_::String_", hashString, qosSensor))
	// A reader no node lists, and the graph topic's reader (not ROS).
	c.AddEndpoint(endpoint(t, stray, "rt/other", "pkg::msg::dds_::X_", "", qosDefault))
	if c.AddEndpoint(endpoint(t, infoR, "ros_discovery_info", DiscoveryInfoTypeName, DiscoveryInfoTypeHash, qosDefault)) {
		t.Error("ros_discovery_info reader changed the graph")
	}

	talkerNode := rmw.NodeName{Namespace: "/", Name: "talker", Enclave: "/"}
	serverNode := rmw.NodeName{Namespace: "/ns", Name: "server", Enclave: "/secure"}
	unknown := rmw.NodeName{Namespace: NodeNamespaceUnknown, Name: NodeNameUnknown}
	reliable := rmw.QoS{Reliability: rmw.ReliabilityReliable, Durability: rmw.DurabilityVolatile, Liveliness: rmw.LivelinessAutomatic}
	best := reliable
	best.Reliability = rmw.ReliabilityBestEffort
	want := &rmw.Graph{
		Nodes: []rmw.NodeName{talkerNode, serverNode},
		Endpoints: []rmw.Endpoint{
			{Kind: rmw.KindPublisher, Node: talkerNode, Name: "/chatter", Type: "std_msgs/msg/String", TypeHash: hashString, QoS: reliable, GID: GIDOf(chatterW)},
			{Kind: rmw.KindSubscription, Node: serverNode, Name: "/chatter", Type: "std_msgs/msg/String", TypeHash: hashString, QoS: best, GID: GIDOf(subR)},
			{Kind: rmw.KindService, Node: serverNode, Name: "/ns/set_flag", Type: "std_srvs/srv/SetBool", TypeHash: hashSetFlagRequest, QoS: reliable, GID: GIDOf(rqR)},
			{Kind: rmw.KindSubscription, Node: unknown, Name: "/other", Type: "pkg/msg/X", QoS: reliable, GID: GIDOf(stray)},
		},
	}
	if got := c.Graph(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Graph =\n%+v\nwant\n%+v", got, want)
	}

	// A new sample replaces the participant's nodes: the subscription
	// loses its node.
	c.UpdateInfo(ParticipantInfo{GUID: server, Nodes: []NodeEntities{
		{Namespace: "/ns", Name: "server", Readers: []dds.GUID{rqR}, Writers: []dds.GUID{rrW}},
	}})
	g := c.Graph()
	if g.Endpoints[1].Node != unknown {
		t.Errorf("after the update the subscription has node %+v", g.Endpoints[1].Node)
	}
	// Endpoints go; the talker participant goes with its node and writer.
	if !c.RemoveEndpoint(stray) || c.RemoveEndpoint(stray) || c.RemoveEndpoint(infoR) {
		t.Error("RemoveEndpoint changes")
	}
	if !c.RemoveParticipant(talker.GUID) {
		t.Error("RemoveParticipant: no change")
	}
	want = &rmw.Graph{
		Nodes: []rmw.NodeName{serverNode},
		Endpoints: []rmw.Endpoint{
			{Kind: rmw.KindSubscription, Node: unknown, Name: "/chatter", Type: "std_msgs/msg/String", TypeHash: hashString, QoS: best, GID: GIDOf(subR)},
			{Kind: rmw.KindService, Node: serverNode, Name: "/ns/set_flag", Type: "std_srvs/srv/SetBool", TypeHash: hashSetFlagRequest, QoS: reliable, GID: GIDOf(rqR)},
		},
	}
	if got := c.Graph(); !reflect.DeepEqual(got, want) {
		t.Fatalf("after removals Graph =\n%+v\nwant\n%+v", got, want)
	}
	if c.RemoveParticipant(talker.GUID) {
		t.Error("removing a participant twice changed the graph")
	}
}

func TestGraphCacheClients(t *testing.T) {
	c := NewGraphCache()
	part := guid(t, "01100000 00000000 00000001 000001c1")
	rqW := guid(t, "01100000 00000000 00000001 00000103")
	rrR := guid(t, "01100000 00000000 00000001 00000204")
	c.AddParticipant(part, nil)
	c.UpdateInfo(ParticipantInfo{GUID: part, Nodes: []NodeEntities{
		{Namespace: "/", Name: "client", Readers: []dds.GUID{rrR}, Writers: []dds.GUID{rqW}},
	}})
	// Cyclone announces HISTORY and a clientid in USER_DATA.
	e := endpoint(t, rqW, "rq/add_two_intsRequest", "example_interfaces::srv::dds_::AddTwoInts_Request_", "", qosDefault)
	e.UserData = []byte("clientid=01.10.00.00;typehash=" + hashString + ";")
	e.HistoryKnown = true
	c.AddEndpoint(e)
	c.AddEndpoint(endpoint(t, rrR, "rr/add_two_intsReply", "example_interfaces::srv::dds_::AddTwoInts_Response_", "", qosDefault))
	g := c.Graph()
	node := rmw.NodeName{Namespace: "/", Name: "client", Enclave: "/"}
	want := []rmw.Endpoint{{Kind: rmw.KindClient, Node: node, Name: "/add_two_ints", Type: "example_interfaces/srv/AddTwoInts",
		TypeHash: hashString, QoS: rmw.QoS{History: rmw.HistoryKeepLast, Depth: 10, Reliability: rmw.ReliabilityReliable,
			Durability: rmw.DurabilityVolatile, Liveliness: rmw.LivelinessAutomatic}, GID: GIDOf(rqW)}}
	if !reflect.DeepEqual(g.Endpoints, want) || !reflect.DeepEqual(g.Nodes, []rmw.NodeName{node}) {
		t.Errorf("Graph = %+v", g)
	}
	// The same endpoint again is no change; a bad type hash is shown as none.
	if c.AddEndpoint(e) {
		t.Error("same endpoint again: a change")
	}
	e.UserData = []byte("typehash=RIHS01_zz;")
	if !c.AddEndpoint(e) || c.Graph().Endpoints[0].TypeHash != "" {
		t.Error("bad type hash")
	}
	// Two participants announcing the same node name list it once.
	other := guid(t, "01100000 00000000 00000002 000001c1")
	c.UpdateInfo(ParticipantInfo{GUID: other, Nodes: []NodeEntities{{Namespace: "/", Name: "client"}}})
	if n := c.Graph().Nodes; len(n) != 1 {
		t.Errorf("nodes %+v", n)
	}
	// An enclave learnt late changes the graph.
	if !c.AddParticipant(other, []byte("enclave=/e;")) || c.AddParticipant(other, []byte("enclave=/e;")) {
		t.Error("AddParticipant changes")
	}
	if n := c.Graph().Nodes; len(n) != 2 {
		t.Errorf("nodes %+v", n)
	}
}
