package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/peers"
)

// The test binary doubles as the example: with AFOR_EXAMPLE_ARGS set, it
// runs the example with those arguments, so the pair really runs as two
// processes.
func TestMain(m *testing.M) {
	if args := os.Getenv("AFOR_EXAMPLE_ARGS"); args != "" {
		if err := run(context.Background(), strings.Fields(args), os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func freeEndpoint(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return "tcp/" + ln.Addr().String()
}

// start runs the example in a child process and returns its stdout lines.
func start(t *testing.T, ctx context.Context, args string) (*exec.Cmd, <-chan string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "AFOR_EXAMPLE_ARGS="+args)
	cmd.Stderr = os.Stderr
	return cmd, lines(t, cmd)
}

func lines(t *testing.T, cmd *exec.Cmd) <-chan string {
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

func expect(t *testing.T, ch <-chan string, prefix string) {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case l, ok := <-ch:
			if !ok {
				t.Fatalf("output ended before %q", prefix)
			}
			if strings.HasPrefix(l, prefix) {
				return
			}
		case <-timeout:
			t.Fatalf("no %q within 20 s", prefix)
		}
	}
}

func pair(t *testing.T, subArgs, pubArgs string) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	sub, subOut := start(t, ctx, "-role sub -count 5 "+subArgs)
	expect(t, subOut, "subscribed")
	pub, pubOut := start(t, ctx, "-role pub -count 5 -hz 50 "+pubArgs)
	for i := 1; i <= 5; i++ {
		expect(t, subOut, fmt.Sprintf("received %d ", i))
	}
	if err := sub.Wait(); err != nil {
		t.Fatalf("subscriber: %v", err)
	}
	for range pubOut {
	}
	if err := pub.Wait(); err != nil {
		t.Fatalf("publisher: %v", err)
	}
}

func TestTwoProcessesPeerToPeer(t *testing.T) {
	ep := freeEndpoint(t)
	pair(t, "-listen "+ep, "-connect "+ep)
}

func TestTwoProcessesThroughRouter(t *testing.T) {
	py := peers.Python(t, "zenoh")
	ep := freeEndpoint(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	router := exec.CommandContext(ctx, py, "router.py", ep)
	stdin, err := router.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out := lines(t, router)
	defer func() {
		stdin.Close()
		router.Wait()
	}()
	expect(t, out, "ready")
	pair(t, "-mode client -connect "+ep, "-mode client -connect "+ep)
}
