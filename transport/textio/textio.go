// Package textio turns lines of text into an [afor.Sub]: the lines of an
// [io.Reader] with [FromReader], or of a child process's standard output with
// [FromCommand].
//
// One goroutine per sub reads the lines; each line, once passed through the
// pre-process function (by default: drop the trailing "\r\n"), becomes one
// value of the sub. The sub ends after the last line: cleanly at end of
// input (Err is nil), or with the error that stopped the reading. Lines are
// read into a bounded buffer: a line longer than the limit (64 KiB unless set
// with [WithMaxLineLength]) ends the sub with [ErrLineTooLong] instead of
// growing memory.
package textio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/afor-go/afor"
)

// ErrLineTooLong ends a sub whose input holds a line longer than the limit
// set with [WithMaxLineLength].
var ErrLineTooLong = errors.New("textio: line too long")

// ErrPreprocessPanic ends a sub whose pre-process function panicked.
var ErrPreprocessPanic = errors.New("textio: pre-process function panicked")

// DefaultMaxLineLength is the longest line accepted unless configured with
// [WithMaxLineLength].
const DefaultMaxLineLength = 64 * 1024

// Option configures [FromReader] and [FromCommand].
type Option func(*options)

type options struct {
	preprocess func(string) (string, bool)
	maxLine    int
	logger     *slog.Logger
	subOpts    []afor.Option
	waitDelay  time.Duration
	start      <-chan struct{}
}

// WithPreprocess sets the function applied to every raw line, line
// terminator included ("\n", or nothing for a last line without one). It
// returns the value to deliver, or false to skip the line. It runs in the
// reading goroutine; if it panics, the sub ends with [ErrPreprocessPanic].
// The default is [TrimNewline].
func WithPreprocess(f func(line string) (string, bool)) Option {
	return func(o *options) { o.preprocess = f }
}

// WithMaxLineLength sets the longest line accepted, in bytes, not counting
// its final '\n'. A longer line ends the sub with [ErrLineTooLong]. Values
// below 1 select [DefaultMaxLineLength].
func WithMaxLineLength(n int) Option {
	return func(o *options) { o.maxLine = n }
}

// WithLogger sets the logger of the sub and of the reading goroutine. The
// default is [slog.Default].
func WithLogger(l *slog.Logger) Option {
	return func(o *options) { o.logger = l }
}

// WithSubOptions passes options to the [afor.NewSub] that creates the sub,
// for example [afor.WithName] or [afor.WithDefaultQueueSize].
func WithSubOptions(opts ...afor.Option) Option {
	return func(o *options) { o.subOpts = append(o.subOpts, opts...) }
}

// WithStartSignal delays the first read until start is closed, so that
// consumers registered in between (with [afor.Sub.ListenReliable] or
// [afor.Sub.OnInput]) see every line from the first. Without it, lines read
// before a consumer registers are not replayed to it; only the latest stays
// available through [afor.Sub.WaitForValue]. [FromCommand] still starts the
// process at once: its output waits in the pipe. If the sub closes before
// start is closed, nothing is read.
func WithStartSignal(start <-chan struct{}) Option {
	return func(o *options) { o.start = start }
}

// TrimNewline is the default pre-process function: it removes any trailing
// '\r' and '\n' characters and keeps every line, empty ones included.
func TrimNewline(line string) (string, bool) {
	return strings.TrimRight(line, "\r\n"), true
}

func buildOptions(opts []Option) options {
	o := options{preprocess: TrimNewline, maxLine: DefaultMaxLineLength, waitDelay: DefaultWaitDelay}
	for _, opt := range opts {
		opt(&o)
	}
	if o.preprocess == nil {
		o.preprocess = TrimNewline
	}
	if o.maxLine < 1 {
		o.maxLine = DefaultMaxLineLength
	}
	if o.logger == nil {
		o.logger = slog.Default()
	}
	if o.waitDelay < 1 {
		o.waitDelay = DefaultWaitDelay
	}
	return o
}

func (o *options) newSub() *afor.Sub[string] {
	opts := append([]afor.Option{afor.WithLogger(o.logger), afor.WithBacklog(afor.DefaultQueueSize)}, o.subOpts...)
	return afor.NewSub[string](opts...)
}

// FromReader returns a sub of the lines of r, read by one goroutine.
//
// The sub takes ownership of r: if r is an [io.Closer], it is closed when
// the sub ends, whether at end of input, on a read error or on
// [afor.Sub.Close]; closing it is also what interrupts a read that blocks.
// The sub ends with a nil Err at end of input, and with the read error (or
// [ErrLineTooLong], or [ErrPreprocessPanic]) otherwise. Closing the sub
// stops the reading: with a reader that is not an io.Closer, the goroutine
// returns as soon as its pending Read returns.
func FromReader(r io.Reader, opts ...Option) *afor.Sub[string] {
	o := buildOptions(opts)
	sub := o.newSub()
	if c, ok := r.(io.Closer); ok {
		sub.OnClose(func() {
			if err := c.Close(); err != nil {
				o.logger.Debug("textio: closing the reader", "sub", sub.String(), "err", err)
			}
		})
	}
	go func() {
		err := pump(sub, r, &o)
		sub.CloseWithError(err)
	}()
	return sub
}

// pump feeds sub with the lines of r until end of input (nil), a read
// error, or the sub closing (nil).
func pump(sub *afor.Sub[string], r io.Reader, o *options) (err error) {
	if o.start != nil {
		select {
		case <-o.start:
		case <-sub.Done():
			return nil
		}
	}
	sc := bufio.NewScanner(r)
	// The scanner's buffer never grows past maxLine+1 bytes: the line and
	// its '\n'. A full buffer without a '\n' is a line that is too long.
	sc.Buffer(make([]byte, 0, min(4096, o.maxLine+1)), o.maxLine+1)
	sc.Split(scanRawLines)
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%w: %v", ErrPreprocessPanic, v)
		}
	}()
	for sc.Scan() {
		line, ok := o.preprocess(sc.Text())
		if !ok {
			continue
		}
		if !sub.Input(line) {
			return nil // closed by the consumer
		}
	}
	select {
	case <-sub.Done():
		return nil // the read failed because the sub closed the reader
	default:
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%w: more than %d bytes", ErrLineTooLong, o.maxLine)
		}
		return fmt.Errorf("textio: read: %w", err)
	}
	return nil
}

// scanRawLines is a [bufio.SplitFunc] like [bufio.ScanLines] that keeps the
// '\n' (and any '\r') with the line, leaving their removal to the
// pre-process function. A last line without '\n' is returned as is; end of
// input right after a '\n' yields no empty line.
func scanRawLines(data []byte, atEOF bool) (advance int, token []byte, err error) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return i + 1, data[:i+1], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}
