package ros

import (
	"io"
	"log/slog"
	"testing"

	"github.com/afor-go/afor/ros/msgs/rcl_interfaces"
)

// BenchmarkRosoutHandle is the cost a log call pays for /rosout: building
// the Log and queueing it (the publishing is the sink goroutine's). Compare
// with BenchmarkSlogTextDiscard, slog's text handler writing nowhere.
func BenchmarkRosoutHandle(b *testing.B) {
	a, _ := memPair(b)
	n, err := a.NewNode("bench", WithRosout(false))
	if err != nil {
		b.Fatal(err)
	}
	defer n.Close()
	// A sink drained by the benchmark's own goroutine, without publishing.
	s := &rosoutSink{node: n, name: n.LoggerName(), queue: make(chan *rcl_interfaces.Log, rosoutQueue)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range s.queue {
		}
	}()
	n.rosout = s
	l := slog.New(n.RosoutHandler(slog.LevelInfo))
	b.ReportAllocs()
	for b.Loop() {
		l.Info("tick", "k", 1)
	}
	close(s.queue)
	<-done
}

func BenchmarkSlogTextDiscard(b *testing.B) {
	l := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{AddSource: true}))
	b.ReportAllocs()
	for b.Loop() {
		l.Info("tick", "k", 1)
	}
}

// BenchmarkGetParameter reads a declared parameter.
func BenchmarkGetParameter(b *testing.B) {
	a, _ := memPair(b)
	n, err := a.NewNode("bench")
	if err != nil {
		b.Fatal(err)
	}
	defer n.Close()
	if _, err := n.DeclareParameter("speed", 1.5); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := GetParameter[float64](n, "speed"); err != nil {
			b.Fatal(err)
		}
	}
}
