package textio

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/afor-go/afor"
)

// gatedReader blocks its first Read until open is closed, so that a test can
// register its listeners before any line reaches the sub.
type gatedReader struct {
	open chan struct{}
	r    io.Reader
}

func gate(r io.Reader) (*gatedReader, func()) {
	g := &gatedReader{open: make(chan struct{}), r: r}
	return g, func() { close(g.open) }
}

func (g *gatedReader) Read(p []byte) (int, error) {
	<-g.open
	return g.r.Read(p)
}

// collect ranges over every value of sub (queue unbounded) until it ends.
func collect(t *testing.T, l *afor.Listener[string]) []string {
	t.Helper()
	var got []string
	for v := range l.All() {
		got = append(got, v)
	}
	return got
}

func TestFromReaderLines(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"plain", "a\nb\nc\n", []string{"a", "b", "c"}},
		{"no final newline", "a\nb", []string{"a", "b"}},
		{"crlf", "a\r\nb\r\n", []string{"a", "b"}},
		{"empty lines inside", "a\n\n\nb\n", []string{"a", "", "", "b"}},
		{"empty input", "", nil},
		{"only newline", "\n", []string{""}},
		{"utf8", "héllo\n日本\n", []string{"héllo", "日本"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, open := gate(strings.NewReader(tc.in))
			sub := FromReader(r)
			l := sub.Listener(t.Context(), afor.QueueSize(0))
			open()
			got := collect(t, l)
			if !slices.Equal(got, tc.want) {
				t.Errorf("lines = %q, want %q", got, tc.want)
			}
			<-sub.Done()
			if err := sub.Err(); err != nil {
				t.Errorf("Err = %v at end of input", err)
			}
			// The Python version floods "" at EOF: here, exactly one
			// input per line.
			if n := sub.Stats().Inputs; n != uint64(len(tc.want)) {
				t.Errorf("Inputs = %d, want %d", n, len(tc.want))
			}
		})
	}
}

func TestFromReaderPreprocess(t *testing.T) {
	r, open := gate(strings.NewReader("# comment\nx=1\n\ny=2\r\n"))
	sub := FromReader(r, WithPreprocess(func(line string) (string, bool) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			return "", false
		}
		return strings.ToUpper(line), true
	}))
	l := sub.Listener(t.Context(), afor.QueueSize(0))
	open()
	if got, want := collect(t, l), []string{"X=1", "Y=2"}; !slices.Equal(got, want) {
		t.Errorf("lines = %q, want %q", got, want)
	}
}

func TestFromReaderPreprocessPanic(t *testing.T) {
	sub := FromReader(strings.NewReader("a\nb\n"), WithPreprocess(func(line string) (string, bool) {
		panic("boom")
	}))
	<-sub.Done()
	if err := sub.Err(); !errors.Is(err, ErrPreprocessPanic) || !strings.Contains(err.Error(), "boom") {
		t.Errorf("Err = %v, want ErrPreprocessPanic", err)
	}
}

