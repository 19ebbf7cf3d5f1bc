package tf2_test

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/geometry_msgs"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/ros/tf2"
)

// A buffer fed by hand: the robot drove 1 m along x in one second while
// turning 90°; where was it half-way, and where is a point 1 m ahead of it
// in the map then?
func ExampleBuffer_LookupTransform() {
	buf := tf2.NewBuffer()
	t0 := time.Unix(1700000000, 0)
	pose := func(t time.Time, x, yaw float64) geometry_msgs.TransformStamped {
		return geometry_msgs.TransformStamped{
			Header:       std_msgs.Header{FrameID: "map", Stamp: tf2.TimeStamp(t)},
			ChildFrameID: "base_link",
			Transform: geometry_msgs.Transform{
				Translation: geometry_msgs.Vector3{X: x},
				Rotation:    tf2.QuaternionFromRPY(0, 0, yaw),
			},
		}
	}
	_ = buf.SetTransform(pose(t0, 0, 0), "example", false)
	_ = buf.SetTransform(pose(t0.Add(time.Second), 1, math.Pi/2), "example", false)

	t, err := buf.LookupTransform("map", "base_link", t0.Add(500*time.Millisecond))
	if err != nil {
		fmt.Println(err)
		return
	}
	_, _, yaw := tf2.RPY(t.Transform.Rotation)
	p := tf2.TransformPoint(t.Transform, geometry_msgs.Point{X: 1})
	fmt.Printf("base_link at x=%.2f, yaw %.0f°; the point ahead at (%.3f, %.3f)\n", t.Transform.Translation.X, yaw*180/math.Pi, p.X, p.Y)

	_, err = buf.LookupTransform("map", "base_link", t0.Add(2*time.Second))
	fmt.Println(err)
	// Output:
	// base_link at x=0.50, yaw 45°; the point ahead at (1.207, 0.707)
	// tf2: lookup would require extrapolation into the future: requested time 1700000002.000000 but the latest data is at time 1700000001.000000, when looking up transform from frame [base_link] to frame [map]
}

// A listener and a broadcaster on the in-memory middleware (DDS or Zenoh
// work the same): wait for base_link in map, transform a point.
func ExampleNewListener() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	net := ros.NewMemoryNetwork()
	robot, _ := ros.NewNode(ctx, "robot", ros.WithMiddleware(ros.Memory(net)))
	defer robot.Close()
	planner, _ := ros.NewNode(ctx, "planner", ros.WithMiddleware(ros.Memory(net)))
	defer planner.Close()

	buf := tf2.NewBuffer()
	l, err := tf2.NewListener(planner, buf)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer l.Close()

	go func() { // the robot's localization, meanwhile
		br, _ := tf2.NewBroadcaster(robot)
		_ = br.SendTransform(ctx, geometry_msgs.TransformStamped{
			Header:       std_msgs.Header{FrameID: "map", Stamp: tf2.TimeStamp(time.Now())},
			ChildFrameID: "base_link",
			Transform:    geometry_msgs.Transform{Translation: geometry_msgs.Vector3{X: 2, Y: 1}, Rotation: geometry_msgs.Quaternion{W: 1}},
		})
	}()

	t, err := buf.WaitForTransform(ctx, "map", "base_link", tf2.Latest)
	if err != nil {
		fmt.Println(err)
		return
	}
	goal := tf2.TransformPointStamped(t, geometry_msgs.PointStamped{Header: std_msgs.Header{FrameID: "base_link"}, Point: geometry_msgs.Point{X: 1}})
	fmt.Printf("1 m ahead of the robot is (%.1f, %.1f) in %s\n", goal.Point.X, goal.Point.Y, goal.Header.FrameID)
	// Output:
	// 1 m ahead of the robot is (3.0, 1.0) in map
}
