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
// # Failed requests and incompatible QoS
//
// A server answers a request with [afor.Responder.Respond] or fails it with
// [afor.Responder.Fail]. Where the middleware has error replies the client
// gets the error: rmw_zenoh's queries, the in-memory middleware, and DDS
// between two afor nodes (an afor-only reply form). Stock DDS services have
// none: to an rclpy or rclcpp client (Fast DDS, Cyclone DDS) a failed
// request gets no reply at all, so rclpy's future stays pending and its
// call(timeout_sec=...) returns None, while the client keeps working for
// the next request. The other way round, an rclpy server whose callback
// raises sends nothing either: a Go [afor.Client.Call] returns its ctx's
// error at the deadline (give every Call to a foreign server a deadline),
// and the client stays usable. Both are tested against rclpy on Fast DDS.
//
// Over DDS a subscription that requests more than a publisher offers
// (RELIABLE from BEST_EFFORT, TRANSIENT_LOCAL from VOLATILE, a shorter
// deadline, ...) is never matched. Each side reports it as ROS does: a
// warning on the node's logger with rcl's wording ("New publisher
// discovered on topic '/chatter', offering incompatible QoS. No messages
// will be received from it. Last incompatible policy: DURABILITY") and the
// callbacks of [Node.OnIncompatibleQoS] ([IncompatibleQoSEvent]). Zenoh and
// the in-memory middleware match every pair and never report.
//
// # QoS events
//
// Every publisher and subscription has the QoS events rclpy's event
// callbacks give, each an [afor.Sub] of values with rmw's counts:
// [Publisher.Events] (offered deadline missed, liveliness lost, matched,
// incompatible QoS) and [SubscriptionEventsOf] (requested deadline missed,
// liveliness changed, message lost, matched, incompatible QoS). They are
// implemented once, above the middleware, wherever the middleware does not
// track them itself: deadlines are timers of each endpoint ([QoS.WithDeadline];
// counted from the first message), a MANUAL_BY_TOPIC publisher that does
// not publish within its lease loses its liveliness, and lost messages are
// the gaps in each publisher's sequence numbers. Matching and the
// liveliness of a subscription's publishers come from the DDS protocol
// over DDS (WLP assertions and leases: a publisher whose process died is
// not alive once its lease ran out), and from the graph over Zenoh and in
// memory (rmw_zenoh's liveliness tokens, which go with the session of a
// process that died; rmw_zenoh itself has no QoS events).
//
// # Type descriptions
//
// Every node serves ~/get_type_description
// (type_description_interfaces/srv/GetTypeDescription), as rclpy's nodes
// do, for the types its publishers, subscriptions, services, clients and
// actions use, looked up by RIHS01 hash, with the interface files as type
// sources: the shipped definitions (package interfaces) and those given
// with [WithInterfaces]. The read-only parameter
// start_type_description_service ("-p start_type_description_service:=false")
// turns it off. A [TypeDescriptionClient] asks another node, and
// ros/dynmsg's NewTypeFromDescription builds a type this process has no
// definition of from the answer.
//
// # Large messages
//
// A received message is yours to keep, and read-only: afor never writes or
// reuses a message, or a buffer it points into, once it is handed out, and
// one message reaches every consumer of its sub. Over DDS and Zenoh the
// middleware hands the buffer a sample was received in to the
// subscription, which decodes byte and numeric sequences (an Image's or a
// PointCloud2's Data, float arrays) as views of it instead of copies; the
// in-memory middleware, whose buffer is the publisher's, is decoded with a
// copy. Clone a slice (slices.Clone) before modifying it. See [Subscribe]
// and "Aliasing and ownership" in package ros/cdr. A publisher encodes
// into a buffer of its own that it reuses, so publishing a large message
// copies its data once and allocates nothing in the steady state.
//
// # Contexts
//
// A [Context] is one middleware session. [NewNode] opens one for its node
// alone; to run several nodes on one session, [Open] a context and create
// nodes with [Context.NewNode].
package ros
