package textio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/afor-go/afor"
)

// bash returns a command running script with bash, or skips the test.
func bash(t *testing.T, script string) *exec.Cmd {
	t.Helper()
	path, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not found:", err)
	}
	return exec.Command(path, "-c", script)
}

// echoCommand starts a bash child that echoes the lines of its stdin, as
// the Python textio tests do, and returns the sub and the stdin writer.
func echoCommand(t *testing.T, opts ...Option) (*afor.Sub[string], io.WriteCloser, *exec.Cmd) {
	t.Helper()
	cmd := bash(t, `while IFS= read -r line; do printf '%s\n' "$line"; done`)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	sub, err := FromCommand(t.Context(), cmd, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); sub.Close() })
	return sub, stdin, cmd
}

func TestFromCommandEcho(t *testing.T) {
	sub, stdin, cmd := echoCommand(t)

	// WaitForNext armed, then the line: exactly that line.
	for i := range 5 {
		want := fmt.Sprintf("line %d", i)
		w := sub.ArmNext(t.Context())
		fmt.Fprintln(stdin, want)
		if got, err := w.Wait(t.Context()); err != nil || got != want {
			t.Fatalf("got %q, %v; want %q", got, err, want)
		}
	}
	if got, err := sub.WaitForValue(t.Context()); err != nil || got != "line 4" {
		t.Errorf("WaitForValue = %q, %v; want the latest line", got, err)
	}

	// ListenReliable "too fast": every line, in order, then the end.
	l := sub.Listener(t.Context(), afor.QueueSize(0), afor.Fresh())
	var want []string
	for i := range 100 {
		want = append(want, fmt.Sprintf("burst %d", i))
		fmt.Fprintln(stdin, want[i])
	}
	stdin.Close() // bash reads EOF and exits 0
	if got := collect(t, l); !slices.Equal(got, want) {
		t.Errorf("burst = %q, want %q", got, want)
	}
	<-sub.Done()
	if err := sub.Err(); err != nil {
		t.Errorf("Err = %v after a clean exit", err)
	}
	if cmd.ProcessState == nil || !cmd.ProcessState.Exited() {
		t.Errorf("process not reaped: %v", cmd.ProcessState)
	}
	if n := sub.Stats().Inputs; n != 105 {
		t.Errorf("Inputs = %d, want 105 (no empty lines at EOF)", n)
	}
}

func TestFromCommandExitStatus(t *testing.T) {
	cmd := bash(t, `read -r go; echo a; echo b; exit 3`)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	sub, err := FromCommand(t.Context(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	l := sub.Listener(t.Context(), afor.QueueSize(0))
	fmt.Fprintln(stdin, "go")
	stdin.Close()
	if got := collect(t, l); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("lines = %q, want a, b before the end", got)
	}
	var exit *exec.ExitError
	if err := sub.Err(); !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Errorf("Err = %v, want exit status 3", err)
	}
}

