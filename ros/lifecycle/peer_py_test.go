package lifecycle_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/netns"
	"github.com/afor-go/afor/internal/peers"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/transport/dds"
)

// rclpyDomain hands each rclpy interop test of the package its own ROS
// domain, so that one test's peers never see another's (the package's
// tests run in a network namespace of their own).
var rclpyDomain atomic.Int32

// rclpyContext opens a Go context that reaches rclpy on Fast DDS (the
// pinned Kilted wheels) in the loopback-only namespace, on a domain of the
// test's own, and returns it with the environment of the rclpy process
// and a Python holding modules; or skips (fails under CI) without them.
func rclpyContext(t *testing.T, modules ...string) (*ros.Context, string, []string) {
	t.Helper()
	netns.Require(t)
	py := peers.Python(t, append([]string{"rclpy"}, modules...)...)
	d := 100 + int(rclpyDomain.Add(1))
	mw := ros.DDS(dds.Config{Range: dds.RangeSubnet, Getenv: func(string) string { return "" }})
	c, err := ros.Open(context.Background(), ros.WithMiddleware(mw), ros.WithDomainID(d), ros.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	env := []string{"RMW_IMPLEMENTATION=rmw_fastrtps_cpp", "FASTDDS_BUILTIN_TRANSPORTS=UDPv4",
		"ROS_DOMAIN_ID=" + strconv.Itoa(d), "ROS_AUTOMATIC_DISCOVERY_RANGE=SUBNET"}
	return c, py, env
}

// pyEvent is a line a Python peer prints.
type pyEvent map[string]any

func (e pyEvent) str(k string) string { s, _ := e[k].(string); return s }

// pyPeer runs a Python script that takes JSON commands on stdin and prints
// JSON events on stdout.
type pyPeer struct {
	t       *testing.T
	ctx     context.Context
	stdin   io.WriteCloser
	events  chan pyEvent
	backlog []pyEvent
	exited  chan struct{}
}

func startPy(t *testing.T, ctx context.Context, py string, env []string, args ...string) *pyPeer {
	t.Helper()
	cmd := exec.Command(py, args...)
	cmd.Env = append(os.Environ(), env...)
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
	p := &pyPeer{t: t, ctx: ctx, stdin: stdin, events: make(chan pyEvent, 4096), exited: make(chan struct{})}
	go func() {
		defer close(p.exited)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var ev pyEvent
			if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.str("ev") != "" {
				select {
				case p.events <- ev:
				default: // the test stopped reading
				}
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		select {
		case <-p.exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-p.exited
		}
		_ = cmd.Wait()
	})
	return p
}

func (p *pyPeer) send(cmd map[string]any) {
	p.t.Helper()
	b, _ := json.Marshal(cmd)
	if _, err := p.stdin.Write(append(b, '\n')); err != nil {
		p.t.Fatal(err)
	}
}

// next returns the next event named ev; events it passes over are kept
// for later calls. An "error" event fails the test.
func (p *pyPeer) next(ev string) pyEvent {
	p.t.Helper()
	if e, ok := p.take(ev); ok {
		return e
	}
	for {
		select {
		case e := <-p.events:
			if e.str("ev") == "error" {
				p.t.Fatalf("python: %v", e)
			}
			if e.str("ev") == ev {
				return e
			}
			p.backlog = append(p.backlog, e)
		case <-p.exited:
			p.t.Fatalf("the python peer exited waiting for %q", ev)
		case <-p.ctx.Done():
			p.t.Fatalf("no %q from the python peer", ev)
		}
	}
}

// take returns the first kept event named ev, if any.
func (p *pyPeer) take(ev string) (pyEvent, bool) {
	for i, e := range p.backlog {
		if e.str("ev") == ev {
			p.backlog = slices.Delete(p.backlog, i, i+1)
			return e, true
		}
	}
	return nil, false
}

// poll moves the events that arrived into the backlog without waiting.
func (p *pyPeer) poll() {
	for {
		select {
		case e := <-p.events:
			if e.str("ev") == "error" {
				p.t.Fatalf("python: %v", e)
			}
			p.backlog = append(p.backlog, e)
		default:
			return
		}
	}
}

// call sends cmd and returns the event answering it.
func (p *pyPeer) call(cmd map[string]any, answer string) pyEvent {
	p.t.Helper()
	p.send(cmd)
	return p.next(answer)
}
