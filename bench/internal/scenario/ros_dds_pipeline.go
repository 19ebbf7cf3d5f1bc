package scenario

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	_ "embed"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/geometry_msgs"
	"github.com/afor-go/afor/ros/msgs/nav_msgs"
	"github.com/afor-go/afor/ros/msgs/sensor_msgs"
)

// The robot pipeline as ROS 2 nodes over DDS ([PipelineConfig].ROS): the
// same five nodes, rates, messages and work as the Zenoh pipeline, written
// as ROS nodes are: one ROS context and node per process (package ros on
// its DDS middleware, LOCALHOST discovery in a domain of the run's own),
// ros.NewPublisher, and ros.Subscribe consumed as the Zenoh nodes consume
// their subscriptions (Listen, Value, ListenReliable); every topic on ROS's
// default QoS profile (reliable, volatile, keep last 10), the topic keys as
// names relative to the run's namespace. Next to them, the
// same five nodes in rclpy on Fast DDS (testdata/rclpy_pipeline.py).

// The pipeline's ROS flavours (PipelineConfig.ROS).
const (
	PipelineROSDDS      = "dds"          // Go ROS nodes on the DDS middleware
	PipelineRclpy       = "rclpy"        // rclpy nodes, SingleThreadedExecutor
	PipelineRclpyEvents = "rclpy-events" // rclpy nodes, EventsExecutor
)

//go:embed testdata/rclpy_pipeline.py
var rclpyPipeline string

// startRclpyNode starts node as an rclpy process and waits for its
// "ready -" line.
func startRclpyNode(ctx context.Context, python, flavour, node, ns string, domain int) (*nodeProc, error) {
	kind := "single"
	if flavour == PipelineRclpyEvents {
		kind = "events"
	}
	cmd := exec.Command(python, "-c", rclpyPipeline, node, kind, ns)
	cmd.Env = rclpyEnv(domain)
	np, _, err := startNodeCmd(ctx, cmd, "rclpy pipeline node "+node, rclpyStartTimeout)
	return np, err
}

// openROSDDSPipelineNode opens the ROS context of a pipeline node on DDS
// and declares its publisher and subscriptions. It returns "-" as its
// endpoint, its loop, which runs until ctx ends, and a function that closes
// the context.
func openROSDDSPipelineNode(cfg childConfig, st *nodeStats) (addr string, run func(context.Context) error, closeNode func(), err error) {
	octx, ocancel := context.WithTimeout(context.Background(), childTimeout)
	defer ocancel()
	rc, n, err := openROSDDSNode(octx, cfg.Domain, cfg.Node, cfg.Prefix)
	if err != nil {
		return "", nil, nil, err
	}
	if run, err = rosPipelineNode(n, cfg.Node, st); err != nil {
		_ = rc.Close()
		return "", nil, nil, err
	}
	return "-", run, func() { _ = rc.Close() }, nil
}

