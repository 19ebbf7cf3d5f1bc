package tf2

import (
	"github.com/afor-go/afor/ros/msgs/geometry_msgs"
)

// The functions below apply a transform to the common geometry types as
// tf2_geometry_msgs' doTransform does. With t the transform from frame S to
// frame T (what [Buffer.LookupTransform](T, S, ...) returns), they map a
// value expressed in S to the same value expressed in T. Points and poses
// are rotated and translated; vectors (directions, velocities, forces) are
// only rotated. The stamped forms take the header of the transform (frame
// T, its stamp), as doTransform does.

// TransformPoint maps a point: rotated, then translated.
func TransformPoint(t geometry_msgs.Transform, p geometry_msgs.Point) geometry_msgs.Point {
	x := xformOf(t)
	v := x.q.rotate(vec3{p.X, p.Y, p.Z}).add(x.t)
	return geometry_msgs.Point{X: v[0], Y: v[1], Z: v[2]}
}

// TransformVector3 maps a vector: rotated only.
func TransformVector3(t geometry_msgs.Transform, v geometry_msgs.Vector3) geometry_msgs.Vector3 {
	r := xformOf(t).q.rotate(vec3{v.X, v.Y, v.Z})
	return geometry_msgs.Vector3{X: r[0], Y: r[1], Z: r[2]}
}

// TransformQuaternion maps an orientation: t's rotation, then q.
func TransformQuaternion(t geometry_msgs.Transform, q geometry_msgs.Quaternion) geometry_msgs.Quaternion {
	r := xformOf(t).q.mul(quat{q.X, q.Y, q.Z, q.W})
	return geometry_msgs.Quaternion{X: r[0], Y: r[1], Z: r[2], W: r[3]}
}

// TransformPose maps a pose: its position as a point, its orientation as a
// quaternion.
func TransformPose(t geometry_msgs.Transform, p geometry_msgs.Pose) geometry_msgs.Pose {
	return geometry_msgs.Pose{Position: TransformPoint(t, p.Position), Orientation: TransformQuaternion(t, p.Orientation)}
}

// TransformPointStamped maps p (in frame t.ChildFrameID) into frame
// t.Header.FrameID; the result has t's header.
func TransformPointStamped(t geometry_msgs.TransformStamped, p geometry_msgs.PointStamped) geometry_msgs.PointStamped {
	return geometry_msgs.PointStamped{Header: t.Header, Point: TransformPoint(t.Transform, p.Point)}
}

// TransformVector3Stamped maps v (rotated only); the result has t's header.
func TransformVector3Stamped(t geometry_msgs.TransformStamped, v geometry_msgs.Vector3Stamped) geometry_msgs.Vector3Stamped {
	return geometry_msgs.Vector3Stamped{Header: t.Header, Vector: TransformVector3(t.Transform, v.Vector)}
}

// TransformQuaternionStamped maps q; the result has t's header.
func TransformQuaternionStamped(t geometry_msgs.TransformStamped, q geometry_msgs.QuaternionStamped) geometry_msgs.QuaternionStamped {
	return geometry_msgs.QuaternionStamped{Header: t.Header, Quaternion: TransformQuaternion(t.Transform, q.Quaternion)}
}

// TransformPoseStamped maps p; the result has t's header.
func TransformPoseStamped(t geometry_msgs.TransformStamped, p geometry_msgs.PoseStamped) geometry_msgs.PoseStamped {
	return geometry_msgs.PoseStamped{Header: t.Header, Pose: TransformPose(t.Transform, p.Pose)}
}

// TransformTransformStamped composes: with in the pose of frame C in frame
// S and t the transform from S to T, the result is the pose of C in T
// (t's header, in's child frame), as doTransform of a TransformStamped.
func TransformTransformStamped(t, in geometry_msgs.TransformStamped) geometry_msgs.TransformStamped {
	return geometry_msgs.TransformStamped{Header: t.Header, ChildFrameID: in.ChildFrameID, Transform: Compose(t.Transform, in.Transform)}
}
