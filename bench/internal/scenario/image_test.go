package scenario

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestImage runs both image rows briefly: the images must flow, every
// side report its CPU and allocations, and the subscriber allocate about
// one image per image (its decode's copy), whatever the transport.
func TestImage(t *testing.T) {
	f := ImageFormats()[0]
	for _, floor := range []bool{false, true} {
		t.Run(fmt.Sprintf("floor=%v", floor), func(t *testing.T) {
			cfg := ImageConfig{Format: f, Floor: floor, Warmup: 200 * time.Millisecond, Window: time.Second}
			r := RunImage(context.Background(), cfg)
			if r.Error != "" || r.Skipped != "" || r.Image == nil {
				t.Fatalf("%+v", r)
			}
			im := r.Image
			if im.Received == 0 || im.Sent == 0 || im.Latency == nil || im.Latency.P50 <= 0 || r.NsPerOp != float64(im.Latency.P50) {
				t.Errorf("%+v", im)
			}
			if im.Bytes < f.Bytes() || im.PubCPU <= 0 || im.SubCPU <= 0 || r.CPU != im.PubCPU+im.SubCPU {
				t.Errorf("%+v", im)
			}
			// About one image: the window's edges may fall between an
			// image's allocation and its arrival, so the mean over a
			// one-second window can be a few percent under one image.
			if im.SubAlloc < 0.5*float64(f.Bytes()) || im.SubAlloc > 2*float64(f.Bytes()) {
				t.Errorf("subscriber allocates %.0f bytes per image, want one image (%d)", im.SubAlloc, f.Bytes())
			}
			if im.PubAlloc > float64(f.Bytes())/2 {
				t.Errorf("publisher allocates %.0f bytes per image", im.PubAlloc)
			}
			want := "image/zenoh-proc/afor/921600B"
			if floor {
				want = "image/tcp-proc/floor/921600B"
			}
			if r.Name() != want {
				t.Errorf("row %s, want %s", r.Name(), want)
			}
		})
	}
}

func TestImageBadConfig(t *testing.T) {
	if r := RunImage(context.Background(), ImageConfig{Format: ImageFormats()[0]}); r.Error == "" {
		t.Errorf("zero window accepted: %+v", r)
	}
}

// BenchmarkImage streams camera images at 30 Hz between two processes,
// b.N images per row (use -benchtime 300x: 10 s), and reports the one-way
// latency, each process's CPU and the bytes it allocates per image:
//
//	go test -run '^$' -bench Image -benchtime 300x ./bench/internal/scenario
func BenchmarkImage(b *testing.B) {
	for _, f := range ImageFormats() {
		for _, floor := range []bool{false, true} {
			mode := "zenoh-proc/afor"
			if floor {
				mode = "tcp-proc/floor"
			}
			b.Run(f.Name+"/"+mode, func(b *testing.B) {
				cfg := ImageConfig{Format: f, Floor: floor, Warmup: 200 * time.Millisecond,
					Window: time.Duration(b.N) * time.Second / ImageHz}
				r := RunImage(context.Background(), cfg)
				if r.Image == nil {
					b.Fatalf("%+v", r)
				}
				im := r.Image
				b.ReportMetric(float64(im.Latency.P50), "p50-ns")
				b.ReportMetric(float64(im.Latency.P99), "p99-ns")
				b.ReportMetric(im.PubCPU, "pub-cpu-%")
				b.ReportMetric(im.SubCPU, "sub-cpu-%")
				b.ReportMetric(im.PubAlloc, "pub-B/img")
				b.ReportMetric(im.SubAlloc, "sub-B/img")
			})
		}
	}
}
