package scenario

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/afor-go/afor"
)

// LatencyConfig configures a latency row.
type LatencyConfig struct {
	Size   int           // message size in bytes
	Period time.Duration // time between two sends
	Count  int           // messages measured
	Warmup int           // messages sent first and not measured
	// Queue is the afor listener's queue size (ModeAfor); 0 means
	// unbounded. The bench command uses DefaultLatencyQueue.
	Queue int
	// Grace is how long to wait for the last messages; 0 means 1 s.
	Grace    time.Duration
	Progress Progress
}

// latencyRecorder collects one-way latencies in B's goroutine.
type latencyRecorder struct {
	clock   clock
	warmup  uint64
	mu      sync.Mutex // a transport may still call back while Close runs
	samples []time.Duration
}

func (l *latencyRecorder) record(m Msg) {
	if m.Seq < l.warmup || m.Seq == badSeq {
		return
	}
	d := time.Duration(l.clock.now() - m.Stamp)
	l.mu.Lock()
	l.samples = append(l.samples, d)
	l.mu.Unlock()
}

// RunLatency sends cfg.Warmup+cfg.Count time-stamped messages at a fixed
// period over tr in mode and reports the distribution of the one-way
// latencies (time from send to delivery to the consumer), the messages
// dropped (sent but never delivered), late (latency above the period) and
// failed (undecodable, duplicated or reordered).
func RunLatency(ctx context.Context, tr Transport, mode Mode, cfg LatencyConfig) Result {
	r := Result{Scenario: "latency", Transport: tr.Name, Mode: mode, Size: max(cfg.Size, HeaderSize)}
	rec := &latencyRecorder{clock: newClock(), warmup: uint64(cfg.Warmup), samples: make([]time.Duration, 0, cfg.Count)}
	s, err := NewStream(ctx, tr, mode, StreamConfig{Size: cfg.Size, Queue: cfg.Queue, OnRecv: rec.record, clock: rec.clock})
	if errors.Is(err, ErrUnsupported) {
		r.Skipped = err.Error()
		return r
	}
	if err != nil {
		r.Error, r.Failed = err.Error(), 1
		return r
	}
	if mode == ModeAfor {
		r.Note = fmt.Sprintf("ListenReliable queue %d", cfg.Queue)
	}
	runLatency(ctx, s, cfg, rec, &r)
	return r
}

// RunLatencyFloor is RunLatency over floor f.
func RunLatencyFloor(ctx context.Context, f Floor, cfg LatencyConfig) Result {
	r := Result{Scenario: "latency", Transport: string(f), Mode: ModeFloor, Size: max(cfg.Size, HeaderSize)}
	rec := &latencyRecorder{clock: newClock(), warmup: uint64(cfg.Warmup), samples: make([]time.Duration, 0, cfg.Count)}
	s, err := NewFloorStream(ctx, f, StreamConfig{Size: cfg.Size, Window: cfg.Count + cfg.Warmup, OnRecv: rec.record, clock: rec.clock})
	if err != nil {
		r.Error, r.Failed = err.Error(), 1
		return r
	}
	runLatency(ctx, s, cfg, rec, &r)
	return r
}

func runLatency(ctx context.Context, s *Stream, cfg LatencyConfig, rec *latencyRecorder, r *Result) {
	if cfg.Period <= 0 || cfg.Count <= 0 {
		r.Error, r.Failed = fmt.Sprintf("%v: period %v and count %d must be positive", ErrBadConfig, cfg.Period, cfg.Count), 1
		_ = s.Close()
		return
	}
	grace := cfg.Grace
	if grace <= 0 {
		grace = time.Second
	}
	total := cfg.Warmup + cfg.Count
	var sendLate int64
	var err error
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	cpu0, start := cpuTime(), time.Now()
	next := start.Add(progressEvery)
	due := start
	for k := range total {
		if k > 0 {
			due = due.Add(cfg.Period)
		}
		if wait := time.Until(due); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-ctx.Done():
				err = ctx.Err()
			}
		} else if -wait > cfg.Period {
			// The sender was descheduled past a whole period: restart the
			// schedule now rather than send a burst of overdue messages.
			sendLate++
			due = time.Now()
		}
		if err != nil {
			break
		}
		if err = s.Send(ctx); err != nil {
			break
		}
		if cfg.Progress != nil && k%64 == 0 && time.Now().After(next) {
			cfg.Progress(r.Name(), time.Since(start))
			next = time.Now().Add(progressEvery)
		}
	}
	sendEnd := time.Now()
	dctx, cancel := context.WithTimeout(ctx, grace)
	_ = s.Drain(dctx) // messages still missing after the grace are dropped
	cancel()
	cpu := cpuTime() - cpu0
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	sent, received, qdropped, failed := s.Counts()
	rec.mu.Lock()
	samples := rec.samples
	rec.samples = nil
	rec.mu.Unlock()
	r.finish(int64(len(samples)), sendEnd.Sub(start), cpu)
	r.Latency = Summarize(samples)
	if r.Latency != nil {
		r.NsPerOp = float64(r.Latency.P50)
	}
	r.Samples = samples
	r.Sent = sent
	if secs := sendEnd.Sub(start).Seconds(); secs > 0 {
		r.Rate = float64(sent) / secs // the achieved send rate, warm-up included
	}
	r.Dropped = sent - received
	r.Failed = failed
	for _, d := range samples {
		if d > cfg.Period {
			r.Late++
		}
	}
	note := fmt.Sprintf("period %v; rate: messages sent per second", cfg.Period)
	if qdropped > 0 {
		note += fmt.Sprintf("; %d dropped by the afor queue", qdropped)
	}
	if sendLate > 0 {
		note += fmt.Sprintf("; the sender was more than a period late %d times (schedule restarted, no burst)", sendLate)
	}
	r.Note = join(r.Note, note)
	if err != nil {
		r.Error = err.Error()
		r.Failed++
	}
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// DefaultLatencyQueue is the afor queue of the latency rows unless
// configured: afor's own default.
const DefaultLatencyQueue = afor.DefaultQueueSize
