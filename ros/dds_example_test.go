package ros_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/std_srvs"
	"github.com/afor-go/afor/transport/dds"
)

// Two nodes on ROS 2's default middleware, DDS, as two programs on one
// host would run: a service with its client. Here discovery is kept on
// 127.0.0.1 (LOCALHOST range, no multicast); the zero dds.Config joins the
// ROS_DOMAIN_ID domain of the whole subnet, like a stock ROS 2 node, and
// talks to rclpy and rclcpp nodes on Fast DDS.
func ExampleDDS() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	mw := ros.DDS(dds.Config{DomainID: 42, Range: dds.RangeLocalhost, NoMulticast: true})
	server, err := ros.NewNode(ctx, "light", ros.WithMiddleware(mw))
	if err != nil {
		log.Fatal(err)
	}
	defer server.Close()
	srv, err := ros.NewServer(server, "switch", std_srvs.SetBool{})
	if err != nil {
		log.Fatal(err)
	}
	go func() {
		for r := range srv.ListenReliable(ctx) {
			r.Respond(std_srvs.SetBoolResponse{Success: true, Message: fmt.Sprint("light on: ", r.Request.Data)})
		}
	}()

	client, err := ros.NewNode(ctx, "panel", ros.WithMiddleware(mw))
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	cli, err := ros.NewClient(client, "switch", std_srvs.SetBool{})
	if err != nil {
		log.Fatal(err)
	}
	if err := cli.WaitForServer(ctx); err != nil {
		log.Fatal(err)
	}
	res, err := cli.Call(ctx, std_srvs.SetBoolRequest{Data: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Message)
	// Output: light on: true
}
