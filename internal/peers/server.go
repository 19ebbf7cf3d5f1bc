package peers

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"
)

// Server describes a peer process that serves the test (a router, say)
// and says on its output when it is ready.
type Server struct {
	// Name names the process in failures: "the Zenoh router".
	Name string
	// Ready reads a line of the process's output and returns, once the
	// process is ready, what the test needs of it (its endpoint) and true.
	Ready func(line []byte) (string, bool)
	// Stop asks the process to stop when the test ends; nil closes its
	// standard input.
	Stop func(*exec.Cmd) error
	// Stderr reads the process's standard error as output too; else
	// cmd.Stderr is left as the caller set it.
	Stderr bool
}

// Start starts cmd and returns what s.Ready reads off its output. It fails
// the test when the process exits before it is ready, or is not ready in
// 20 s. The process stops with the test: s.Stop, then a kill after 10 s.
func (s Server) Start(t testing.TB, cmd *exec.Cmd) string {
	t.Helper()
	var stdin io.Closer
	if s.Stop == nil {
		w, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdin = w
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if s.Stderr {
		cmd.Stderr = cmd.Stdout
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	ready := make(chan string, 1)
	go func() {
		defer close(exited)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if v, ok := s.Ready(sc.Bytes()); ok {
				select {
				case ready <- v:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	t.Cleanup(func() {
		if s.Stop == nil {
			_ = stdin.Close()
		} else {
			_ = s.Stop(cmd)
		}
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		_ = cmd.Wait()
	})
	select {
	case v := <-ready:
		return v
	case <-exited:
		t.Fatalf("%s exited before it was ready", s.Name)
	case <-time.After(20 * time.Second):
		t.Fatalf("%s is not ready", s.Name)
	}
	return ""
}

// ZenohRouter runs script, the project's Zenoh router (a Rust Zenoh
// router through the eclipse-zenoh Python package, such as
// ros/internal/rmwzenoh/testdata/zenoh_router.py), with args, on a free
// port of 127.0.0.1, and returns its endpoint. The script says
// {"ev": "ready", "endpoint": ...} on its output once it listens, and
// stops when its standard input closes, with the test.
func ZenohRouter(t testing.TB, script string, args ...string) string {
	t.Helper()
	py := Python(t, "zenoh")
	cmd := exec.Command(py, append([]string{script, "--listen", "tcp/127.0.0.1:0"}, args...)...)
	cmd.Stderr = os.Stderr
	return Server{Name: "the Zenoh router", Ready: readyEndpoint}.Start(t, cmd)
}

// readyEndpoint reads the endpoint off a {"ev": "ready"} line.
func readyEndpoint(line []byte) (string, bool) {
	var ev struct{ Ev, Endpoint string }
	if json.Unmarshal(line, &ev) == nil && ev.Ev == "ready" {
		return ev.Endpoint, true
	}
	return "", false
}
