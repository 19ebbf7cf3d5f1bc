package textio

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/afor-go/afor"
)

// ErrStdoutSet is returned by [FromCommand] when the command's Stdout is
// already set.
var ErrStdoutSet = errors.New("textio: command Stdout already set")

// DefaultWaitDelay is how long [FromCommand] keeps reading after the process
// has exited, unless configured with [WithWaitDelay].
const DefaultWaitDelay = time.Second

// WithWaitDelay bounds how long [FromCommand] keeps reading the output after
// the process has exited. Output already written is read at once; the delay
// only matters when a process started in the background by the command
// still holds the output open, and after it the sub ends anyway. Values
// below 1 select [DefaultWaitDelay].
func WithWaitDelay(d time.Duration) Option {
	return func(o *options) { o.waitDelay = d }
}

// FromCommand starts cmd with its standard output connected to a pipe and
// returns a sub of the lines the process writes there.
//
// The sub ends after the process has exited and its last line has been
// delivered. Its Err is then nil for a zero exit status, and otherwise wraps
// the error of [exec.Cmd.Wait] (an *[exec.ExitError] for a non-zero status).
// A read error, [ErrLineTooLong] or [ErrPreprocessPanic] ends the sub early
// and kills the process.
//
// Closing the sub, or ctx ending (the sub then ends with [context.Cause]),
// kills the process (SIGKILL on Unix). The call that closes the sub returns
// once [exec.Cmd.Wait] has returned (later Close calls return at once), and
// FromCommand's goroutines then finish on their own. If cmd.Stdin
// is not an *os.File, Wait also waits for the copy of the input into the
// process: set cmd.WaitDelay if that input may block.
//
// cmd must not have been started and its Stdout must be nil; Stdin and
// Stderr are left as the caller set them. FromCommand returns an error, and
// no sub, when the process cannot be started.
func FromCommand(ctx context.Context, cmd *exec.Cmd, opts ...Option) (*afor.Sub[string], error) {
	if cmd.Stdout != nil {
		return nil, ErrStdoutSet
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o := buildOptions(opts)
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("textio: %w", err)
	}
	cmd.Stdout = pw
	err = cmd.Start()
	pw.Close() // the child holds its own copy
	if err != nil {
		pr.Close()
		cmd.Stdout = nil
		return nil, fmt.Errorf("textio: %w", err)
	}

	sub := o.newSub()
	exited := make(chan struct{}) // closed once Wait has returned
	readDone := make(chan error, 1)

	go func() {
		err := pump(sub, pr, &o)
		if errors.Is(err, os.ErrClosed) {
			err = nil // only FromCommand closes pr: a deliberate stop
		}
		if err != nil {
			sub.CloseWithError(err) // the hook below kills the process
		}
		readDone <- err
	}()

	go func() {
		waitErr := cmd.Wait()
		close(exited)
		if o.start != nil {
			select { // the output waits in the pipe until reading starts
			case <-o.start:
			case <-sub.Done():
			}
		}
		// The process is gone; let the reader drain what it wrote, within
		// the wait delay (a background child may keep the pipe open).
		t := time.NewTimer(o.waitDelay)
		select {
		case <-readDone:
		case <-t.C:
			pr.Close()
			<-readDone
		}
		t.Stop()
		pr.Close()
		if waitErr != nil {
			waitErr = fmt.Errorf("textio: %s: %w", filepath.Base(cmd.Path), waitErr)
		}
		sub.CloseWithError(waitErr)
	}()

	// Registered after the goroutines start: a hook added to a sub that is
	// already closed runs at once, and it waits for the process to exit.
	sub.OnClose(func() {
		if err := cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
			o.logger.Debug("textio: kill", "sub", sub.String(), "err", err)
		}
		pr.Close() // interrupts the reader
		<-exited
	})
	stop := context.AfterFunc(ctx, func() { sub.CloseWithError(context.Cause(ctx)) })
	sub.OnClose(func() { stop() })
	return sub, nil
}
