package rmwdds_test

import (
	"fmt"

	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/ros/internal/rmwdds"
	"github.com/afor-go/afor/transport/dds"
)

func Example_names() {
	topic, _ := rmwdds.TopicName("/robot/cmd_vel")
	req, _ := rmwdds.RequestTopic("/set_flag")
	rep, _ := rmwdds.ReplyTopic("/set_flag")
	typ, _ := rmwdds.DDSTypeName("std_srvs/srv/SetBool_Request")
	fmt.Println(topic, req, rep, typ)
	kind, name := rmwdds.ParseTopic("rr/set_flagReply")
	svc, _ := rmwdds.ServiceTypeName("std_srvs::srv::dds_::SetBool_Response_")
	fmt.Println(kind, name, svc)
	// Output:
	// rt/robot/cmd_vel rq/set_flagRequest rr/set_flagReply std_srvs::srv::dds_::SetBool_Request_
	// reply /set_flag std_srvs/srv/SetBool
}

func ExampleDDSQoS() {
	sensorData := rmw.QoS{History: rmw.HistoryKeepLast, Depth: 5, Reliability: rmw.ReliabilityBestEffort}
	q, err := rmwdds.DDSQoS(sensorData, "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18")
	if err != nil {
		panic(err)
	}
	fmt.Println(q.Reliability, q.Durability, q.History, q.Depth, q.MaxBlocking)
	fmt.Printf("%s\n", q.UserData)
	// Output:
	// BEST_EFFORT VOLATILE KEEP_LAST 5 100ms
	// typehash=RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18;
}

func ExampleGraphCache() {
	participant := dds.GUID{1, 0x0f, 0x7f, 1, 0xc5, 0x4f, 0x91, 0x85, 0, 0, 0, 0, 0, 0, 1, 0xc1}
	writer := participant
	writer[12], writer[13], writer[14], writer[15] = 0, 0, 3, 3

	c := rmwdds.NewGraphCache()
	c.AddParticipant(participant, []byte("enclave=/;"))
	// The participant's ros_discovery_info sample names the node ...
	c.UpdateInfo(rmwdds.ParticipantInfo{GUID: participant, Nodes: []rmwdds.NodeEntities{
		{Namespace: "/", Name: "talker", Writers: []dds.GUID{writer}},
	}})
	// ... and SEDP the endpoint.
	q, _ := rmwdds.DDSQoS(rmw.QoS{}, "")
	c.AddEndpoint(rmwdds.Endpoint{GUID: writer, Topic: "rt/chatter", TypeName: "std_msgs::msg::dds_::String_", QoS: q})
	g := c.Graph()
	for _, n := range g.Nodes {
		fmt.Println("node", n.Namespace, n.Name)
	}
	for _, e := range g.Endpoints {
		fmt.Println(e.Kind == rmw.KindPublisher, e.Name, e.Type, e.Node.Name)
	}
	// Output:
	// node / talker
	// true /chatter std_msgs/msg/String talker
}

func ExampleCutCyclone() {
	// A SetBool request (true) as rmw_cyclonedds sends it: client id and
	// sequence number first.
	payload := []byte{0, 1, 0, 0, 8, 7, 6, 5, 4, 3, 2, 1, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0}
	h, body, err := rmwdds.CutCyclone(payload)
	if err != nil {
		panic(err)
	}
	fmt.Printf("client %x request %d body %x\n", h.ClientID, h.Seq, body)
	// Output: client 102030405060708 request 3 body 0001000001000000
}
