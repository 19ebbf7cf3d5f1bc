package main

import (
	"context"
	"fmt"
	"io"

	"github.com/afor-go/afor/bench/internal/scenario"
)

// imageRows plans the image scenario's rows: for each image, Zenoh between
// two processes (mode afor) and its floor (tcp-proc).
func imageRows(cfg Config, has func(string) bool) []row {
	var rows []row
	for _, f := range scenario.ImageFormats() {
		for _, floor := range []bool{false, true} {
			mode, tr := scenario.ModeAfor, "zenoh-proc"
			if floor {
				mode, tr = scenario.ModeFloor, string(scenario.FloorTCPProc)
			}
			if !has(string(mode)) {
				continue
			}
			ic := scenario.ImageConfig{Format: f, Floor: floor, Warmup: cfg.PipeWarmup, Window: cfg.CPUWindow}
			rows = append(rows, row{fmt.Sprintf("image/%s/%s/%dB", tr, mode, f.Bytes()), func(ctx context.Context, p scenario.Progress) scenario.Result {
				ic := ic
				ic.Progress = p
				return scenario.RunImage(ctx, ic)
			}})
		}
	}
	return rows
}

func imageTitle(c Config) string {
	return fmt.Sprintf("image: sensor_msgs/Image at %d Hz from one process to another (afor: pure-Go Zenoh, a ListenReliable loop over zenoh.SubscribeCodec; floor: the same bytes over a bare TCP connection, a reader goroutine handing each image to the loop); over %v: one-way latency, CPU (getrusage) and bytes allocated per image of each process; afor/floor of latency p50 and of both processes' CPU",
		scenario.ImageHz, c.CPUWindow)
}

// writeImages writes the image scenario's table.
func (r *Report) writeImages(tw io.Writer, rows []scenario.Result) {
	fmt.Fprintln(tw, "transport\tmode\timage\tp50\tp99\tmax\treceived\tcpu pub\tcpu sub\talloc/img pub\talloc/img sub\tp50 afor/floor\tcpu afor/floor\t")
	for _, res := range rows {
		im := res.Image
		if im == nil {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\t\t\t\t\t\t\t\t\t\n", res.Transport, res.Mode, size(res), status(res))
			continue
		}
		latX, cpuXs := "-", "-"
		if res.Mode != scenario.ModeFloor {
			if fl := r.get("image", string(scenario.FloorTCPProc), scenario.ModeFloor, res.Size); fl != nil && fl.Image != nil {
				latX = x(float64(im.Latency.P50) / float64(fl.Image.Latency.P50))
				if fc := fl.Image.PubCPU + fl.Image.SubCPU; fc > 0 {
					cpuXs = x((im.PubCPU + im.SubCPU) / fc)
				}
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%.1f%%\t%.1f%%\t%s\t%s\t%s\t%s\t\n", res.Transport, res.Mode, im.Format.Name,
			d(im.Latency.P50), d(im.Latency.P99), d(im.Latency.Max), im.Received, im.PubCPU, im.SubCPU,
			bytesSize(im.PubAlloc), bytesSize(im.SubAlloc), latX, cpuXs)
	}
}
