package tf2

import (
	"math"

	"github.com/afor-go/afor/ros/msgs/geometry_msgs"
)

// vec3 and quat are the buffer's own compact forms of a translation and a
// rotation (x, y, z, w), so that the lookup path works on plain arrays.
type (
	vec3 [3]float64
	quat [4]float64
)

var identityQuat = quat{0, 0, 0, 1}

func (a vec3) add(b vec3) vec3 { return vec3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }

func (a vec3) neg() vec3 { return vec3{-a[0], -a[1], -a[2]} }

// mul returns the Hamilton product a*b (b applied first, then a).
func (a quat) mul(b quat) quat {
	return quat{
		a[3]*b[0] + a[0]*b[3] + a[1]*b[2] - a[2]*b[1],
		a[3]*b[1] - a[0]*b[2] + a[1]*b[3] + a[2]*b[0],
		a[3]*b[2] + a[0]*b[1] - a[1]*b[0] + a[2]*b[3],
		a[3]*b[3] - a[0]*b[0] - a[1]*b[1] - a[2]*b[2],
	}
}

// conj is the inverse of a unit quaternion.
func (a quat) conj() quat { return quat{-a[0], -a[1], -a[2], a[3]} }

func (a quat) dot(b quat) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] + a[3]*b[3] }

func (a quat) norm() float64 { return math.Sqrt(a.dot(a)) }

func (a quat) scale(s float64) quat { return quat{a[0] * s, a[1] * s, a[2] * s, a[3] * s} }

// rotate returns v rotated by the unit quaternion q.
func (q quat) rotate(v vec3) vec3 {
	// v' = v + 2w(u×v) + 2u×(u×v), u the vector part of q.
	ux, uy, uz, w := q[0], q[1], q[2], q[3]
	tx := 2 * (uy*v[2] - uz*v[1])
	ty := 2 * (uz*v[0] - ux*v[2])
	tz := 2 * (ux*v[1] - uy*v[0])
	return vec3{
		v[0] + w*tx + (uy*tz - uz*ty),
		v[1] + w*ty + (uz*tx - ux*tz),
		v[2] + w*tz + (ux*ty - uy*tx),
	}
}

// lerp interpolates linearly from a (r = 0) to b (r = 1).
func lerp(a, b vec3, r float64) vec3 {
	return vec3{a[0] + (b[0]-a[0])*r, a[1] + (b[1]-a[1])*r, a[2] + (b[2]-a[2])*r}
}

// slerp interpolates unit quaternions along the shortest arc from a (r = 0)
// to b (r = 1), as tf2's slerp does (b is negated when a·b < 0). The angle
// comes from atan2 of |a-b| and |a+b|, which keeps its precision for close
// rotations where acos of the dot product loses half of it.
func slerp(a, b quat, r float64) quat {
	if a.dot(b) < 0 {
		b = b.scale(-1)
	}
	d := quat{a[0] - b[0], a[1] - b[1], a[2] - b[2], a[3] - b[3]}
	s := quat{a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]}
	theta := 2 * math.Atan2(d.norm(), s.norm()) // angle between a and b in R⁴
	var wa, wb float64
	if sin := math.Sin(theta); sin < 1e-12 {
		wa, wb = 1-r, r
	} else {
		wa, wb = math.Sin((1-r)*theta)/sin, math.Sin(r*theta)/sin
	}
	out := quat{wa*a[0] + wb*b[0], wa*a[1] + wb*b[1], wa*a[2] + wb*b[2], wa*a[3] + wb*b[3]}
	return out.scale(1 / out.norm())
}

// xform is a rigid transform: rotate by q, then translate by t.
type xform struct {
	t vec3
	q quat
}

var identity = xform{q: identityQuat}

// then returns a∘b: b applied first, then a (tf2's a * b).
func (a xform) mul(b xform) xform {
	return xform{t: a.q.rotate(b.t).add(a.t), q: a.q.mul(b.q)}
}

func (a xform) inverse() xform {
	qi := a.q.conj()
	return xform{t: qi.rotate(a.t).neg(), q: qi}
}

