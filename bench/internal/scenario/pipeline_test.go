package scenario

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/peers"
	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/msgs/geometry_msgs"
	"github.com/afor-go/afor/ros/msgs/sensor_msgs"
)

func checkPipeline(t *testing.T, r Result, window time.Duration) {
	t.Helper()
	if r.Error != "" || r.Skipped != "" || r.Pipeline == nil {
		t.Fatalf("%+v", r)
	}
	p := r.Pipeline
	if len(p.Nodes) != 5 {
		t.Fatalf("%d nodes: %+v", len(p.Nodes), p.Nodes)
	}
	var total float64
	for i, n := range p.Nodes {
		if n.Node != PipelineNodes()[i] || n.PID <= 0 || n.CPU < 0 {
			t.Errorf("node %d: %+v", i, n)
		}
		total += n.CPU
		// Every node publishes; all but the sources receive.
		if n.Published == 0 || (len(pipelineInputs(n.Node)) > 0 && n.Received == 0) {
			t.Errorf("%s idle: %+v", n.Node, n)
		}
	}
	if p.TotalCPU != total || r.CPU != total {
		t.Errorf("total %v, row %v, sum %v", p.TotalCPU, r.CPU, total)
	}
	if p.Window < window || p.CameraToPerception == nil || p.IMUToControl == nil || r.NsPerOp != float64(p.IMUToControl.P50) {
		t.Errorf("%+v", p)
	}
	for _, l := range []*Latency{p.CameraToPerception, p.IMUToControl} {
		if l.Min <= 0 || l.P50 < l.Min || l.Max < l.P99 {
			t.Errorf("latency %+v", l)
		}
	}
}

func TestPipeline(t *testing.T) {
	cfg := PipelineConfig{Warmup: 100 * time.Millisecond, Window: 500 * time.Millisecond}
	r := RunPipeline(context.Background(), cfg)
	checkPipeline(t, r, cfg.Window)
	if r.Transport != "zenoh-p2p" || r.Pipeline.Router != nil {
		t.Errorf("%s, router %+v", r.Transport, r.Pipeline.Router)
	}
}

func TestPipelineRouter(t *testing.T) {
	py := peers.Python(t, RouterModules()...)
	cfg := PipelineConfig{Router: true, Python: py, Warmup: 100 * time.Millisecond, Window: 500 * time.Millisecond}
	r := RunPipeline(context.Background(), cfg)
	checkPipeline(t, r, cfg.Window)
	if r.Transport != "zenoh-router" || r.Pipeline.Router == nil || r.Pipeline.Router.PID <= 0 {
		t.Errorf("%s, router %+v", r.Transport, r.Pipeline.Router)
	}
}

// TestPipelineFloor runs the floor's five processes briefly: they must
// exchange every topic and measure both latencies like the Zenoh nodes.
func TestPipelineFloor(t *testing.T) {
	cfg := PipelineConfig{Floor: true, Warmup: 100 * time.Millisecond, Window: 500 * time.Millisecond}
	r := RunPipeline(context.Background(), cfg)
	checkPipeline(t, r, cfg.Window)
	if r.Name() != "pipeline/tcp/floor/921600B" || r.Pipeline.Router != nil {
		t.Errorf("%s, router %+v", r.Name(), r.Pipeline.Router)
	}
}

func TestFrameRoundTrip(t *testing.T) {
	img := newImage()
	nextImage(&img)
	img.Data[len(img.Data)-1] = 7
	var stream []byte
	b, err := appendFrame([]byte("stale"), &img)
	if err != nil {
		t.Fatal(err)
	}
	stream = append(stream, b...)
	pose := geometry_msgs.PoseStamped{Header: img.Header}
	pose.Pose.Position.X = 3
	if b, err = appendFrame(b, &pose); err != nil {
		t.Fatal(err)
	}
	stream = append(stream, b...)
	r := bytes.NewReader(stream)
	var buf []byte
	if buf, err = readFrame(r, buf); err != nil {
		t.Fatal(err)
	}
	got, err := cdr.Codec[sensor_msgs.Image]().Decode(buf)
	if err != nil {
		t.Fatal(err)
	}
	if buf, err = readFrame(r, buf); err != nil { // reuses buf: got must not alias it
		t.Fatal(err)
	}
	gotPose, err := cdr.Codec[geometry_msgs.PoseStamped]().Decode(buf)
	if err != nil {
		t.Fatal(err)
	}
	if got.Header != img.Header || got.Width != ImageWidth || !bytes.Equal(got.Data, img.Data) || gotPose != pose {
		t.Errorf("image %v %dx%d, pose %+v", got.Header, got.Width, got.Height, gotPose)
	}
	if _, err := readFrame(r, buf); err != io.EOF {
		t.Errorf("after the last frame: %v", err)
	}
}

func TestReadFrameBad(t *testing.T) {
	big := binary.LittleEndian.AppendUint32(nil, MaxFrame+1)
	if _, err := readFrame(bytes.NewReader(big), nil); !errors.Is(err, ErrBadFrame) {
		t.Errorf("oversized: %v", err)
	}
	cut := append(binary.LittleEndian.AppendUint32(nil, 10), 1, 2, 3)
	if _, err := readFrame(bytes.NewReader(cut), nil); err != io.ErrUnexpectedEOF {
		t.Errorf("truncated payload: %v", err)
	}
	if _, err := readFrame(bytes.NewReader([]byte{1, 0}), nil); err != io.ErrUnexpectedEOF {
		t.Errorf("truncated prefix: %v", err)
	}
}

func FuzzReadFrame(f *testing.F) {
	imu := newIMU()
	seed, _ := appendFrame(nil, &imu)
	f.Add(seed)
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 0})
	f.Add(binary.LittleEndian.AppendUint32(nil, MaxFrame+1))
	f.Add(binary.LittleEndian.AppendUint32(nil, 1<<32-1))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bytes.NewReader(b)
		var buf []byte
		for {
			var err error
			buf, err = readFrame(r, buf)
			if err != nil {
				return
			}
			if len(buf) > MaxFrame || cap(buf) > MaxFrame {
				t.Fatalf("%d bytes read, capacity %d", len(buf), cap(buf))
			}
			// Whatever the payload, decoding it fails or succeeds without panicking.
			_, _ = cdr.Codec[sensor_msgs.Imu]().Decode(buf)
		}
	})
}

func TestOffer(t *testing.T) {
	ch := make(chan int, 3)
	for i := range 5 {
		offer(ch, i)
	}
	for _, want := range []int{2, 3, 4} { // the oldest made room
		if got := <-ch; got != want {
			t.Fatalf("got %d, want %d", got, want)
		}
	}
	latestOnly := make(chan int, 1)
	offer(latestOnly, 1)
	offer(latestOnly, 2)
	if got := <-latestOnly; got != 2 {
		t.Fatalf("latest: got %d", got)
	}
}

func TestPipelineBadConfig(t *testing.T) {
	if r := RunPipeline(context.Background(), PipelineConfig{}); r.Error == "" {
		t.Fatalf("zero window: %+v", r)
	}
}

func TestProcCPU(t *testing.T) {
	c, err := procCPU(os.Getpid())
	if err != nil {
		t.Skip("no /proc:", err)
	}
	if c < 0 {
		t.Fatal(c)
	}
	if _, err := procCPU(-1); err == nil {
		t.Fatal("pid -1 read")
	}
}
