// Package ros makes Go programs ROS 2 nodes, without rcl and without cgo.
//
// A [Node] publishes and subscribes to topics of generated message types
// (package ros/msgs), serves and calls services, and sees the ROS graph.
// A subscription is an [afor.Sub], a service server an [afor.Server] and a
// client an [afor.Client], so waiting, ranging and testing work as on every
// other afor transport:
//
//	node, err := ros.NewNode(ctx, "listener", ros.WithArgs(os.Args[1:]))
//	defer node.Close()
//	sub, err := ros.Subscribe[std_msgs.String](node, "chatter", ros.QoSDefault)
//	for msg := range sub.ListenReliable(ctx) {
//		fmt.Println(msg.Data)
//	}
//
// # Names
//
// Node names, namespaces, topic and service names follow ROS 2's rules as
// rcl and rmw check them, and errors say what is wrong and where
// ([ErrInvalidName]). Topic and service names are expanded as rcl does:
// relative names go under the node's namespace, "~/x" is private to the
// node ("/ns/node/x"), and "{node}", "{ns}" and "{namespace}" are
// substituted. Remapping rules come from the "--ros-args" section of the
// command line ([WithArgs]): "-r from:=to", "-r node:from:=to",
// "-r __ns:=/ns", "-r __node:=name"; the first rule that matches the
// expanded name wins.
//
// # Parameters, logging and time
//
// Every node has what rclpy gives one: parameters ([Node.DeclareParameter],
// [GetParameter], [Node.SetParameters], [Node.OnSetParameters] to refuse a
// change), set from the command line ("-p name:=value", "--params-file"
// in [WithArgs]) and served to ros2 param and other nodes by the six
// parameter services ([WithParameterServices]; [NewParameterClient] is the
// Go client), with changes on /parameter_events; a /rosout publisher that
// the node's logger and [Node.RosoutHandler] feed ([WithRosout]); and a
// [Clock] that follows /clock while the use_sim_time parameter is true,
// with a [Rate] that ticks on it.
//
// # Middlewares
//
// ROS concepts are implemented once, in this package, over a narrow
// middleware seam. The middlewares: [DDS], ROS 2's default, over the
// pure-Go transport/dds with the conventions of rmw_fastrtps_cpp (and, for
// services with Cyclone DDS peers, rmw_cyclonedds_cpp), so that a Go node
// joins a stock ROS 2 system with nothing installed; [Zenoh], with exactly
// rmw_zenoh_cpp's conventions; and [Memory], in process, for tests. A
// context picks one with [WithMiddleware], or from RMW_IMPLEMENTATION as
// ROS 2 does: unset, "rmw_fastrtps_cpp" and "rmw_cyclonedds_cpp" are DDS,
// "rmw_zenoh_cpp" is Zenoh.
//
// # Contexts
//
// A [Context] is one middleware session. [NewNode] opens one for its node
// alone; to run several nodes on one session, [Open] a context and create
// nodes with [Context.NewNode].
package ros
