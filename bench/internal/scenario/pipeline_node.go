package scenario

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/msgs/builtin_interfaces"
	"github.com/afor-go/afor/ros/msgs/geometry_msgs"
	"github.com/afor-go/afor/ros/msgs/nav_msgs"
	"github.com/afor-go/afor/ros/msgs/sensor_msgs"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/transport/zenoh"
)

// The robot pipeline's nodes, in start order.
const (
	NodeCamera     = "camera"
	NodeIMU        = "imu"
	NodePerception = "perception"
	NodePlanning   = "planning"
	NodeControl    = "control"
)

// PipelineNodes returns the pipeline's nodes in start order.
func PipelineNodes() []string {
	return []string{NodeCamera, NodeIMU, NodePerception, NodePlanning, NodeControl}
}

// The pipeline's rates and image, as in the blog post the scenario models.
const (
	CameraHz    = 30
	IMUHz       = 200
	PlanningHz  = 10
	ImageWidth  = 1280
	ImageHeight = 720
	pathPoses   = 50
)

// The pipeline's topics (under the run's prefix).
const (
	keyImage = "camera/image_raw"
	keyIMU   = "imu/data"
	keyPose  = "perception/pose"
	keyPath  = "planning/path"
	keyCmd   = "control/cmd_vel"
)

// pipelineInputs lists the nodes whose topics each node takes; in
// peer-to-peer runs a node connects to exactly these.
func pipelineInputs(node string) []string {
	switch node {
	case NodePerception:
		return []string{NodeCamera, NodeIMU}
	case NodePlanning:
		return []string{NodePerception}
	case NodeControl:
		return []string{NodeIMU, NodePlanning}
	}
	return nil
}

// EnvPipelineDebug, when set, makes pipeline nodes log their Zenoh
// session's diagnostics on their stderr.
const EnvPipelineDebug = "AFOR_BENCH_DEBUG"

// nodeReport is what a pipeline node prints when asked: its
// counts and end-to-end latencies since the last "mark" line.
type nodeReport struct {
	Node      string  `json:"node"`
	Published int64   `json:"published"`
	Received  int64   `json:"received"`
	Latency   []int64 `json:"latency_ns,omitempty"`
}

// nodeStats counts a node's traffic; mark starts the measured window.
type nodeStats struct {
	mu        sync.Mutex
	published int64
	received  int64
	latency   []int64
}

func (s *nodeStats) pub() {
	s.mu.Lock()
	s.published++
	s.mu.Unlock()
}

// recv counts a message stamped at stamp (wall clock of the sender).
func (s *nodeStats) recv(stamp builtin_interfaces.Time) {
	lat := time.Now().UnixNano() - (int64(stamp.Sec)*1e9 + int64(stamp.Nanosec))
	s.mu.Lock()
	s.received++
	if len(s.latency) < maxNodeSamples {
		s.latency = append(s.latency, lat)
	}
	s.mu.Unlock()
}

// maxNodeSamples bounds the latencies a node keeps (an hour at 200 Hz).
const maxNodeSamples = 720_000

// count counts a message that carries no latency measure.
func (s *nodeStats) count() {
	s.mu.Lock()
	s.received++
	s.mu.Unlock()
}

func (s *nodeStats) mark() {
	s.mu.Lock()
	s.published, s.received, s.latency = 0, 0, s.latency[:0]
	s.mu.Unlock()
}

func (s *nodeStats) report(node string) nodeReport {
	s.mu.Lock()
	defer s.mu.Unlock()
	return nodeReport{Node: node, Published: s.published, Received: s.received, Latency: slices.Clone(s.latency)}
}

func rosNow() builtin_interfaces.Time {
	ns := time.Now().UnixNano()
	return builtin_interfaces.Time{Sec: int32(ns / 1e9), Nanosec: uint32(ns % 1e9)}
}

// runPipelineNode is a pipeline node in a child process: it opens its
// Zenoh session (or, with cfg.Floor, its bare TCP links, see
// openFloorNode), prints "ready ENDPOINT" (the endpoint it listens on, or
// "-" as a client), and runs until stdin closes. A "mark" line resets its
// counts, a "report" line makes it print its nodeReport as one JSON line.
func runPipelineNode(cfg childConfig, stdin io.Reader, stdout io.Writer) error {
	st := &nodeStats{}
	open := openZenohNode
	if cfg.Floor {
		open = openFloorNode
	}
	if cfg.ROSDDS {
		open = openROSDDSPipelineNode
	}
	addr, run, closeNode, err := open(cfg, st)
	if err != nil {
		return err
	}
	defer closeNode()
	fmt.Fprintln(stdout, childReady, addr)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	enc := json.NewEncoder(stdout)
	in := bufio.NewScanner(stdin)
	for in.Scan() {
		switch in.Text() {
		case "mark":
			st.mark()
		case "report":
			if err := enc.Encode(st.report(cfg.Node)); err != nil {
				cancel()
				return errors.Join(err, <-done)
			}
		}
	}
	cancel()
	return <-done
}