func TestFromCommandCloseKills(t *testing.T) {
	cmd := bash(t, `echo ready; exec sleep 600`)
	sub, err := FromCommand(t.Context(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := sub.WaitForValue(t.Context()); err != nil || got != "ready" {
		t.Fatalf("WaitForValue = %q, %v", got, err)
	}
	w := sub.ArmNext(t.Context())
	sub.Close()
	// Close returns once the process has been reaped.
	if cmd.ProcessState == nil || cmd.ProcessState.Success() {
		t.Errorf("after Close the process state is %v, want killed", cmd.ProcessState)
	}
	if _, err := w.Wait(t.Context()); !errors.Is(err, afor.ErrClosed) {
		t.Errorf("pending wait = %v, want ErrClosed", err)
	}
	if sub.Err() != nil {
		t.Errorf("Err = %v after Close, want nil", sub.Err())
	}
}

func TestFromCommandContext(t *testing.T) {
	cmd := bash(t, `echo ready; exec sleep 600`)
	cause := errors.New("robot stopped")
	ctx, cancel := context.WithCancelCause(t.Context())
	sub, err := FromCommand(ctx, cmd)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sub.WaitForValue(t.Context()); err != nil {
		t.Fatal(err)
	}
	cancel(cause)
	<-sub.Done()
	if err := sub.Err(); !errors.Is(err, cause) {
		t.Errorf("Err = %v, want the ctx cause", err)
	}
	// The process was killed by the goroutine that saw ctx end; goleak
	// (TestMain) checks that FromCommand's goroutines, which return after
	// reaping it, are gone.

	if _, err := FromCommand(ctx, bash(t, "true")); !errors.Is(err, context.Canceled) {
		t.Errorf("FromCommand with a done ctx = %v, want context.Canceled", err)
	}
}

func TestFromCommandLineTooLongKills(t *testing.T) {
	cmd := bash(t, `echo ok; echo 0123456789; exec sleep 600`)
	sub, err := FromCommand(t.Context(), cmd, WithMaxLineLength(5))
	if err != nil {
		t.Fatal(err)
	}
	<-sub.Done()
	if !errors.Is(sub.Err(), ErrLineTooLong) {
		t.Errorf("Err = %v, want ErrLineTooLong", sub.Err())
	}
}

func TestFromCommandCloseFromCallback(t *testing.T) {
	cmd := bash(t, `read -r go; for i in 1 2 3; do echo $i; done; exec sleep 600`)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	sub, err := FromCommand(t.Context(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	// Close from the reading goroutine itself must not deadlock.
	sub.OnInput(func(v string) {
		if v == "2" {
			sub.Close()
		}
	})
	fmt.Fprintln(stdin, "go")
	<-sub.Done()
	// The callback runs before the value is stored: closing there
	// rejects "2", so "1" stays the latest value.
	if v, _ := sub.Value(); v != "1" {
		t.Errorf("value = %q, want 1", v)
	}
}

func TestFromCommandBackgroundChildHoldsStdout(t *testing.T) {
	// bash exits at once, but its background child keeps stdout open.
	cmd := bash(t, `sleep 2 & echo done`)
	sub, err := FromCommand(t.Context(), cmd, WithWaitDelay(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	<-sub.Done() // ends after the wait delay, not when sleep ends
	if v, _ := sub.Value(); v != "done" || sub.Err() != nil {
		t.Errorf("value %q, Err %v", v, sub.Err())
	}
}

func TestFromCommandErrors(t *testing.T) {
	cmd := bash(t, "true")
	cmd.Stdout = io.Discard
	if _, err := FromCommand(t.Context(), cmd); !errors.Is(err, ErrStdoutSet) {
		t.Errorf("Stdout set: %v, want ErrStdoutSet", err)
	}
	if _, err := FromCommand(t.Context(), exec.Command("/nonexistent/afor-textio")); err == nil {
		t.Error("starting a missing program succeeded")
	}
}

func TestFromCommandStartSignal(t *testing.T) {
	start := make(chan struct{})
	cmd := bash(t, `for i in $(seq 1 50); do echo $i; done`)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	sub, err := FromCommand(t.Context(), cmd, WithStartSignal(start), WithWaitDelay(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	// Stderr ends when the process exits: from then on its output waits
	// in the pipe, past the wait delay, until reading starts.
	io.Copy(io.Discard, stderr)
	// Let far more than the wait delay pass: time passing is what this
	// test is about, there is nothing to synchronise with.
	time.Sleep(50 * time.Millisecond)
	l := sub.Listener(t.Context(), afor.QueueSize(0))
	close(start)
	if got := collect(t, l); len(got) != 50 || got[0] != "1" || got[49] != "50" {
		t.Errorf("got %d lines %q, want 1..50", len(got), got)
	}
	if sub.Err() != nil {
		t.Errorf("Err = %v", sub.Err())
	}

	// Closing before the start signal kills the process, reads nothing.
	cmd = bash(t, `echo never; exec sleep 600`)
	sub, err = FromCommand(t.Context(), cmd, WithStartSignal(make(chan struct{})))
	if err != nil {
		t.Fatal(err)
	}
	sub.Close()
	if _, ok := sub.Value(); ok || cmd.ProcessState == nil {
		t.Errorf("Close before start: value read or process not reaped (%v)", cmd.ProcessState)
	}
}