func TestFromReaderMaxLineLength(t *testing.T) {
	const max = 8
	ok := strings.Repeat("x", max)
	r, open := gate(strings.NewReader(ok + "\n" + ok + "y\nnever\n"))
	sub := FromReader(r, WithMaxLineLength(max))
	l := sub.Listener(t.Context(), afor.QueueSize(0))
	open()
	if got := collect(t, l); !slices.Equal(got, []string{ok}) {
		t.Errorf("lines = %q, want only the line of %d bytes", got, max)
	}
	if err := sub.Err(); !errors.Is(err, ErrLineTooLong) {
		t.Errorf("Err = %v, want ErrLineTooLong", err)
	}

	// A last line without '\n' obeys the same limit.
	sub = FromReader(strings.NewReader(ok), WithMaxLineLength(max))
	<-sub.Done()
	if v, _ := sub.Value(); v != ok || sub.Err() != nil {
		t.Errorf("value %q, Err %v; want %q, nil", v, sub.Err(), ok)
	}
	sub = FromReader(strings.NewReader(ok+"z"), WithMaxLineLength(max))
	<-sub.Done()
	if !errors.Is(sub.Err(), ErrLineTooLong) {
		t.Errorf("Err = %v, want ErrLineTooLong", sub.Err())
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

func TestFromReaderReadError(t *testing.T) {
	boom := errors.New("boom")
	sub := FromReader(io.MultiReader(strings.NewReader("a\n"), errReader{boom}))
	<-sub.Done()
	if err := sub.Err(); !errors.Is(err, boom) {
		t.Errorf("Err = %v, want the read error", err)
	}
	if v, ok := sub.Value(); !ok || v != "a" {
		t.Errorf("Value = %q, %v; want the line before the error", v, ok)
	}
}

// closeCounter is an io.ReadCloser over an io.Pipe that counts Close calls.
type closeCounter struct {
	*io.PipeReader
	closes atomic.Int32
}

func (c *closeCounter) Close() error {
	c.closes.Add(1)
	return c.PipeReader.Close()
}

func TestFromReaderCloseClosesReader(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	rc := &closeCounter{PipeReader: pr}
	sub := FromReader(rc)

	// Lock-step: arm, write, wait.
	for _, line := range []string{"one", "two"} {
		w := sub.ArmNext(t.Context())
		if _, err := io.WriteString(pw, line+"\n"); err != nil {
			t.Fatal(err)
		}
		if got, err := w.Wait(t.Context()); err != nil || got != line {
			t.Fatalf("got %q, %v; want %q", got, err, line)
		}
	}

	// A wait pending when the sub closes ends with ErrClosed.
	w := sub.ArmNext(t.Context())
	sub.Close() // the reader blocks in Read: closing it must release it
	if _, err := w.Wait(t.Context()); !errors.Is(err, afor.ErrClosed) {
		t.Errorf("pending wait = %v, want ErrClosed", err)
	}
	if n := rc.closes.Load(); n != 1 {
		t.Errorf("reader closed %d times, want 1", n)
	}
	if err := sub.Err(); err != nil {
		t.Errorf("Err = %v after Close", err)
	}
	if sub.Input("x") {
		t.Error("Input after Close succeeded")
	}
	// goleak (TestMain) checks that the reading goroutine has returned.
}

func TestFromReaderClosedAtEOF(t *testing.T) {
	pr, pw := io.Pipe()
	rc := &closeCounter{PipeReader: pr}
	sub := FromReader(rc)
	pw.Close()
	<-sub.Done()
	if n := rc.closes.Load(); n != 1 || sub.Err() != nil {
		t.Errorf("closes = %d, Err = %v; want 1, nil", n, sub.Err())
	}
}

// blockingReader is not an io.Closer: Close cannot interrupt it.
type blockingReader struct {
	release chan struct{}
	reads   atomic.Int32
}

func (b *blockingReader) Read(p []byte) (int, error) {
	b.reads.Add(1)
	<-b.release
	return copy(p, "late\n"), nil
}

func TestFromReaderNonCloserReturnsAfterRead(t *testing.T) {
	b := &blockingReader{release: make(chan struct{})}
	sub := FromReader(b)
	sub.Close()
	close(b.release) // the pending Read returns: the goroutine must stop
	// goleak in TestMain fails the package if the goroutine keeps reading.
	if v, ok := sub.Value(); ok {
		t.Errorf("Value = %q after Close, want none", v)
	}
}

func TestFromReaderSlowConsumerDoesNotBlock(t *testing.T) {
	const n = 1000
	var in strings.Builder
	for i := range n {
		in.WriteString(strings.Repeat("x", i%7))
		in.WriteByte('\n')
	}
	r, open := gate(strings.NewReader(in.String()))
	sub := FromReader(r, WithLogger(slog.New(slog.DiscardHandler)))
	slow := sub.Listener(t.Context(), afor.QueueSize(1)) // never read until the end
	all := sub.Listener(t.Context(), afor.QueueSize(0))
	open()
	if got := collect(t, all); len(got) != n {
		t.Errorf("unbounded listener got %d lines, want %d", len(got), n)
	}
	<-sub.Done()
	if slow.Dropped() != n-1 {
		t.Errorf("slow listener dropped %d, want %d", slow.Dropped(), n-1)
	}
	slow.Stop()
}

func TestFromReaderOptions(t *testing.T) {
	sub := FromReader(strings.NewReader(""), WithSubOptions(afor.WithName("lines")), WithLogger(nil), WithMaxLineLength(-1), WithPreprocess(nil))
	if sub.String() != "lines" {
		t.Errorf("name = %q", sub.String())
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if _, err := sub.WaitForValue(ctx); !errors.Is(err, afor.ErrClosed) {
		t.Errorf("WaitForValue on an empty input = %v, want ErrClosed", err)
	}
}

func TestStartSignalCloseBeforeStart(t *testing.T) {
	b := &blockingReader{release: make(chan struct{})}
	defer close(b.release)
	sub := FromReader(b, WithStartSignal(make(chan struct{})))
	sub.Close()
	// goleak (TestMain) checks that the goroutine returned without reading.
	if n := b.reads.Load(); n != 0 {
		t.Errorf("%d reads before the start signal", n)
	}
}