// rosPipelineNode declares node's publisher and subscriptions on n and
// returns its loop, which runs until ctx ends.
func rosPipelineNode(n *ros.Node, node string, st *nodeStats) (func(context.Context) error, error) {
	every := func(ctx context.Context, hz float64, body func() error) error {
		rate, err := afor.NewRate(hz, afor.OnMissed(afor.Skip))
		if err != nil {
			return err
		}
		defer rate.Close()
		for range rate.Listen(ctx) {
			if err := body(); err != nil {
				return err
			}
		}
		return nil
	}
	// sent counts a publication; a failure after ctx ended is the end.
	sent := func(ctx context.Context, err error) error {
		if err != nil && ctx.Err() == nil {
			return err
		}
		st.pub()
		return nil
	}
	q := ros.QoSDefault
	switch node {
	case NodeCamera:
		pub, err := ros.NewPublisher[sensor_msgs.Image](n, keyImage, q)
		if err != nil {
			return nil, err
		}
		img := newImage()
		return func(ctx context.Context) error {
			return every(ctx, CameraHz, func() error {
				nextImage(&img)
				return sent(ctx, pub.Publish(ctx, &img))
			})
		}, nil
	case NodeIMU:
		pub, err := ros.NewPublisher[sensor_msgs.Imu](n, keyIMU, q)
		if err != nil {
			return nil, err
		}
		imu := newIMU()
		return func(ctx context.Context) error {
			return every(ctx, IMUHz, func() error {
				imu.Header.Stamp = rosNow()
				return sent(ctx, pub.Publish(ctx, &imu))
			})
		}, nil
	case NodePerception:
		imgs, err := ros.Subscribe[sensor_msgs.Image](n, keyImage, q)
		if err != nil {
			return nil, err
		}
		imus, err := ros.Subscribe[sensor_msgs.Imu](n, keyIMU, q)
		if err != nil {
			imgs.Close()
			return nil, err
		}
		pub, err := ros.NewPublisher[geometry_msgs.PoseStamped](n, keyPose, q)
		if err != nil {
			imgs.Close()
			imus.Close()
			return nil, err
		}
		return func(ctx context.Context) error {
			defer imgs.Close()
			defer imus.Close()
			for img := range imgs.Listen(ctx) { // the latest frame: a slow step skips frames
				st.recv(img.Header.Stamp)
				imu, _ := imus.Value()
				pose := perceive(&img, &imu)
				if err := sent(ctx, pub.Publish(ctx, &pose)); err != nil {
					return err
				}
			}
			return nil
		}, nil
	case NodePlanning:
		poses, err := ros.Subscribe[geometry_msgs.PoseStamped](n, keyPose, q)
		if err != nil {
			return nil, err
		}
		pub, err := ros.NewPublisher[nav_msgs.Path](n, keyPath, q)
		if err != nil {
			poses.Close()
			return nil, err
		}
		path := newPath()
		poses.OnInput(func(geometry_msgs.PoseStamped) { st.count() })
		return func(ctx context.Context) error {
			defer poses.Close()
			return every(ctx, PlanningHz, func() error {
				goal, _ := poses.Value()
				planPath(&path, &goal)
				return sent(ctx, pub.Publish(ctx, &path))
			})
		}, nil
	case NodeControl:
		imus, err := ros.Subscribe[sensor_msgs.Imu](n, keyIMU, q)
		if err != nil {
			return nil, err
		}
		plans, err := ros.Subscribe[nav_msgs.Path](n, keyPath, q)
		if err != nil {
			imus.Close()
			return nil, err
		}
		pub, err := ros.NewPublisher[geometry_msgs.Twist](n, keyCmd, q)
		if err != nil {
			imus.Close()
			plans.Close()
			return nil, err
		}
		return func(ctx context.Context) error {
			defer imus.Close()
			defer plans.Close()
			for imu := range imus.ListenReliable(ctx) { // every IMU sample, in order
				st.recv(imu.Header.Stamp)
				plan, _ := plans.Value()
				cmd := steer(&imu, &plan)
				if err := sent(ctx, pub.Publish(ctx, &cmd)); err != nil {
					return err
				}
			}
			return nil
		}, nil
	}
	return nil, fmt.Errorf("%w: pipeline node %q", ErrBadConfig, node)
}

// The transports of the Go ROS pipeline rows: GOMAXPROCS Go's default (or
// PipelineConfig.NodeProcs), and 1 (PipelineConfig.NodeProcs 1 with
// PipelineConfig.OneProcRow).
const (
	PipelineTransportROSDDS        = "ros-dds"
	PipelineTransportROSDDSOneProc = "ros-dds-gmp1"
)

// pipelineFlavourRow names a ROS pipeline row: its transport and mode.
func pipelineFlavourRow(cfg PipelineConfig) (string, Mode) {
	switch {
	case strings.HasPrefix(cfg.ROS, "rclpy"):
		return cfg.ROS, ModePython
	case cfg.OneProcRow:
		return PipelineTransportROSDDSOneProc, ModeAfor
	}
	return PipelineTransportROSDDS, ModeAfor
}

// pipelineStartSlack is the extra time a run of cfg may take to start its
// nodes: five rclpy processes import and discover for tens of seconds on a
// loaded machine.
func pipelineStartSlack(cfg PipelineConfig) time.Duration {
	if strings.HasPrefix(cfg.ROS, "rclpy") {
		return 5 * rclpyStartTimeout
	}
	return 0
}
