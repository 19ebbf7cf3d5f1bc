package ros_test

import (
	"context"
	"fmt"
	"time"

	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
)

// A subscription to a topic whose type is known only at run time, as a
// command-line tool has it: the type and its hash come from the graph, the
// messages as CDR payloads (which package ros/dynmsg decodes from the
// type's definition).
func ExampleSubscribeRaw() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rc, err := ros.Open(ctx, ros.WithMiddleware(ros.Memory(ros.NewMemoryNetwork())))
	if err != nil {
		panic(err)
	}
	defer rc.Close()
	talker, _ := rc.NewNode("talker")
	tool, _ := rc.NewNode("tool")
	pub, _ := ros.NewPublisher[std_msgs.String](talker, "chatter", ros.QoSDefault)

	g, err := tool.Graph().WaitFor(ctx, func(g *ros.GraphSnapshot) bool { return len(g.Publishers("/chatter")) > 0 })
	if err != nil {
		panic(err)
	}
	e := g.Publishers("/chatter")[0]
	sub, err := ros.SubscribeRaw(tool, "/chatter", ros.RawType{Name: e.Type, Hash: e.TypeHash}, ros.QoSDefault)
	if err != nil {
		panic(err)
	}
	next := sub.ArmNext(ctx)
	_ = pub.Publish(ctx, &std_msgs.String{Data: "hello"})
	m, err := next.Wait(ctx)
	if err != nil {
		panic(err)
	}
	var s std_msgs.String
	_ = cdr.Unmarshal(m.Payload, &s)
	fmt.Println(e.Type, len(m.Payload), "bytes:", s.Data)
	// Output: std_msgs/msg/String 14 bytes: hello
}
