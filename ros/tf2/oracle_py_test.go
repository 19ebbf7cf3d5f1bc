package tf2_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/peers"
	"github.com/afor-go/afor/ros/msgs/geometry_msgs"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/ros/tf2"
)

type oPose struct {
	T [3]float64 `json:"t"`
	Q [4]float64 `json:"q"`
}

type oSample struct {
	Stamp int64      `json:"stamp"`
	T     [3]float64 `json:"t"`
	Q     [4]float64 `json:"q"`
}

type oFrame struct {
	Name    string    `json:"name"`
	Parent  string    `json:"parent"`
	Static  bool      `json:"static"`
	Samples []oSample `json:"samples"`
}

type oLookup struct {
	Target string `json:"target"`
	Source string `json:"source"`
	Time   int64  `json:"time"`
}

type oFull struct {
	Target     string `json:"target"`
	TargetTime int64  `json:"target_time"`
	Source     string `json:"source"`
	SourceTime int64  `json:"source_time"`
	Fixed      string `json:"fixed"`
}

type oOp struct {
	A oPose      `json:"a"`
	B oPose      `json:"b"`
	P [3]float64 `json:"p"`
	R float64    `json:"r"`
}

type oRequest struct {
	Frames  []oFrame  `json:"frames"`
	Lookups []oLookup `json:"lookups"`
	Full    []oFull   `json:"full"`
	Ops     []oOp     `json:"ops"`
}

type oReply struct {
	Lookups []struct {
		oPose
		Stamp int64 `json:"stamp"`
	} `json:"lookups"`
	Full []oPose `json:"full"`
	Ops  []struct {
		Compose     oPose      `json:"compose"`
		Inverse     oPose      `json:"inverse"`
		Interpolate oPose      `json:"interpolate"`
		Point       [3]float64 `json:"point"`
		Vector      [3]float64 `json:"vector"`
		Pose        struct {
			P [3]float64 `json:"p"`
			Q [4]float64 `json:"q"`
		} `json:"pose"`
		RPY     [3]float64 `json:"rpy"`
		FromRPY [4]float64 `json:"from_rpy"`
	} `json:"ops"`
}

