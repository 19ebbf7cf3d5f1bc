package scenario_test

import (
	"context"
	"fmt"
	"time"

	"github.com/afor-go/afor/bench/internal/scenario"
)

// The echo pattern over the in-memory bus, driven by hand: each RoundTrip
// is two hops (hello from A, world back from B).
func ExampleNewEcho() {
	ctx := context.Background()
	e, err := scenario.NewEcho(ctx, scenario.Mem(), scenario.ModeAfor, 64)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer e.Close()
	for range 1000 {
		if err := e.RoundTrip(ctx); err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Println("1000 round trips")
	// Output: 1000 round trips
}

// A timed row, as the bench command runs it; the numbers vary from run to
// run, so only the counters that must hold are printed.
func ExampleRunThroughput() {
	r := scenario.RunThroughput(context.Background(), scenario.Mem(), scenario.ModeAfor,
		scenario.ThroughputConfig{Size: 4096, Duration: 10 * time.Millisecond})
	fmt.Println(r.Name(), "dropped:", r.Dropped, "failed:", r.Failed, "measured:", r.Ops > 0)
	// Output: throughput/mem/afor/4096B dropped: 0 failed: 0 measured: true
}

// The robot pipeline, five processes over Zenoh; the calling program must
// call RunChild first in main (or TestMain), since the nodes are this
// executable started again. Not run here: it takes seconds.
func ExampleRunPipeline() {
	r := scenario.RunPipeline(context.Background(), scenario.PipelineConfig{
		Warmup: time.Second, Window: 10 * time.Second,
	})
	if r.Error != "" {
		fmt.Println(r.Error)
		return
	}
	for _, n := range r.Pipeline.Nodes {
		fmt.Printf("%-10s %5.1f%%\n", n.Node, n.CPU)
	}
	fmt.Printf("all five   %5.1f%%, imu->control p50 %v\n", r.Pipeline.TotalCPU, r.Pipeline.IMUToControl.P50)
}

// The pipeline next to its floor: the same five nodes in bare Go over TCP,
// what the Go runtime and the kernel cost for this traffic. Not run here:
// it takes seconds.
func ExampleRunPipeline_floor() {
	cfg := scenario.PipelineConfig{Warmup: time.Second, Window: 10 * time.Second}
	afor := scenario.RunPipeline(context.Background(), cfg)
	cfg.Floor = true
	floor := scenario.RunPipeline(context.Background(), cfg)
	if afor.Error != "" || floor.Error != "" {
		fmt.Println(afor.Error, floor.Error)
		return
	}
	fmt.Printf("%s %.1f%%, %s %.1f%%: afor/floor %.2fx\n", afor.Name(), afor.CPU, floor.Name(), floor.CPU, afor.CPU/floor.CPU)
}

// The cross-process floor: the tcp floor's ping-pong with side B in a child
// process, the floor that zenoh-proc's rows are compared with. The calling
// program must call RunChild first in main (or TestMain), since the child
// is this executable started again.
func ExampleRunEchoFloor_crossProcess() {
	fmt.Println("zenoh-proc is compared with", scenario.ZenohProc().Floor)
	r := scenario.RunEchoFloor(context.Background(), scenario.FloorTCPProc,
		scenario.EchoConfig{Size: 64, Duration: 20 * time.Millisecond, Warmup: 10})
	fmt.Println(r.Name(), "failed:", r.Failed, "measured:", r.Ops > 0)
	// Output:
	// zenoh-proc is compared with tcp-proc
	// echo/tcp-proc/floor/64B failed: 0 measured: true
}
