package ros_test

import (
	"context"
	"fmt"
	"time"

	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/ros/msgs/std_srvs"
)

// A talker and a listener. The in-memory middleware stands in for a ROS 2
// network; with ros.WithMiddleware(ros.Zenoh(zenoh.Config{})), or no
// option and RMW_IMPLEMENTATION=rmw_zenoh_cpp, the same code talks to ROS 2
// nodes.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	net := ros.NewMemoryNetwork()

	listener, err := ros.NewNode(ctx, "listener", ros.WithMiddleware(ros.Memory(net)))
	if err != nil {
		panic(err)
	}
	defer listener.Close()
	sub, err := ros.Subscribe[std_msgs.String](listener, "chatter", ros.QoSDefault)
	if err != nil {
		panic(err)
	}

	talker, err := ros.NewNode(ctx, "talker", ros.WithMiddleware(ros.Memory(net)),
		ros.WithArgs([]string{"--ros-args", "-r", "__ns:=/robot1", "-r", "chatter:=/chatter"}))
	if err != nil {
		panic(err)
	}
	defer talker.Close()
	pub, err := ros.NewPublisher[std_msgs.String](talker, "chatter", ros.QoSDefault)
	if err != nil {
		panic(err)
	}

	next := sub.ArmNext(ctx)
	if err := pub.Publish(ctx, &std_msgs.String{Data: "hello"}); err != nil {
		panic(err)
	}
	msg, err := next.Wait(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(talker.FullyQualifiedName(), "said", msg.Data, "on", pub.Topic())
	// Output: /robot1/talker said hello on /chatter
}

// A service answered later, from another goroutine.
func ExampleNewServer() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rc, err := ros.Open(ctx, ros.WithMiddleware(ros.Memory(ros.NewMemoryNetwork())))
	if err != nil {
		panic(err)
	}
	defer rc.Close()
	node, err := rc.NewNode("switch")
	if err != nil {
		panic(err)
	}
	srv, err := ros.NewServer(node, "set_light", std_srvs.SetBool{})
	if err != nil {
		panic(err)
	}
	go func() {
		for r := range srv.ListenReliable(ctx) {
			go r.Respond(std_srvs.SetBoolResponse{Success: true, Message: fmt.Sprint("light on: ", r.Request.Data)})
		}
	}()

	client, err := ros.NewClient(node, "set_light", std_srvs.SetBool{})
	if err != nil {
		panic(err)
	}
	if err := client.WaitForServer(ctx); err != nil {
		panic(err)
	}
	res, err := client.Call(ctx, std_srvs.SetBoolRequest{Data: true})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Message)
	// Output: light on: true
}

// Waiting for a peer in the graph, then reading the graph.
func ExampleGraph() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	net := ros.NewMemoryNetwork()
	watcher, err := ros.NewNode(ctx, "watcher", ros.WithMiddleware(ros.Memory(net)))
	if err != nil {
		panic(err)
	}
	defer watcher.Close()

	go func() {
		camera, err := ros.NewNode(ctx, "camera", ros.WithMiddleware(ros.Memory(net)), ros.WithNamespace("/robot1"))
		if err != nil {
			return
		}
		_, _ = ros.NewPublisher[std_msgs.String](camera, "~/status", ros.QoSTransientLocal(1))
		<-ctx.Done()
		camera.Close()
	}()

	g := watcher.Graph()
	if err := g.WaitForPublisher(ctx, "/robot1/camera/status"); err != nil {
		panic(err)
	}
	for _, p := range g.Snapshot().Publishers("/robot1/camera/status") {
		fmt.Println(p.Node.FullyQualifiedName(), p.Type, p.QoS)
	}
	// Output: /robot1/camera std_msgs/msg/String keep_last(1), reliable, transient_local
}
