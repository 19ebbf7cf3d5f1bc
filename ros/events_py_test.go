package ros

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
)

// pyEvents runs a Python script of testdata that prints JSON events, one
// per line, and takes commands on stdin.
type pyEvents struct {
	t       *testing.T
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	events  chan pyEvent
	backlog []pyEvent // events next passed over, kept for later calls
}

func startPyEvents(t *testing.T, p rclpyPeer, script string, args ...string) *pyEvents {
	t.Helper()
	cmd := exec.Command(p.launcher, append([]string{filepath.Join("testdata", script)}, args...)...)
	cmd.Env = append(os.Environ(), p.env...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	py := &pyEvents{t: t, cmd: cmd, stdin: stdin, events: make(chan pyEvent, 4096)}
	go func() {
		defer close(py.events)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var ev pyEvent
			if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.str("ev") != "" {
				select {
				case py.events <- ev:
				default:
				}
			}
		}
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return py
}

// next returns the next event that match accepts, failing on an error
// event or when ctx ends. The events it passes over are kept for later
// calls.
func (py *pyEvents) next(ctx context.Context, match func(pyEvent) bool) pyEvent {
	py.t.Helper()
	for i, e := range py.backlog {
		if match(e) {
			py.backlog = slices.Delete(py.backlog, i, i+1)
			return e
		}
	}
	for {
		select {
		case e, ok := <-py.events:
			if !ok {
				py.t.Fatal("the rclpy process exited")
			}
			if e.str("ev") == "error" {
				py.t.Fatalf("rclpy: %v", e)
			}
			if os.Getenv("PY_EVENTS_DEBUG") != "" {
				py.t.Logf("rclpy: %v", e)
			}
			if match(e) {
				return e
			}
			if e.str("ev") != "msg" {
				py.backlog = append(py.backlog, e)
			}
		case <-ctx.Done():
			py.t.Fatal("no such event from rclpy")
		}
	}
}

func isEvent(name string, more ...func(pyEvent) bool) func(pyEvent) bool {
	return func(e pyEvent) bool {
		if e.str("ev") != name {
			return false
		}
		for _, m := range more {
			if !m(e) {
				return false
			}
		}
		return true
	}
}

func num(e pyEvent, k string) int { f, _ := e[k].(float64); return int(f) }

// Over DDS with rclpy on Fast DDS: a Go subscription with a 100 ms
// deadline reports missed deadlines when the rclpy publisher stops, keeps
// it alive while rclpy's WLP asserts its AUTOMATIC liveliness (500 ms
// lease) with no messages, and counts it not alive once the rclpy process
// is killed, long before Fast DDS's 20 s participant lease. The other way,
// an rclpy subscription sees a Go publisher's deadline misses, and its
// liveliness kept alive by the Go participant's WLP, while the Go
// publisher reports its offered deadline misses.
func TestEventsInteropRclpy(t *testing.T) {
	peer := rclpyMiddleware(t, "std_msgs")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := Open(ctx, WithMiddleware(peer.mw), WithDomainID(peer.domain), WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n, err := c.NewNode("go_events")
	if err != nil {
		t.Fatal(err)
	}
	var id [4]byte
	_, _ = rand.Read(id[:])
	prefix := "/events_" + hex.EncodeToString(id[:])
	q := QoSDefault.WithDeadline(100*time.Millisecond).WithLiveliness(LivelinessAutomatic, time.Second)
	sub, err := Subscribe[std_msgs.String](n, prefix+"/py_beat", q)
	if err != nil {
		t.Fatal(err)
	}
	ev, _ := SubscriptionEventsOf(n, sub)
	missed := ev.DeadlineMissed.Listener(ctx, afor.QueueSize(0))
	pub, err := NewPublisher[std_msgs.String](n, prefix+"/go_beat",
		QoSDefault.WithDeadline(100*time.Millisecond).WithLiveliness(LivelinessAutomatic, 500*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	offered := pub.Events().DeadlineMissed.Listener(ctx, afor.QueueSize(0))

	py := startPyEvents(t, peer, "rclpy_events.py", prefix)
	py.next(ctx, isEvent("ready"))
	// rclpy -> Go: messages flow, the publisher is alive.
	if _, err := sub.WaitForNext(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := waitSub(ctx, ev.LivelinessChanged, func(l LivelinessChanged) bool { return l.AliveCount == 1 }); err != nil {
		t.Fatal(err)
	}
	// Go -> rclpy: publish at 50 Hz until rclpy hears us and counts us
	// alive.
	stopGo := make(chan struct{})
	goDone := make(chan struct{})
	go func() {
		defer close(goDone)
		rate, err := afor.NewRate(50)
		if err != nil {
			t.Error(err)
			return
		}
		defer rate.Close()
		for range rate.ListenReliable(ctx) {
			select {
			case <-stopGo:
				return
			default:
			}
			_ = pub.Publish(ctx, &std_msgs.String{Data: "beat"})
		}
	}()
	py.next(ctx, isEvent("msg"))
	py.next(ctx, isEvent("liveliness", func(e pyEvent) bool { return num(e, "alive") == 1 }))
	// Matched from the DDS protocol: each Go endpoint matched rclpy's.
	if m, err := waitSub(ctx, ev.Matched, func(m Matched) bool { return m.CurrentCount == 1 }); err != nil || m.TotalCount != 1 {
		t.Errorf("the subscription's matched: %+v %v", m, err)
	}
	if m, err := waitSub(ctx, pub.Events().Matched, func(m Matched) bool { return m.CurrentCount == 1 }); err != nil || m.TotalCount != 1 {
		t.Errorf("the publisher's matched: %+v %v", m, err)
	}

	// Both publishers stop: each side's subscription misses deadlines,
	// and the Go publisher reports its own.
	py.send("stop")
	close(stopGo)
	<-goDone
	py.next(ctx, isEvent("deadline", func(e pyEvent) bool { return e.str("side") == "subscription" }))
	for {
		m, err := missed.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if m.TotalCountChange != 1 || m.Topic != prefix+"/py_beat" {
			t.Errorf("missed %+v", m)
		}
		// 800 ms without a message: longer than both 500 ms leases,
		// within the 1 s one rclpy's subscription requests.
		if m.TotalCount >= 8 {
			break
		}
	}
	if o, err := offered.Next(ctx); err != nil || o.TotalCount < 1 {
		t.Errorf("offered deadline missed: %+v %v", o, err)
	}
	// WLP kept both silent publishers alive on the other side.
	if l, _ := ev.LivelinessChanged.Value(); l.AliveCount != 1 || l.NotAliveCount != 0 {
		t.Errorf("the silent rclpy publisher: %+v", l)
	}
	for done := false; !done; {
		select {
		case e := <-py.events:
			py.backlog = append(py.backlog, e)
		default:
			done = true
		}
	}
	for _, e := range py.backlog {
		if e.str("ev") == "liveliness" && num(e, "not_alive") != 0 {
			t.Errorf("rclpy counts the silent Go publisher not alive: %v", e)
		}
	}
	// The rclpy process dies: its publisher is not alive after its lease.
	_ = py.cmd.Process.Kill()
	l, err := waitSub(ctx, ev.LivelinessChanged, func(l LivelinessChanged) bool { return l.NotAliveCount == 1 })
	if err != nil || l.AliveCount != 0 || l.NotAliveCountChange != 1 || l.AliveCountChange != -1 {
		t.Errorf("liveliness after rclpy died: %+v %v", l, err)
	}
}

// sendJSON sends cmd as one line of JSON.
func (py *pyEvents) sendJSON(cmd map[string]any) {
	py.t.Helper()
	b, err := json.Marshal(cmd)
	if err != nil {
		py.t.Fatal(err)
	}
	py.send(string(b))
}

func (py *pyEvents) send(line string) {
	py.t.Helper()
	if _, err := io.WriteString(py.stdin, line+"\n"); err != nil {
		py.t.Fatal(err)
	}
}

// waitSub returns the first value of s, its current one included, that
// cond accepts.
func waitSub[T any](ctx context.Context, s *afor.Sub[T], cond func(T) bool) (T, error) {
	for v := range s.ListenReliable(ctx, afor.QueueSize(0)) {
		if cond(v) {
			return v, nil
		}
	}
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	return zero, ErrClosed
}
