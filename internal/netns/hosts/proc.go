//go:build linux

package hosts

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// Event is one line of a process's standard output that is a JSON object
// with an "ev" member: {"ev": "ready", ...}.
type Event struct {
	// Ev is the event's name.
	Ev string
	// At is when the test read it.
	At time.Time
	// Raw is the whole line.
	Raw json.RawMessage
}

// Decode unmarshals the event's line into v.
func (e Event) Decode(v any) error { return json.Unmarshal(e.Raw, v) }

// String returns the event's line.
func (e Event) String() string { return string(e.Raw) }

// Proc is a program running on a host whose standard output is read as
// events, one JSON object per line (other lines are kept as its log, with
// the tail of its standard error, shown when the test fails). Its
// standard input stays open for commands ([Proc.Send]) until [Proc.Stop].
type Proc struct {
	// Name names the process in messages: "robot/talker".
	Name string
	cmd  *exec.Cmd

	stdinMu sync.Mutex
	stdin   io.WriteCloser

	mu      sync.Mutex
	events  []Event
	next    int // Expect's cursor
	log     []string
	changed chan struct{} // closed and replaced on each new event
	exited  chan struct{}
	waitErr error
}

// maxLog bounds the log lines kept per process.
const maxLog = 200

// start starts cmd and reads its output.
func start(t testing.TB, name string, cmd *exec.Cmd) *Proc {
	t.Helper()
	p := &Proc{Name: name, cmd: cmd, changed: make(chan struct{}), exited: make(chan struct{})}
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var readers sync.WaitGroup
	readers.Add(2)
	go func() { defer readers.Done(); p.readEvents(stdout) }()
	go func() { defer readers.Done(); p.readLog(stderr) }()
	go func() {
		readers.Wait()
		err := cmd.Wait()
		p.mu.Lock()
		p.waitErr = err
		p.mu.Unlock()
		close(p.exited)
	}()
	t.Cleanup(func() {
		_ = p.Stop()
		if t.Failed() {
			p.dump(t)
		}
	})
	return p
}

// readEvents reads stdout.
func (p *Proc) readEvents(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var head struct {
			Ev string `json:"ev"`
		}
		if len(line) > 0 && line[0] == '{' && json.Unmarshal(line, &head) == nil && head.Ev != "" {
			ev := Event{Ev: head.Ev, At: time.Now(), Raw: append(json.RawMessage(nil), line...)}
			p.mu.Lock()
			p.events = append(p.events, ev)
			close(p.changed)
			p.changed = make(chan struct{})
			p.mu.Unlock()
			continue
		}
		p.addLog(string(line))
	}
	_, _ = io.Copy(io.Discard, r)
}

// readLog keeps the tail of stderr.
func (p *Proc) readLog(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		p.addLog(sc.Text())
	}
	_, _ = io.Copy(io.Discard, r)
}

func (p *Proc) addLog(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.log = append(p.log, s)
	if len(p.log) > maxLog {
		p.log = p.log[len(p.log)-maxLog:]
	}
}

// dump logs the process's log lines and exit status.
func (p *Proc) dump(t testing.TB) {
	p.mu.Lock()
	defer p.mu.Unlock()
	t.Logf("%s (%v): %d events; log:\n%s", p.Name, p.waitErr, len(p.events), strings.Join(p.log, "\n"))
}

// Events returns the events read so far.
func (p *Proc) Events() []Event {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Event(nil), p.events...)
}

// ErrExited is returned by [Proc.Next] when the process ended before the
// event came.
var ErrExited = errors.New("hosts: the process exited")

// Next returns the first event after the previous one Next or Expect
// returned that match accepts, waiting for it until ctx ends or the
// process exits.
func (p *Proc) Next(ctx context.Context, match func(Event) bool) (Event, error) {
	for {
		p.mu.Lock()
		for p.next < len(p.events) {
			ev := p.events[p.next]
			p.next++
			if match(ev) {
				p.mu.Unlock()
				return ev, nil
			}
		}
		changed := p.changed
		p.mu.Unlock()
		select {
		case <-changed:
		case <-p.exited:
			p.mu.Lock()
			more := p.next < len(p.events)
			err := p.waitErr
			p.mu.Unlock()
			if !more {
				return Event{}, fmt.Errorf("%w (%v)", ErrExited, err)
			}
		case <-ctx.Done():
			return Event{}, context.Cause(ctx)
		}
	}
}

// Expect returns the next event named ev (see [Proc.Next]), failing the
// test when it does not come within timeout.
func (p *Proc) Expect(t testing.TB, ev string, timeout time.Duration) Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	e, err := p.Next(ctx, func(e Event) bool { return e.Ev == ev || e.Ev == "error" })
	if err != nil {
		t.Fatalf("%s: no %q event in %v: %v", p.Name, ev, timeout, err)
	}
	if e.Ev == "error" && ev != "error" {
		t.Fatalf("%s: %s", p.Name, e)
	}
	return e
}

// Send writes v to the process's standard input as one JSON line.
func (p *Proc) Send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	p.stdinMu.Lock()
	defer p.stdinMu.Unlock()
	_, err = p.stdin.Write(append(b, '\n'))
	return err
}

// Done is closed when the process has exited and its output is read.
func (p *Proc) Done() <-chan struct{} { return p.exited }

// Stop closes the process's standard input (a role or peer ends then)
// and waits for it to exit, killing it after 10 s. It returns the exit
// error, nil for a clean exit.
func (p *Proc) Stop() error {
	p.stdinMu.Lock()
	_ = p.stdin.Close()
	p.stdinMu.Unlock()
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		p.Kill()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.waitErr
}

// Kill kills the process (as a crash or a power cut would end it) and
// waits for it to exit.
func (p *Proc) Kill() {
	if p.cmd.Process != nil {
		_ = p.cmd.Process.Kill()
	}
	<-p.exited
}