func xformOf(t geometry_msgs.Transform) xform {
	return xform{
		t: vec3{t.Translation.X, t.Translation.Y, t.Translation.Z},
		q: quat{t.Rotation.X, t.Rotation.Y, t.Rotation.Z, t.Rotation.W},
	}
}

func (a xform) msg() geometry_msgs.Transform {
	return geometry_msgs.Transform{
		Translation: geometry_msgs.Vector3{X: a.t[0], Y: a.t[1], Z: a.t[2]},
		Rotation:    geometry_msgs.Quaternion{X: a.q[0], Y: a.q[1], Z: a.q[2], W: a.q[3]},
	}
}

// Compose returns the transform that applies b, then a (tf2's a * b): with
// a the pose of frame B in frame A and b the pose of frame C in frame B,
// Compose(a, b) is the pose of C in A.
func Compose(a, b geometry_msgs.Transform) geometry_msgs.Transform {
	return xformOf(a).mul(xformOf(b)).msg()
}

// Inverse returns the inverse of a rigid transform (its rotation taken as a
// unit quaternion).
func Inverse(t geometry_msgs.Transform) geometry_msgs.Transform {
	return xformOf(t).inverse().msg()
}

// Interpolate interpolates between two transforms as the buffer does
// between two samples: the translation linearly, the rotation along the
// shortest arc (slerp); ratio 0 gives a, 1 gives b.
func Interpolate(a, b geometry_msgs.Transform, ratio float64) geometry_msgs.Transform {
	xa, xb := xformOf(a), xformOf(b)
	return xform{t: lerp(xa.t, xb.t, ratio), q: slerp(normalized(xa.q), normalized(xb.q), ratio)}.msg()
}

func normalized(q quat) quat {
	n := q.norm()
	if n == 0 {
		return q
	}
	return q.scale(1 / n)
}

// QuaternionFromRPY returns the rotation of roll about X, then pitch about
// Y, then yaw about Z (fixed axes), in radians: tf2's Quaternion::setRPY.
func QuaternionFromRPY(roll, pitch, yaw float64) geometry_msgs.Quaternion {
	sr, cr := math.Sincos(roll / 2)
	sp, cp := math.Sincos(pitch / 2)
	sy, cy := math.Sincos(yaw / 2)
	return geometry_msgs.Quaternion{
		X: sr*cp*cy - cr*sp*sy,
		Y: cr*sp*cy + sr*cp*sy,
		Z: cr*cp*sy - sr*sp*cy,
		W: cr*cp*cy + sr*sp*sy,
	}
}

// RotationMatrix returns the 3x3 rotation matrix of q (normalized first),
// row by row.
func RotationMatrix(q geometry_msgs.Quaternion) [3][3]float64 {
	u := normalized(quat{q.X, q.Y, q.Z, q.W})
	x, y, z, w := u[0], u[1], u[2], u[3]
	return [3][3]float64{
		{1 - 2*(y*y+z*z), 2 * (x*y - z*w), 2 * (x*z + y*w)},
		{2 * (x*y + z*w), 1 - 2*(x*x+z*z), 2 * (y*z - x*w)},
		{2 * (x*z - y*w), 2 * (y*z + x*w), 1 - 2*(x*x+y*y)},
	}
}

// RPY returns the roll, pitch and yaw (radians) of q, the inverse of
// [QuaternionFromRPY], as tf2's Matrix3x3::getEulerYPR gives them (its
// first solution; pitch in [-π/2, π/2], yaw 0 at the singularity).
func RPY(q geometry_msgs.Quaternion) (roll, pitch, yaw float64) {
	m := RotationMatrix(q)
	if math.Abs(m[2][0]) >= 1 {
		delta := math.Atan2(m[2][1], m[2][2])
		if m[2][0] < 0 {
			return delta, math.Pi / 2, 0
		}
		return delta, -math.Pi / 2, 0
	}
	pitch = -math.Asin(m[2][0])
	c := math.Cos(pitch)
	roll = math.Atan2(m[2][1]/c, m[2][2]/c)
	yaw = math.Atan2(m[1][0]/c, m[0][0]/c)
	return roll, pitch, yaw
}
