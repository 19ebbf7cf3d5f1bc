package rmwzenoh_test

import (
	"context"
	"fmt"
	"log"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/ros/internal/rmwzenoh"
	"github.com/afor-go/afor/transport/zenoh"
)

// A node publishes a std_msgs/String CDR payload and a subscription of the
// same session receives it with rmw_zenoh's message info. With the zero
// zenoh.Config the session would instead connect to a router on
// tcp/localhost:7447, as rmw_zenoh_cpp does.
func Example() {
	ctx := context.Background()
	s, err := rmwzenoh.Open(ctx, rmwzenoh.Config{Zenoh: zenoh.Config{Listen: []string{"tcp/127.0.0.1:0"}}})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	n, err := s.CreateNode(rmw.NodeName{Namespace: "/", Name: "talker"})
	if err != nil {
		log.Fatal(err)
	}
	str := rmw.Type{
		Name:    "std_msgs/msg/String",
		DDSName: "std_msgs::msg::dds_::String_",
		Hash:    "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18",
	}
	qos := rmw.QoS{History: rmw.HistoryKeepLast, Depth: 10}
	got := make(chan rmw.Message, 1)
	if _, err := n.CreateSubscription("/chatter", str, qos, func(m rmw.Message) { got <- m }); err != nil {
		log.Fatal(err)
	}
	pub, err := n.CreatePublisher("/chatter", str, qos)
	if err != nil {
		log.Fatal(err)
	}
	// CDR: encapsulation header, string length 6, "hello\0".
	if err := pub.Publish(ctx, []byte("\x00\x01\x00\x00\x06\x00\x00\x00hello\x00")); err != nil {
		log.Fatal(err)
	}
	m := <-got
	fmt.Printf("%q seq=%d from publisher: %v\n", m.Payload[8:13], m.Info.Sequence, m.Info.PublisherGID == pub.GID())
	// Output: "hello" seq=1 from publisher: true
}

// A service answers later, from another goroutine; the client is an
// afor.Client over the rmw client, and the graph lists the server.
func Example_service() {
	ctx := context.Background()
	s, err := rmwzenoh.Open(ctx, rmwzenoh.Config{Zenoh: zenoh.Config{Listen: []string{"tcp/127.0.0.1:0"}}})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	n, err := s.CreateNode(rmw.NodeName{Namespace: "/", Name: "flags"})
	if err != nil {
		log.Fatal(err)
	}
	setBool := rmw.ServiceType{Service: rmw.Type{
		Name:    "std_srvs/srv/SetBool",
		DDSName: "std_srvs::srv::dds_::SetBool_",
		Hash:    "RIHS01_abe9e4bb6b41b40e6789712c00ec8871923e089af3f667a79992a428cff2da0a",
	}}
	qos := rmw.QoS{History: rmw.HistoryKeepLast, Depth: 10}
	if _, err := n.CreateService("/set_flag", setBool, qos, func(r rmw.Request) {
		go func() {
			// SetBool response: success, 3 padding bytes, message "ok".
			_ = r.Reply([]byte("\x00\x01\x00\x00\x01\x00\x00\x00\x03\x00\x00\x00ok\x00"), nil)
		}()
	}); err != nil {
		log.Fatal(err)
	}
	cl, err := n.CreateClient("/set_flag", setBool, qos)
	if err != nil {
		log.Fatal(err)
	}
	c := afor.NewClient[[]byte, []byte](cl)
	if err := c.WaitForServer(ctx); err != nil {
		log.Fatal(err)
	}
	res, err := c.Call(ctx, []byte("\x00\x01\x00\x00\x01"))
	if err != nil {
		log.Fatal(err)
	}
	g, _ := s.Graph().Value()
	for _, e := range g.Endpoints {
		if e.Kind == rmw.KindService {
			fmt.Println("server:", e.Node.Name, e.Name, e.Type)
		}
	}
	fmt.Printf("success=%v message=%q\n", res[4] == 1, res[12:14])
	// Output:
	// server: flags /set_flag std_srvs/srv/SetBool
	// success=true message="ok"
}
