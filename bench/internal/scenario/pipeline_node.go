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
// Zenoh session, prints "ready ENDPOINT" (the endpoint it listens on, or
// "-" as a client), and runs until stdin closes. A "mark" line resets its
// counts, a "report" line makes it print its nodeReport as one JSON line.
func runPipelineNode(cfg childConfig, stdin io.Reader, stdout io.Writer) error {
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
		return err
	}
	defer s.Close()
	st := &nodeStats{}
	run, err := pipelineNode(s, cfg.Prefix, cfg.Node, st)
	if err != nil {
		return err
	}
	addr := "-"
	if !cfg.Client {
		addr = s.ListenAddrs()[0]
	}
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
		img := sensor_msgs.Image{Header: std_msgs.Header{FrameID: "camera"}, Height: ImageHeight, Width: ImageWidth,
			Encoding: "mono8", Step: ImageWidth, Data: make([]uint8, ImageWidth*ImageHeight)}
		var buf []byte
		return func(ctx context.Context) error {
			return every(ctx, CameraHz, func() (err error) {
				img.Header.Stamp = rosNow()
				img.Data[0]++ // a changing frame
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
		imu := sensor_msgs.Imu{Header: std_msgs.Header{FrameID: "imu"}}
		var buf []byte
		return func(ctx context.Context) error {
			return every(ctx, IMUHz, func() (err error) {
				imu.Header.Stamp = rosNow()
				imu.Orientation.W = 1
				imu.LinearAcceleration.Z = 9.81
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
				var sum int
				for i := 0; i < len(img.Data); i += 4096 { // a token look at the frame
					sum += int(img.Data[i])
				}
				pose := geometry_msgs.PoseStamped{Header: img.Header}
				pose.Pose.Position.X = float64(sum)
				pose.Pose.Orientation = imu.Orientation
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
		path := nav_msgs.Path{Header: std_msgs.Header{FrameID: "map"}, Poses: make([]geometry_msgs.PoseStamped, pathPoses)}
		var buf []byte
		poses.OnInput(func(geometry_msgs.PoseStamped) { st.count() })
		return func(ctx context.Context) error {
			defer poses.Close()
			return every(ctx, PlanningHz, func() (err error) {
				goal, _ := poses.Value()
				path.Header.Stamp = rosNow()
				for i := range path.Poses {
					p := &path.Poses[i]
					p.Header = path.Header
					p.Pose.Position.X = goal.Pose.Position.X * float64(i) / pathPoses
					p.Pose.Orientation = goal.Pose.Orientation
				}
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
				var cmd geometry_msgs.Twist
				if len(plan.Poses) > 1 {
					cmd.Linear.X = plan.Poses[1].Pose.Position.X - plan.Poses[0].Pose.Position.X
				}
				cmd.Angular.Z = -imu.AngularVelocity.Z
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
