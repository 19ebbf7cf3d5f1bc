package zenoh

import (
	"bufio"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/peers"
)

// picoProc is a running zenoh-pico example whose stdout lines are collected.
type picoProc struct {
	mu    sync.Mutex
	lines []string
	more  chan struct{} // signalled on every new line
	kill  func()        // kills the process (idempotent)
	pid   int
}

// startPico runs a zenoh-pico example (skipping without
// ZENOH_PICO_EXAMPLES). Pico listeners ignore SIGTERM, so it is stopped with
// SIGKILL.
func startPico(t *testing.T, program string, args ...string) *picoProc {
	t.Helper()
	bin := peers.Pico(t, program)
	// Pico's examples print with stdio buffering; ask for line buffering
	// when stdbuf is available so that output arrives as it is printed.
	cmd := exec.Command(bin, args...)
	if sb, err := exec.LookPath("stdbuf"); err == nil {
		cmd = exec.Command(sb, append([]string{"-oL", bin}, args...)...)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &picoProc{more: make(chan struct{}, 1), kill: func() { _ = cmd.Process.Kill() }, pid: cmd.Process.Pid}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			p.mu.Lock()
			p.lines = append(p.lines, sc.Text())
			p.mu.Unlock()
			select {
			case p.more <- struct{}{}:
			default:
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
		_ = cmd.Wait()
		if t.Failed() {
			p.mu.Lock()
			t.Logf("%s output:\n%s", program, strings.Join(p.lines, "\n"))
			p.mu.Unlock()
		}
	})
	return p
}

// waitLine waits for an output line containing s.
func (p *picoProc) waitLine(t *testing.T, s string) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		p.mu.Lock()
		for _, l := range p.lines {
			if strings.Contains(l, s) {
				p.mu.Unlock()
				return
			}
		}
		p.mu.Unlock()
		select {
		case <-p.more:
		case <-deadline:
			t.Fatalf("no output line containing %.40q", s)
		}
	}
}

// goListener opens a Go peer listening on a free port of 127.0.0.1.
func goListener(t *testing.T) (*Session, string) {
	s := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}})
	return s, s.ListenAddrs()[0]
}

var picoValues = map[string]string{
	"small": "hello from pico",
	"large": strings.Repeat("0123456789abcdef", 200), // 3200 B, above pico's 2 KiB batch
}

func TestPicoPubToGoSub(t *testing.T) {
	for name, v := range picoValues {
		t.Run(name, func(t *testing.T) {
			s, ep := goListener(t)
			got := collector(t, s, "demo/**")
			startPico(t, "z_pub", "-m", "peer", "-e", ep, "-k", "demo/pico", "-v", v, "-n", "2")
			smp := recv(t, got)
			if smp.KeyExpr != "demo/pico" || !strings.HasSuffix(string(smp.Payload), v) {
				t.Fatalf("got key %q, %d bytes", smp.KeyExpr, len(smp.Payload))
			}
		})
	}
}

func TestPicoPutToGoSub(t *testing.T) {
	s, ep := goListener(t)
	got := collector(t, s, "demo/**")
	startPico(t, "z_put", "-m", "peer", "-e", ep, "-k", "demo/put", "-v", "oneshot")
	if smp := recv(t, got); smp.KeyExpr != "demo/put" || string(smp.Payload) != "oneshot" {
		t.Fatalf("got %+v", smp)
	}
}

func TestGoPubToPicoSub(t *testing.T) {
	for name, v := range picoValues {
		t.Run(name, func(t *testing.T) {
			s, ep := goListener(t)
			sub := startPico(t, "z_sub", "-m", "peer", "-e", ep, "-k", "demo/**")
			p := publisher(t, s, "demo/go") // waits for pico's D_SUBSCRIBER
			if err := p.Put(testCtx(t), []byte(v)); err != nil {
				t.Fatal(err)
			}
			sub.waitLine(t, v)
		})
	}
}

func TestGoConnectsToPicoListener(t *testing.T) {
	sub := startPico(t, "z_sub", "-m", "peer", "-l", anyPort, "-k", "demo/**")
	ep := listenEndpoint(t, sub.pid)
	ctx := testCtx(t)
	// The listener may not be up yet: the session redials in the background.
	s := openT(t, Config{Connect: []string{ep}, RetryInterval: 100 * time.Millisecond})
	p, err := s.DeclarePublisher("demo/dial")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.WaitMatching(ctx); err != nil {
		t.Fatal(err)
	}
	if err := p.Put(ctx, []byte("dialled")); err != nil {
		t.Fatal(err)
	}
	sub.waitLine(t, "dialled")
}

func TestPicoClientPublishesThroughGoPeer(t *testing.T) {
	s, ep := goListener(t)
	got := collector(t, s, "demo/**")
	startPico(t, "z_pub", "-m", "client", "-e", ep, "-k", "demo/client", "-v", "via-go", "-n", "3")
	if smp := recv(t, got); smp.KeyExpr != "demo/client" || !strings.HasSuffix(string(smp.Payload), "via-go") {
		t.Fatalf("got %+v", smp)
	}
}
