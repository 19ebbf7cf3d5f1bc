package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/afor-go/afor/internal/netns"
)

// binDir holds the afor binary the tests build (once, on first use).
var (
	binDir   string
	binOnce  sync.Once
	binPath  string
	binError error
)

// TestMain runs the tests in a loopback-only network namespace (see package
// netns), where the binary's DDS and its rclpy peers on Fast DDS reach each
// other over 127.0.0.1 only, and fails them if they leave goroutines
// behind.
func TestMain(m *testing.M) {
	if code, done := netns.Exec(); done {
		os.Exit(code)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		if binDir != "" {
			_ = os.RemoveAll(binDir)
		}
		os.Exit(code)
	}))
}

// aforBinary builds the afor command (CGO_ENABLED=0, as it ships) and
// returns its path.
func aforBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binError = os.MkdirTemp("", "afor-cli-test")
		if binError != nil {
			return
		}
		binPath = filepath.Join(binDir, "afor")
		cmd := exec.Command("go", "build", "-o", binPath, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := cmd.CombinedOutput()
		if err != nil {
			binError = &buildError{err: err, out: string(out)}
		}
	})
	if binError != nil {
		t.Fatal(binError)
	}
	return binPath
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return "go build: " + e.err.Error() + "\n" + e.out }

// proc is a running process whose stdout is read line by line.
type proc struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string
	done  chan struct{}
	mu    sync.Mutex
	out   strings.Builder // everything read so far
	errw  *testWriter
}

// start starts name with args and env (on top of ours) and stops it at the
// end of the test: stdin closed, then SIGINT, then killed.
func start(t *testing.T, env []string, name string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	errw := &testWriter{t: t, prefix: filepath.Base(name) + ": "}
	cmd.Stderr = errw
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
	p := &proc{t: t, cmd: cmd, stdin: stdin, lines: make(chan string, 1024), done: make(chan struct{}), errw: errw}
	go func() {
		defer close(p.done)
		defer close(p.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			p.mu.Lock()
			p.out.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			select {
			case p.lines <- sc.Text():
			default: // nobody reads the lines: out keeps them
			}
		}
	}()
	t.Cleanup(func() { p.stop() })
	return p
}

// stop ends the process if it still runs and waits for it.
func (p *proc) stop() {
	_ = p.stdin.Close()
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Signal(os.Interrupt)
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	}
	_ = p.cmd.Wait()
}

// wait waits for the process to exit and returns its exit code and output.
func (p *proc) wait(ctx context.Context) (int, string) {
	p.t.Helper()
	select {
	case <-p.done:
	case <-ctx.Done():
		_ = p.cmd.Process.Kill()
		<-p.done
		_ = p.cmd.Wait()
		p.t.Fatalf("%s did not exit in time; output so far:\n%s", p.cmd.Path, p.output())
	}
	err := p.cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	return code, p.output()
}

func (p *proc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// nextLine returns the next line of output that contains want.
func (p *proc) nextLine(ctx context.Context, want string) string {
	p.t.Helper()
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("%s exited before printing %q; output:\n%s", p.cmd.Path, want, p.output())
			}
			if strings.Contains(l, want) {
				return l
			}
		case <-ctx.Done():
			p.t.Fatalf("no %q from %s; output so far:\n%s", want, p.cmd.Path, p.output())
		}
	}
}

// event returns the next JSON event named ev of a Python peer.
func (p *proc) event(ctx context.Context, ev string) map[string]any {
	p.t.Helper()
	for {
		l := p.nextLine(ctx, `"ev"`)
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["ev"] == ev {
			return m
		}
		if m["ev"] == "error" {
			p.t.Fatalf("peer error: %v", m)
		}
	}
}

// runAfor runs the afor binary to its end and returns its exit code and
// output.
func runAfor(ctx context.Context, t *testing.T, env []string, args ...string) (int, string) {
	t.Helper()
	p := start(t, env, aforBinary(t), args...)
	return p.wait(ctx)
}

// runAforErr is runAfor that also returns what it wrote on stderr.
func runAforErr(ctx context.Context, t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	p := start(t, env, aforBinary(t), args...)
	code, out := p.wait(ctx)
	return code, out, p.stderr()
}

// stderr returns what the process wrote on stderr so far.
func (p *proc) stderr() string {
	p.errw.mu.Lock()
	defer p.errw.mu.Unlock()
	return p.errw.all.String()
}

// testWriter logs what a process writes on stderr, and keeps it.
type testWriter struct {
	t      *testing.T
	prefix string
	mu     sync.Mutex
	all    strings.Builder
}

func (w *testWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	w.all.Write(b)
	w.mu.Unlock()
	for l := range strings.SplitSeq(strings.TrimRight(string(b), "\n"), "\n") {
		w.t.Log(w.prefix + l)
	}
	return len(b), nil
}

func testCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
