// Package tf2 keeps track of coordinate frames over time, as ROS 2's tf2
// and tf2_ros do, for a Go node: where is the robot's base_link in the map
// frame now, where was the camera 50 ms ago, what is this point in the
// frame of the gripper.
//
// A [Buffer] holds the tree of frames: for each frame its parent and the
// history of its transform relative to it (10 s by default), or a static
// transform that holds forever. [Buffer.LookupTransform] gives the
// transform between any two frames at a time, or at the latest time the
// whole chain is known ([Latest]), interpolating each link between the two
// samples around that time (translation linearly, rotation by slerp).
// [Buffer.LookupTransformFull] looks up between two times through a fixed
// frame. Failures are errors matching tf2's exceptions: [ErrLookup],
// [ErrConnectivity], [ErrExtrapolation] and [ErrInvalidArgument].
//
// Waiting is done with a context, not callbacks or polling:
// [Buffer.WaitForTransform] returns as soon as the transform that
// completes the chain arrives, or when ctx ends.
//
// A [Listener] feeds a buffer from /tf and /tf_static with tf2_ros's QoS,
// on any middleware of package ros (DDS, Zenoh, in memory). A
// [Broadcaster] publishes dynamic transforms and a [StaticBroadcaster]
// static ones, as tf2_ros's do. The functions TransformPoint,
// TransformPose, TransformVector3 ... apply a transform to the geometry
// messages as tf2_geometry_msgs does.
//
//	buf := tf2.NewBuffer()
//	l, err := tf2.NewListener(node, buf)
//	defer l.Close()
//	t, err := buf.WaitForTransform(ctx, "map", "base_link", tf2.Latest)
//	p := tf2.TransformPoint(t.Transform, geometry_msgs.Point{X: 1}) // 1 m ahead of the robot, in map
package tf2
