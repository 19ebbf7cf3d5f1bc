// Package lifecycle makes ROS 2 nodes managed nodes (lifecycle nodes), the
// nodes that navigation and manipulation stacks bring up and down (Nav2's
// lifecycle manager, ros2 lifecycle set), and drives other managed nodes.
//
// [Manage] gives a [ros.Node] rcl_lifecycle's state machine: the primary
// states unconfigured, inactive, active and finalized, the transition
// states configuring, cleaningup, shuttingdown, activating, deactivating
// and errorprocessing, the transitions between them with their ids and
// labels, and the services and topic rclpy's LifecycleNode serves
// (~/change_state, ~/get_state, ~/get_available_states,
// ~/get_available_transitions, ~/get_transition_graph,
// ~/transition_event), so that ROS tools and other nodes drive it as they
// drive an rclpy or rclcpp node.
//
// A transition runs its [Handler]: a function with a ctx that returns nil
// (success), an error matching [ErrFailure] (the transition is refused) or
// any other error (error processing follows, and [OnError]'s handler takes
// the node to unconfigured or finalized). A panic is an error. A handler
// may take its time: [Node.Trigger] and a remote [Client.ChangeState]
// return when it is done, [Node.WaitForState] waits for a state, and the
// node's other services answer meanwhile.
//
//	lc, err := lifecycle.Manage(node,
//		lifecycle.OnConfigure(func(ctx context.Context, from lifecycle.State) error {
//			return cam.Open(ctx)
//		}),
//		lifecycle.OnActivate(func(ctx context.Context, from lifecycle.State) error {
//			return cam.Start(ctx)
//		}))
//	images, err := lifecycle.NewPublisher[sensor_msgs.Image](lc, "image", ros.QoSSensorData)
//
// A lifecycle [Publisher] publishes only while its node is activating or
// active, and warns once per inactive period, as rclcpp's does, when asked
// to publish otherwise.
//
// A [Client] drives another node's lifecycle: its state, the transitions
// available, a change of state that waits for the transition's end, and its
// transition events.
package lifecycle
