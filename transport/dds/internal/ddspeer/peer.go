package ddspeer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/transport/textio"
)

// ErrExited is returned by [Peer.WaitLine] and [Peer.WaitEvent] when the
// peer's output ended before a matching line.
var ErrExited = errors.New("ddspeer: peer exited")

// closeTimeout bounds how long Close and the test's cleanup wait for a peer
// to exit after its stdin closed, before killing it.
const closeTimeout = 10 * time.Second

// stderrLimit bounds the stderr kept for the failure log.
const stderrLimit = 256 << 10

// Peer is a running reference peer. Its output lines come in order through
// [Peer.WaitLine], [Peer.WaitEvent] and [Peer.Samples], which share one
// cursor; [Peer.Lines] gives the raw sub for other consumers.
type Peer struct {
	name   string
	cmd    *exec.Cmd
	lines  *afor.Sub[string]
	cursor *afor.Listener[string]
	stdin  io.WriteCloser
	stderr tailBuffer

	mu     sync.Mutex
	counts map[string]int // events seen, by kind
	tail   []string       // the last output lines, for the failure log
}

// tailLines is how many output lines the failure log shows.
const tailLines = 100

// start runs cmd as a peer named name and ties it to t: it ends, and its
// stderr is logged if t failed, in t's cleanup.
func start(t testing.TB, name string, cmd *exec.Cmd) *Peer {
	t.Helper()
	p := &Peer{name: name, cmd: cmd, counts: make(map[string]int)}
	p.stderr.limit = stderrLimit
	cmd.Stderr = &p.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	p.stdin = stdin
	cmd.WaitDelay = closeTimeout
	begin := make(chan struct{})
	p.lines, err = textio.FromCommand(context.Background(), cmd,
		textio.WithStartSignal(begin), textio.WithSubOptions(afor.WithName(name)))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	// Registered before the first line is read: they see them all.
	p.cursor = p.lines.Listener(context.Background(), afor.QueueSize(0))
	p.lines.OnInput(func(line string) {
		ev, err := ParseEvent(line)
		p.mu.Lock()
		defer p.mu.Unlock()
		if err == nil {
			p.counts[ev.Ev]++
		}
		if len(p.tail) == tailLines {
			p.tail = append(p.tail[:0], p.tail[1:]...)
		}
		p.tail = append(p.tail, line)
	})
	close(begin)
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Logf("%s: %v", name, err)
		}
		if t.Failed() {
			p.mu.Lock()
			out := strings.Join(p.tail, "\n")
			p.mu.Unlock()
			t.Logf("%s (%s)\nlast output lines:\n%s\nstderr:\n%s", name, strings.Join(cmd.Args, " "), out, p.stderr.String())
		}
	})
	return p
}

// String returns the peer's name.
func (p *Peer) String() string { return p.name }

// Lines returns the sub of the peer's output lines; it ends when the
// process has exited, with its exit error if any.
func (p *Peer) Lines() *afor.Sub[string] { return p.lines }

// Count returns how many events of kind ev (one of the Ev constants) the
// peer has printed so far, whether or not they were waited for.
func (p *Peer) Count(ev string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.counts[ev]
}

// Stderr returns the last part of what the peer wrote on stderr so far.
func (p *Peer) Stderr() string { return p.stderr.String() }

// WaitLine returns the next output line, after those already returned by
// WaitLine, WaitEvent or Samples, for which match is true, skipping the
// others. It fails with [ErrExited] when the output ends first, or with
// ctx's error.
func (p *Peer) WaitLine(ctx context.Context, match func(line string) bool) (string, error) {
	for {
		line, err := p.cursor.Next(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return "", fmt.Errorf("%s: %w", p.name, context.Cause(ctx))
			}
			return "", fmt.Errorf("%s: %w (%v)", p.name, ErrExited, p.lines.Err())
		}
		if match(line) {
			return line, nil
		}
	}
}

// WaitEvent returns the next event of kind ev (one of the Ev constants),
// skipping other lines, as [Peer.WaitLine] does.
func (p *Peer) WaitEvent(ctx context.Context, ev string) (Event, error) {
	var got Event
	_, err := p.WaitLine(ctx, func(line string) bool {
		e, err := ParseEvent(line)
		if err == nil && e.Ev == ev {
			got = e
			return true
		}
		return false
	})
	return got, err
}

// WaitMatched waits for a "matched" event with at least n matched
// endpoints.
func (p *Peer) WaitMatched(ctx context.Context, n int) error {
	for {
		ev, err := p.WaitEvent(ctx, EvMatched)
		if err != nil || ev.Count >= n {
			return err
		}
	}
}

// Samples returns the next n "sample" events, skipping other lines.
func (p *Peer) Samples(ctx context.Context, n int) ([]Event, error) {
	out := make([]Event, 0, n)
	for len(out) < n {
		ev, err := p.WaitEvent(ctx, EvSample)
		if err != nil {
			return out, fmt.Errorf("after %d of %d samples: %w", len(out), n, err)
		}
		out = append(out, ev)
	}
	return out, nil
}

// Go lets a writer started with [Options.WaitGo] write.
func (p *Peer) Go() error {
	if _, err := io.WriteString(p.stdin, "go\n"); err != nil {
		return fmt.Errorf("%s: %w", p.name, err)
	}
	return nil
}

// Kill kills the peer at once (SIGKILL), as a crash would: its DDS
// participant says no goodbye.
func (p *Peer) Kill() {
	_ = p.cmd.Process.Kill()
}

// Wait waits for the peer to exit and returns its exit error (nil for
// status 0), or ctx's error.
func (p *Peer) Wait(ctx context.Context) error {
	select {
	case <-p.lines.Done():
		return p.lines.Err()
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", p.name, context.Cause(ctx))
	}
}

// Close asks the peer to end by closing its stdin (a writer stops writing,
// and both delete their DDS entities) and waits for it to exit, killing it
// after 10 s. It returns the exit error, nil for a clean exit or one that
// already happened after Kill.
func (p *Peer) Close() error {
	_ = p.stdin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	err := p.Wait(ctx)
	if ctx.Err() != nil {
		p.lines.Close() // kills and waits
		return fmt.Errorf("%s: did not exit within %v of its stdin closing", p.name, closeTimeout)
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) && !exit.Exited() {
		return nil // killed by Kill
	}
	return err
}

// tailBuffer keeps the last limit bytes written to it; it is safe for
// concurrent use.
type tailBuffer struct {
	mu    sync.Mutex
	limit int
	buf   []byte
	cut   bool
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.limit; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
		b.cut = true
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cut {
		return "[...]" + string(b.buf)
	}
	return string(b.buf)
}

// env returns the process environment with the harness's variables and the
// caller's added, later ones winning.
func env(extra ...[]string) []string {
	out := os.Environ()
	for _, e := range extra {
		out = append(out, e...)
	}
	return out
}