// openZenohNode opens the Zenoh session of a pipeline node and declares its
// publisher and subscribers. It returns the endpoint the node listens on
// ("-" as a client), its loop, which runs until ctx ends, and a function
// that closes the session.
func openZenohNode(cfg childConfig, st *nodeStats) (addr string, run func(context.Context) error, closeNode func(), err error) {
	zc := zenoh.Config{Connect: cfg.Peers}
	if os.Getenv(EnvPipelineDebug) != "" { // the session's diagnostics on stderr
		zc.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if cfg.Client {
		zc.Mode = zenoh.ModeClient
	} else {
		zc.Listen = []string{"tcp/127.0.0.1:0"}
	}
	octx, ocancel := context.WithTimeout(context.Background(), childTimeout)
	s, err := zenoh.Open(octx, zc)
	ocancel()
	if err != nil {
		return "", nil, nil, err
	}
	if run, err = pipelineNode(s, cfg.Prefix, cfg.Node, st); err != nil {
		s.Close()
		return "", nil, nil, err
	}
	addr = "-"
	if !cfg.Client {
		addr = s.ListenAddrs()[0]
	}
	return addr, run, func() { s.Close() }, nil
}

// pipelineNode declares node's publishers and subscribers on s and returns
// its loop, which runs until ctx ends.
func pipelineNode(s *zenoh.Session, prefix, node string, st *nodeStats) (func(context.Context) error, error) {
	put := func(ctx context.Context, p *zenoh.Publisher, b []byte) error {
		if err := p.Put(ctx, b); err != nil && ctx.Err() == nil {
			return err
		}
		st.pub()
		return nil
	}
	// every runs body at hz until ctx ends (a late tick is skipped).
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
	switch node {
	case NodeCamera:
		pub, err := s.DeclarePublisher(prefix + keyImage)
		if err != nil {
			return nil, err
		}
		img := newImage()
		var buf []byte
		return func(ctx context.Context) error {
			return every(ctx, CameraHz, func() (err error) {
				nextImage(&img)
				if buf, err = img.AppendCDR(buf[:0]); err != nil {
					return err
				}
				return put(ctx, pub, buf)
			})
		}, nil
	case NodeIMU:
		pub, err := s.DeclarePublisher(prefix + keyIMU)
		if err != nil {
			return nil, err
		}
		imu := newIMU()
		var buf []byte
		return func(ctx context.Context) error {
			return every(ctx, IMUHz, func() (err error) {
				imu.Header.Stamp = rosNow()
				if buf, err = imu.AppendCDR(buf[:0]); err != nil {
					return err
				}
				return put(ctx, pub, buf)
			})
		}, nil
	case NodePerception:
		imgs, err := zenoh.SubscribeCodec(s, prefix+keyImage, cdr.Codec[sensor_msgs.Image]())
		if err != nil {
			return nil, err
		}
		imus, err := zenoh.SubscribeCodec(s, prefix+keyIMU, cdr.Codec[sensor_msgs.Imu]())
		if err != nil {
			imgs.Close()
			return nil, err
		}
		pub, err := s.DeclarePublisher(prefix + keyPose)
		if err != nil {
			imgs.Close()
			imus.Close()
			return nil, err
		}
		var buf []byte
		return func(ctx context.Context) error {
			defer imgs.Close()
			defer imus.Close()
			for img := range imgs.Listen(ctx) { // the latest frame: a slow step skips frames
				st.recv(img.Header.Stamp)
				imu, _ := imus.Value() // the latest IMU sample
				pose := perceive(&img, &imu)
				if buf, err = pose.AppendCDR(buf[:0]); err != nil {
					return err
				}
				if err := put(ctx, pub, buf); err != nil {
					return err
				}
			}
			return nil
		}, nil
	case NodePlanning:
		poses, err := zenoh.SubscribeCodec(s, prefix+keyPose, cdr.Codec[geometry_msgs.PoseStamped]())
		if err != nil {
			return nil, err
		}
		pub, err := s.DeclarePublisher(prefix + keyPath)
		if err != nil {
			poses.Close()
			return nil, err
		}
		path := newPath()
		var buf []byte
		poses.OnInput(func(geometry_msgs.PoseStamped) { st.count() })
		return func(ctx context.Context) error {
			defer poses.Close()
			return every(ctx, PlanningHz, func() (err error) {
				goal, _ := poses.Value()
				planPath(&path, &goal)
				if buf, err = path.AppendCDR(buf[:0]); err != nil {
					return err
				}
				return put(ctx, pub, buf)
			})
		}, nil
	case NodeControl:
		imus, err := zenoh.SubscribeCodec(s, prefix+keyIMU, cdr.Codec[sensor_msgs.Imu]())
		if err != nil {
			return nil, err
		}
		plans, err := zenoh.SubscribeCodec(s, prefix+keyPath, cdr.Codec[nav_msgs.Path]())
		if err != nil {
			imus.Close()
			return nil, err
		}
		pub, err := s.DeclarePublisher(prefix + keyCmd)
		if err != nil {
			imus.Close()
			plans.Close()
			return nil, err
		}
		var buf []byte
		return func(ctx context.Context) error {
			defer imus.Close()
			defer plans.Close()
			// Every IMU sample, in order (200 Hz): one control step each.
			for imu := range imus.ListenReliable(ctx) {
				st.recv(imu.Header.Stamp)
				plan, _ := plans.Value()
				cmd := steer(&imu, &plan)
				if buf, err = cmd.AppendCDR(buf[:0]); err != nil {
					return err
				}
				if err := put(ctx, pub, buf); err != nil {
					return err
				}
			}
			return nil
		}, nil
	}
	return nil, fmt.Errorf("%w: pipeline node %q", ErrBadConfig, node)
}

// The nodes' work, shared by the Zenoh nodes and the floor's
// (pipeline_floor.go), so that both encode, decode and compute the same.

// newImage returns the camera's frame: 1280x720 mono8, black.
func newImage() sensor_msgs.Image {
	return sensor_msgs.Image{Header: std_msgs.Header{FrameID: "camera"}, Height: ImageHeight, Width: ImageWidth,
		Encoding: "mono8", Step: ImageWidth, Data: make([]uint8, ImageWidth*ImageHeight)}
}

// nextImage stamps img and changes one pixel (a changing frame).
func nextImage(img *sensor_msgs.Image) {
	img.Header.Stamp = rosNow()
	img.Data[0]++
}

// newIMU returns the IMU's sample: at rest, level.
func newIMU() sensor_msgs.Imu {
	imu := sensor_msgs.Imu{Header: std_msgs.Header{FrameID: "imu"}}
	imu.Orientation.W = 1
	imu.LinearAcceleration.Z = 9.81
	return imu
}

// newPath returns the planner's path of pathPoses poses.
func newPath() nav_msgs.Path {
	return nav_msgs.Path{Header: std_msgs.Header{FrameID: "map"}, Poses: make([]geometry_msgs.PoseStamped, pathPoses)}
}

// perceive is perception's step: a token look at the frame, and a pose
// stamped as the frame with the IMU's orientation.
func perceive(img *sensor_msgs.Image, imu *sensor_msgs.Imu) geometry_msgs.PoseStamped {
	var sum int
	for i := 0; i < len(img.Data); i += 4096 {
		sum += int(img.Data[i])
	}
	pose := geometry_msgs.PoseStamped{Header: img.Header}
	pose.Pose.Position.X = float64(sum)
	pose.Pose.Orientation = imu.Orientation
	return pose
}

// planPath is planning's step: path, stamped now, leads to goal.
func planPath(path *nav_msgs.Path, goal *geometry_msgs.PoseStamped) {
	path.Header.Stamp = rosNow()
	for i := range path.Poses {
		p := &path.Poses[i]
		p.Header = path.Header
		p.Pose.Position.X = goal.Pose.Position.X * float64(i) / pathPoses
		p.Pose.Orientation = goal.Pose.Orientation
	}
}

// steer is control's step: a command from the IMU sample and the plan.
func steer(imu *sensor_msgs.Imu, plan *nav_msgs.Path) geometry_msgs.Twist {
	var cmd geometry_msgs.Twist
	if len(plan.Poses) > 1 {
		cmd.Linear.X = plan.Poses[1].Pose.Position.X - plan.Poses[0].Pose.Position.X
	}
	cmd.Angular.Z = -imu.AngularVelocity.Z
	return cmd
}
