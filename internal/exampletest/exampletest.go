// Package exampletest runs the example programs as real separate processes
// in their tests: the test binary doubles as the example when
// AFOR_EXAMPLE_ARGS is set (see Main).
package exampletest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Main is the TestMain of an example's tests: with AFOR_EXAMPLE_ARGS set it
// runs the example (run) with those arguments and exits; otherwise it runs
// the tests.
func Main(m *testing.M, run func(ctx context.Context, args []string, out io.Writer) error) {
	if args := os.Getenv("AFOR_EXAMPLE_ARGS"); args != "" {
		if err := run(context.Background(), strings.Fields(args), os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// Start runs the example in a child process with args and returns it and
// its output lines.
func Start(t *testing.T, ctx context.Context, args string) (*exec.Cmd, <-chan string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "AFOR_EXAMPLE_ARGS="+args)
	cmd.Stderr = os.Stderr
	return cmd, Lines(t, cmd)
}

// Lines starts cmd and returns its stdout lines.
func Lines(t *testing.T, cmd *exec.Cmd) <-chan string {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ch := make(chan string, 100)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			ch <- sc.Text()
		}
	}()
	return ch
}

// Expect waits up to 20 s for a line starting with prefix, failing the
// test if the output ends first.
func Expect(t *testing.T, ch <-chan string, prefix string) {
	t.Helper()
	ExpectRest(t, ch, prefix)
}

// ExpectRest waits up to 20 s for a line starting with prefix and returns
// the rest of it, failing the test if the output ends first. Examples that
// listen on port 0 print the endpoint they got this way ("listening on
// tcp/127.0.0.1:40123"), for the test to connect the other processes to
// it: ports are never picked in advance, which races with parallel tests.
func ExpectRest(t *testing.T, ch <-chan string, prefix string) string {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case l, ok := <-ch:
			if !ok {
				t.Fatalf("output ended before %q", prefix)
			}
			if rest, ok := strings.CutPrefix(l, prefix); ok {
				return rest
			}
		case <-timeout:
			t.Fatalf("no %q within 20 s", prefix)
		}
	}
}

// Drain reads ch to its end.
func Drain(ch <-chan string) {
	for range ch {
	}
}
