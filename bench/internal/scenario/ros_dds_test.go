package scenario

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/peers"
)

// The ROS over DDS echo runs in both modes, within one ROS context (one
// participant), between two of this process and with side B in a child
// process, and every answer is the counter plus one.
func TestROSDDSEcho(t *testing.T) {
	for _, tr := range []Transport{ROSDDS(), ROSDDSUDP(), ROSDDSProc()} {
		for _, mode := range []Mode{ModeAfor, ModeNative} {
			t.Run(tr.Name+"/"+string(mode), func(t *testing.T) {
				ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
				defer cancel()
				e, err := NewEcho(ctx, tr, mode, 64)
				if err != nil {
					t.Fatal(err)
				}
				for range 20 {
					if err := e.RoundTrip(ctx); err != nil {
						t.Fatal(err)
					}
				}
				if err := e.Close(); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// The native rows run on what the ROS layer runs on: a bare participant's
// publications reach a ROS subscription on the same namespace (same topic,
// type, QoS and payload), and a bare callback receives a ROS publisher's.
func TestROSDDSNativeSameTopics(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	d := ddsDomainBase + rand.IntN(ddsDomains)
	ns := rosNamespace()
	rosSide, closeROS, err := rosDDSEnd(ctx, ModeAfor, d, "ros_side", ns, 100)
	if err != nil {
		t.Fatal(err)
	}
	defer closeROS()
	native, closeNative, err := rosDDSEnd(ctx, ModeNative, d, "", ns, 100)
	if err != nil {
		t.Fatal(err)
	}
	defer closeNative()

	sub, err := rosSide.Subscribe("hello")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	next := sub.Listener(ctx)
	pub, err := native.Publisher(ctx, "hello")
	if err != nil {
		t.Fatal(err)
	}
	for i := range uint64(3) {
		if err := pub(ctx, Msg{Seq: i, Stamp: int64(10 * i)}); err != nil {
			t.Fatal(err)
		}
		m, err := next.Next(ctx)
		if err != nil || m.Seq != i || m.Stamp != int64(10*i) {
			t.Fatalf("ROS subscription got %+v, %v; want message %d", m, err, i)
		}
	}

	got := make(chan Msg, 3)
	stop, err := native.Callback("world", func(m Msg) { got <- m })
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	rpub, err := rosSide.Publisher(ctx, "world") // waits for the native reader in the graph
	if err != nil {
		t.Fatal(err)
	}
	if err := rpub(ctx, Msg{Seq: 42}); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-got:
		if m.Seq != 42 {
			t.Fatalf("native callback got %+v", m)
		}
	case <-ctx.Done():
		t.Fatal("the native callback got nothing from the ROS publisher")
	}
}

// TestPipelineROSDDS runs the five Go ROS nodes over DDS briefly.
func TestPipelineROSDDS(t *testing.T) {
	cfg := PipelineConfig{ROS: PipelineROSDDS, Warmup: 100 * time.Millisecond, Window: 500 * time.Millisecond}
	r := RunPipeline(context.Background(), cfg)
	checkPipeline(t, r, cfg.Window)
	if r.Name() != "pipeline/ros-dds/afor/921600B" {
		t.Errorf("row %s", r.Name())
	}
}

// TestPipelineRclpy runs the five rclpy nodes briefly (Fast DDS), on
// both executors.
func TestPipelineRclpy(t *testing.T) {
	py := peers.Python(t, RclpyModules()...)
	for _, flavour := range []string{PipelineRclpy, PipelineRclpyEvents} {
		t.Run(flavour, func(t *testing.T) {
			cfg := PipelineConfig{ROS: flavour, Python: py, Warmup: 100 * time.Millisecond, Window: 500 * time.Millisecond}
			r := RunPipeline(context.Background(), cfg)
			checkPipeline(t, r, cfg.Window)
			if r.Name() != "pipeline/"+flavour+"/python/921600B" {
				t.Errorf("row %s", r.Name())
			}
		})
	}
}

// TestEchoRclpy runs rclpy's echo (on both executors) and the Python
// afor's on rclpy briefly, in two processes and in one: each must measure
// hops.
func TestEchoRclpy(t *testing.T) {
	py := peers.Python(t, append(RclpyModules(), "asyncio_for_robotics", "uvloop")...)
	for _, mode := range append([]PythonMode{PythonRclpy, PythonRclpyEvents, PythonAforRclpy}, Rclpy1PModes()...) {
		t.Run(string(mode), func(t *testing.T) {
			r, _ := RunEchoPython(t.Context(), py, mode, 300*time.Millisecond, 200*time.Millisecond)
			if r.Error != "" || r.Ops <= 0 || r.NsPerOp <= 0 || r.Transport != "python-"+string(mode) || r.Mode != ModePython {
				t.Fatalf("%+v", r)
			}
			if oneProcess := strings.HasSuffix(string(mode), "-1p"); oneProcess != strings.HasPrefix(r.Note, "one process, one node") {
				t.Errorf("%s: note %q", mode, r.Note)
			}
			if got := mode.GoTransport(); got != map[bool]string{false: ROSDDSProc().Name, true: ROSDDS().Name}[strings.HasSuffix(string(mode), "-1p")] {
				t.Errorf("%s is compared with %q", mode, got)
			}
		})
	}
}

// A failing one-process driver is reported on the row, not lost: here the
// interpreter is no Python at all.
func TestEchoRclpy1PFails(t *testing.T) {
	r, _ := RunEchoPython(t.Context(), "false", PythonRclpy1P, time.Millisecond, 0)
	if r.Failed != 1 || !strings.Contains(r.Error, "one process") || r.Ops != 0 {
		t.Fatalf("%+v", r)
	}
}