func randQuat(r *rand.Rand) [4]float64 {
	for {
		q := [4]float64{r.NormFloat64(), r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
		n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
		if n > 1e-3 {
			return [4]float64{q[0] / n, q[1] / n, q[2] / n, q[3] / n}
		}
	}
}

func randVec(r *rand.Rand) [3]float64 {
	return [3]float64{r.Float64()*10 - 5, r.Float64()*10 - 5, r.Float64()*10 - 5}
}

func (p oPose) msg() geometry_msgs.Transform {
	return geometry_msgs.Transform{
		Translation: geometry_msgs.Vector3{X: p.T[0], Y: p.T[1], Z: p.T[2]},
		Rotation:    geometry_msgs.Quaternion{X: p.Q[0], Y: p.Q[1], Z: p.Q[2], W: p.Q[3]},
	}
}

const tol = 1e-9

func closeVec(a, b [3]float64) bool {
	return math.Abs(a[0]-b[0]) < tol && math.Abs(a[1]-b[1]) < tol && math.Abs(a[2]-b[2]) < tol
}

// closeQuat compares rotations: q and -q are the same one.
func closeQuat(a, b [4]float64) bool {
	var dm, dp float64
	for i := range 4 {
		dm = max(dm, math.Abs(a[i]-b[i]))
		dp = max(dp, math.Abs(a[i]+b[i]))
	}
	return min(dm, dp) < tol
}

func vecOf(v geometry_msgs.Vector3) [3]float64 { return [3]float64{v.X, v.Y, v.Z} }
func pointOf(v geometry_msgs.Point) [3]float64 { return [3]float64{v.X, v.Y, v.Z} }
func quatOf(q geometry_msgs.Quaternion) [4]float64 {
	return [4]float64{q.X, q.Y, q.Z, q.W}
}

// randomTree makes a tree of n frames (f0 the root, each other frame's
// parent an earlier one), a quarter of the links static, the others with
// samples every 10-50 ms, jittered, from somewhere in [0, 0.2 s] to
// somewhere past [0.8 s, 1 s] after base.
func randomTree(r *rand.Rand, n int, base int64) []oFrame {
	frames := make([]oFrame, 0, n-1)
	for i := 1; i < n; i++ {
		f := oFrame{Name: fmt.Sprint("f", i), Parent: fmt.Sprint("f", r.IntN(i)), Static: r.IntN(4) == 0}
		if f.Static {
			f.Samples = []oSample{{Stamp: base, T: randVec(r), Q: randQuat(r)}}
		} else {
			period := int64(10+r.IntN(40)) * int64(time.Millisecond)
			end := base + int64(800+r.IntN(200))*int64(time.Millisecond)
			for s := base + int64(r.IntN(200))*int64(time.Millisecond); ; s += period {
				f.Samples = append(f.Samples, oSample{Stamp: s + int64(r.IntN(1000)), T: randVec(r), Q: randQuat(r)})
				if s >= end {
					break
				}
			}
		}
		frames = append(frames, f)
	}
	return frames
}

// TestOracleScipy checks lookups (interpolated, through chains, at the
// latest common time, through a fixed frame) on random trees, and the
// geometry helpers, against an independent implementation on
// scipy.spatial.transform (testdata/scipy_oracle.py), to 1e-9.
func TestOracleScipy(t *testing.T) {
	py := peers.Python(t, "scipy", "numpy")
	for seed := range uint64(3) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 42))
			base := int64(1_700_000_000) * int64(time.Second)
			req := oRequest{Frames: randomTree(r, 16, base)}
			b := tf2.NewBuffer()
			// Samples of all frames, inserted in a random order.
			var all []geometry_msgs.TransformStamped
			var static []bool
			for _, f := range req.Frames {
				for _, s := range f.Samples {
					all = append(all, geometry_msgs.TransformStamped{
						Header:       std_msgs.Header{FrameID: f.Parent, Stamp: tf2.TimeStamp(time.Unix(0, s.Stamp))},
						ChildFrameID: f.Name,
						Transform:    oPose{T: s.T, Q: s.Q}.msg(),
					})
					static = append(static, f.Static)
				}
			}
			for _, i := range r.Perm(len(all)) {
				if err := b.SetTransform(all[i], "oracle", static[i]); err != nil {
					t.Fatal(err)
				}
			}
			names := []string{"f0"}
			for _, f := range req.Frames {
				names = append(names, f.Name)
			}
			inRange := func() int64 { return base + int64(200e6) + r.Int64N(600e6) }
			for range 300 {
				req.Lookups = append(req.Lookups, oLookup{Target: names[r.IntN(len(names))], Source: names[r.IntN(len(names))], Time: inRange()})
			}
			for range 50 {
				req.Lookups = append(req.Lookups, oLookup{Target: names[r.IntN(len(names))], Source: names[r.IntN(len(names))]})
			}
			for range 100 {
				req.Full = append(req.Full, oFull{Target: names[r.IntN(len(names))], TargetTime: inRange(),
					Source: names[r.IntN(len(names))], SourceTime: inRange(), Fixed: names[r.IntN(len(names))]})
			}
			for range 200 {
				req.Ops = append(req.Ops, oOp{A: oPose{randVec(r), randQuat(r)}, B: oPose{randVec(r), randQuat(r)}, P: randVec(r), R: r.Float64()})
			}
			var reply oReply
			runOracle(t, py, &req, &reply)

			for i, q := range req.Lookups {
				tm := tf2.Latest
				if q.Time != 0 {
					tm = time.Unix(0, q.Time)
				}
				got, err := b.LookupTransform(q.Target, q.Source, tm)
				want := reply.Lookups[i]
				if err != nil {
					t.Errorf("lookup %s <- %s at %d: %v", q.Target, q.Source, q.Time, err)
					continue
				}
				if q.Target == q.Source {
					continue // tf2's identity carries the frame's own time
				}
				if !closeVec(vecOf(got.Transform.Translation), want.T) || !closeQuat(quatOf(got.Transform.Rotation), want.Q) ||
					tf2.StampTime(got.Header.Stamp).UnixNano() != want.Stamp && want.Stamp != 0 {
					t.Errorf("lookup %s <- %s at %d: got %v %v at %d, scipy %v %v at %d", q.Target, q.Source, q.Time,
						vecOf(got.Transform.Translation), quatOf(got.Transform.Rotation), tf2.StampTime(got.Header.Stamp).UnixNano(), want.T, want.Q, want.Stamp)
				}
			}
			for i, q := range req.Full {
				got, err := b.LookupTransformFull(q.Target, time.Unix(0, q.TargetTime), q.Source, time.Unix(0, q.SourceTime), q.Fixed)
				want := reply.Full[i]
				if err != nil {
					t.Errorf("full %+v: %v", q, err)
					continue
				}
				if !closeVec(vecOf(got.Transform.Translation), want.T) || !closeQuat(quatOf(got.Transform.Rotation), want.Q) {
					t.Errorf("full %+v: got %v %v, scipy %v %v", q, vecOf(got.Transform.Translation), quatOf(got.Transform.Rotation), want.T, want.Q)
				}
			}
			for i, o := range req.Ops {
				want := reply.Ops[i]
				a, bb := o.A.msg(), o.B.msg()
				check := func(what string, ok bool, got, w any) {
					if !ok {
						t.Errorf("op %d %s: got %v, scipy %v", i, what, got, w)
					}
				}
				c := tf2.Compose(a, bb)
				check("compose", closeVec(vecOf(c.Translation), want.Compose.T) && closeQuat(quatOf(c.Rotation), want.Compose.Q), c, want.Compose)
				inv := tf2.Inverse(a)
				check("inverse", closeVec(vecOf(inv.Translation), want.Inverse.T) && closeQuat(quatOf(inv.Rotation), want.Inverse.Q), inv, want.Inverse)
				in := tf2.Interpolate(a, bb, o.R)
				check("interpolate", closeVec(vecOf(in.Translation), want.Interpolate.T) && closeQuat(quatOf(in.Rotation), want.Interpolate.Q), in, want.Interpolate)
				p := tf2.TransformPoint(a, geometry_msgs.Point{X: o.P[0], Y: o.P[1], Z: o.P[2]})
				check("point", closeVec(pointOf(p), want.Point), p, want.Point)
				v := tf2.TransformVector3(a, geometry_msgs.Vector3{X: o.P[0], Y: o.P[1], Z: o.P[2]})
				check("vector", closeVec(vecOf(v), want.Vector), v, want.Vector)
				pose := tf2.TransformPose(a, geometry_msgs.Pose{
					Position:    geometry_msgs.Point{X: o.B.T[0], Y: o.B.T[1], Z: o.B.T[2]},
					Orientation: geometry_msgs.Quaternion{X: o.B.Q[0], Y: o.B.Q[1], Z: o.B.Q[2], W: o.B.Q[3]}})
				check("pose", closeVec(pointOf(pose.Position), want.Pose.P) && closeQuat(quatOf(pose.Orientation), want.Pose.Q), pose, want.Pose)
				ts := tf2.TransformTransformStamped(geometry_msgs.TransformStamped{Header: std_msgs.Header{FrameID: "T"}, Transform: a},
					geometry_msgs.TransformStamped{ChildFrameID: "C", Transform: bb})
				check("transform stamped", ts.Header.FrameID == "T" && ts.ChildFrameID == "C" && closeVec(vecOf(ts.Transform.Translation), want.Compose.T), ts, want.Compose)
				roll, pitch, yaw := tf2.RPY(a.Rotation)
				check("rpy", closeVec([3]float64{roll, pitch, yaw}, want.RPY), [3]float64{roll, pitch, yaw}, want.RPY)
				q := tf2.QuaternionFromRPY(want.RPY[0], want.RPY[1], want.RPY[2])
				check("from rpy", closeQuat(quatOf(q), want.FromRPY), q, want.FromRPY)
			}
			t.Logf("%d lookups, %d full lookups, %d geometry operations agree with scipy to %g", len(req.Lookups), len(req.Full), len(req.Ops), tol)
		})
	}
}

func runOracle(t *testing.T, py string, req, reply any) {
	t.Helper()
	in, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), py, filepath.Join("testdata", "scipy_oracle.py"))
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("scipy_oracle.py: %v\n%s", err, stderr.String())
	}
	if err := json.Unmarshal(out, reply); err != nil {
		t.Fatalf("scipy_oracle.py output: %v", err)
	}
}
