package scenario

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ThroughputConfig configures a throughput row.
type ThroughputConfig struct {
	Size     int           // message size in bytes
	Duration time.Duration // sending time
	// Window is the most messages in flight; 0 means 256.
	Window   int
	Warmup   int // messages sent and drained before measuring
	Progress Progress
}

// DefaultWindow is the flow-control window of throughput rows.
const DefaultWindow = 256

// RunThroughput floods messages one way over tr in mode for cfg.Duration
// (within the flow-control window, capped by tr.MaxInFlight) and reports
// messages and bytes per second, from the first send to the last delivery.
func RunThroughput(ctx context.Context, tr Transport, mode Mode, cfg ThroughputConfig) Result {
	r := Result{Scenario: "throughput", Transport: tr.Name, Mode: mode, Size: max(cfg.Size, HeaderSize)}
	if cfg.Window <= 0 {
		cfg.Window = DefaultWindow
	}
	cfg.Window = tr.window(cfg.Size, cfg.Window)
	s, err := NewStream(ctx, tr, mode, StreamConfig{Size: cfg.Size, Window: cfg.Window, Queue: 2 * cfg.Window, OneWay: true})
	if errors.Is(err, ErrUnsupported) {
		r.Skipped = err.Error()
		return r
	}
	if err != nil {
		r.Error, r.Failed = err.Error(), 1
		return r
	}
	runThroughput(ctx, s, cfg, &r)
	return r
}

// RunThroughputFloor is RunThroughput over floor f (chan or tcp: UDP
// loses datagrams when flooded).
func RunThroughputFloor(ctx context.Context, f Floor, cfg ThroughputConfig) Result {
	r := Result{Scenario: "throughput", Transport: string(f), Mode: ModeFloor, Size: max(cfg.Size, HeaderSize)}
	if f == FloorUDP {
		r.Skipped = "udp loses datagrams when flooded; no flow control to compare with"
		return r
	}
	if cfg.Window <= 0 {
		cfg.Window = DefaultWindow
	}
	s, err := NewFloorStream(ctx, f, StreamConfig{Size: cfg.Size, Window: cfg.Window})
	if err != nil {
		r.Error, r.Failed = err.Error(), 1
		return r
	}
	runThroughput(ctx, s, cfg, &r)
	return r
}

func runThroughput(ctx context.Context, s *Stream, cfg ThroughputConfig, r *Result) {
	rctx, cancel := context.WithTimeout(ctx, 2*cfg.Duration+runSlack)
	defer cancel()
	var err error
	for range cfg.Warmup {
		if err = s.Send(rctx); err != nil {
			break
		}
	}
	if err == nil {
		err = s.Drain(rctx)
	}
	var n int64
	var elapsed, cpu time.Duration
	if err == nil {
		sent0, _, _, _ := s.Counts()
		cpu0, start := cpuTime(), time.Now()
		_, _, _, err = timeLoop(rctx, cfg.Duration, 0, r.Name(), cfg.Progress, s.Send)
		if err == nil {
			err = s.Drain(rctx)
		}
		elapsed, cpu = time.Since(start), cpuTime()-cpu0
		sent, _, _, _ := s.Counts()
		n = sent - sent0
	}
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	r.finish(n, elapsed, cpu)
	r.BytesPerSec = r.Rate * float64(r.Size)
	sent, received, qdropped, failed := s.Counts()
	r.Sent, r.Dropped, r.Failed = sent, sent-received, failed
	r.Note = fmt.Sprintf("window %d messages", cfg.Window)
	if s.oneWay {
		r.Note = "one way, no acknowledgment per message: paced by the transport's flow control"
	}
	if qdropped > 0 {
		r.Note += fmt.Sprintf("; %d dropped by the afor queue", qdropped)
	}
	if err != nil {
		r.Error = err.Error()
		r.Failed++
	}
}

// window returns the flow-control window of a stream of size-byte messages
// over t: window, capped by t.MaxInFlight.
func (t Transport) window(size, window int) int {
	if t.MaxInFlight > 0 {
		window = max(1, min(window, t.MaxInFlight/max(size, HeaderSize)))
	}
	return window
}
