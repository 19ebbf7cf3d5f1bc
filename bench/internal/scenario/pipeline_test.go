package scenario

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/peers"
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
