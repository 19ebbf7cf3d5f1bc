package zenoh

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/peers"
)

// pyEvent is one JSON line printed by testdata/zenoh_peer.py.
type pyEvent struct {
	Ev         string    `json:"ev"`
	Op         string    `json:"op"`
	ZID        string    `json:"zid"`
	Listen     string    `json:"listen"`
	Key        string    `json:"key"`
	Kind       string    `json:"kind"`
	Len        int       `json:"len"`
	SHA256     string    `json:"sha256"`
	Payload    string    `json:"payload"`
	Encoding   string    `json:"encoding"`
	Attachment *string   `json:"attachment"`
	TS         *string   `json:"ts"`
	Error      string    `json:"error"`
	Replies    []pyReply `json:"replies"`
	Keys       []string  `json:"keys"`
	QoS        string    `json:"qos"`
}

// pyReply is one reply to a Python get.
type pyReply struct {
	Key        string  `json:"key"`
	Payload    string  `json:"payload"`
	Kind       string  `json:"kind"`
	Attachment *string `json:"attachment"`
	Err        bool    `json:"err"`
}

// pyPeer is a running zenoh_peer.py.
type pyPeer struct {
	t       testing.TB
	stdin   io.WriteCloser
	samples chan pyEvent
	live    chan pyEvent // liveliness events
	acks    chan pyEvent
	skip    string        // payload of samples that sample() ignores
	exited  chan struct{} // closed when the process closed its stdout (it exited)
	listen  string        // the endpoint it listens on (the port chosen for port 0)
}

// pyDriver is a running Python driver of testdata/ that prints JSON lines.
type pyDriver struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr lockedBuffer  // read while the process may still write it
	exited chan struct{} // closed when its stdout ended (it exited)
	logs   []string      // its other output lines (Rust logs), read after exited
}

// startDriver runs testdata/script with args and hands every JSON line it
// prints, decoded as an E, to event (called from one goroutine).
func startDriver[E any](t testing.TB, script string, args []string, event func(E)) *pyDriver {
	t.Helper()
	py := peers.Python(t, "zenoh")
	d := &pyDriver{cmd: exec.Command(py, append([]string{"testdata/" + script}, args...)...), exited: make(chan struct{})}
	d.cmd.Stderr = &d.stderr
	var err error
	if d.stdin, err = d.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := d.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(d.exited)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var ev E
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				d.logs = append(d.logs, sc.Text())
				continue
			}
			event(ev)
		}
	}()
	return d
}

// stop closes the driver's stdin (after writing last, if not empty) and
// waits for it to exit, killing it after 10 s; it reports whether it exited
// by itself, and with which status.
func (d *pyDriver) stop(last string) (exitedAlone bool, err error) {
	if last != "" {
		_, _ = io.WriteString(d.stdin, last)
	}
	_ = d.stdin.Close()
	exitedAlone = true
	select {
	case <-d.exited:
	case <-time.After(10 * time.Second):
		exitedAlone = false
		_ = d.cmd.Process.Kill()
		<-d.exited
	}
	waitDone := make(chan error, 1)
	go func() { waitDone <- d.cmd.Wait() }()
	select {
	case err = <-waitDone:
	case <-time.After(10 * time.Second):
		exitedAlone = false
		_ = d.cmd.Process.Kill()
		err = <-waitDone
	}
	return exitedAlone, err
}

// output returns what the driver printed besides its events.
func (d *pyDriver) output() string {
	return "stderr:\n" + d.stderr.String() + "\nlog:\n" + strings.Join(d.logs, "\n")
}

// startPy runs the driver with args and waits for its readiness line.
func startPy(t testing.TB, args ...string) *pyPeer {
	t.Helper()
	p := &pyPeer{t: t, samples: make(chan pyEvent, 4096), live: make(chan pyEvent, 256), acks: make(chan pyEvent, 16)}
	ready := make(chan pyEvent, 1)
	d := startDriver(t, "zenoh_peer.py", args, func(ev pyEvent) {
		switch ev.Ev {
		case "ready":
			ready <- ev
		case "sample":
			p.samples <- ev
		case "live":
			p.live <- ev
		default:
			p.acks <- ev
		}
	})
	p.stdin, p.exited = d.stdin, d.exited
	t.Cleanup(func() {
		alone, err := d.stop(`{"op":"quit"}` + "\n")
		switch {
		case !alone:
			t.Error("python peer did not quit within 10 s")
		case err != nil:
			t.Errorf("python peer exited with %v", err)
		}
		if t.Failed() {
			t.Logf("python peer %s", d.output())
		}
	})
	select {
	case ev := <-ready:
		p.listen = ev.Listen
	case <-d.exited:
		t.Fatalf("python peer exited before ready: %s", d.stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("python peer not ready: %s", d.stderr.String())
	}
	return p
}

// waitExit waits until the process has exited (after a "crash" command).
func (p *pyPeer) waitExit() {
	p.t.Helper()
	select {
	case <-p.exited:
	case <-time.After(20 * time.Second):
		p.t.Fatal("python peer did not exit")
	}
}

// do sends a command and waits for its acknowledgement.
func (p *pyPeer) do(cmd map[string]any) {
	p.t.Helper()
	p.doEv(cmd)
}

// doEv sends a command and returns its acknowledgement.
func (p *pyPeer) doEv(cmd map[string]any) pyEvent {
	p.t.Helper()
	b, _ := json.Marshal(cmd)
	if _, err := p.stdin.Write(append(b, '\n')); err != nil {
		p.t.Fatalf("python command: %v", err)
	}
	select {
	case ev := <-p.acks:
		if ev.Ev != "ok" {
			p.t.Fatalf("python %v: %+v", cmd, ev)
		}
		return ev
	case <-time.After(20 * time.Second):
		p.t.Fatalf("python did not acknowledge %v", cmd)
	}
	return pyEvent{}
}

func (p *pyPeer) sample() pyEvent {
	p.t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case ev := <-p.samples:
			if p.skip != "" && ev.Payload == p.skip {
				continue
			}
			return ev
		case <-timeout:
			p.t.Fatal("python received no sample within 20 s")
		}
	}
}

// anyPort is the endpoint a reference peer listens on: port 0, the port
// the system chose being read back from the peer (pyPeer.listen).
const anyPort = "tcp/127.0.0.1:0"

func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i * 7)
	}
	return b
}

func sha(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// payloadSizes covers one batch and several (fragmented) batches.
var payloadSizes = []int{8, 1500, 70000, 1 << 20}

// exchangeGoToPy publishes from Go to a Python subscriber: puts of every
// size, encodings, attachments and a delete. waitMatch tells whether Go can
// know of the Python subscriber (not through a router as a client).
func exchangeGoToPy(t *testing.T, s *Session, py *pyPeer, key string, waitMatch bool) {
	ctx := testCtx(t)
	py.do(map[string]any{"op": "sub", "key": key + "/**"})
	p, err := s.DeclarePublisher(key + "/go")
	if err != nil {
		t.Fatal(err)
	}
	if waitMatch {
		if err := p.WaitMatching(ctx); err != nil {
			t.Fatal(err)
		}
	} else {
		probeUntilSeen(t, p, py)
	}
	if err := p.Put(ctx, []byte("text"), WithEncoding(EncodingTextPlain), WithAttachment([]byte("meta"))); err != nil {
		t.Fatal(err)
	}
	ev := py.sample()
	if ev.Key != key+"/go" || ev.Payload != "text" || ev.Encoding != "text/plain" || ev.Attachment == nil || *ev.Attachment != "meta" || ev.Kind != "PUT" {
		t.Fatalf("python got %+v", ev)
	}
	ts := NewTimestamp(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), []byte{0xab, 0xcd})
	if err := p.Put(ctx, []byte("stamped"), WithTimestamp(ts)); err != nil {
		t.Fatal(err)
	}
	if ev := py.sample(); ev.TS == nil || !strings.Contains(*ev.TS, "cdab") {
		t.Fatalf("python got timestamp %s, want one from ID abcd", fmt.Sprint(ev.TS))
	}
	if err := p.Put(ctx, []byte("{}"), WithEncoding("application/json;x")); err != nil {
		t.Fatal(err)
	}
	if ev := py.sample(); ev.Encoding != "application/json;x" {
		t.Fatalf("python got encoding %q", ev.Encoding)
	}
	if err := p.Put(ctx, []byte("c"), WithEncoding("my/custom")); err != nil {
		t.Fatal(err)
	}
	if ev := py.sample(); ev.Encoding != "my/custom" {
		t.Fatalf("python got encoding %q", ev.Encoding)
	}
	for _, n := range payloadSizes {
		data := pattern(n)
		if err := p.Put(ctx, data); err != nil {
			t.Fatal(err)
		}
		if ev := py.sample(); ev.Len != n || ev.SHA256 != sha(data) {
			t.Fatalf("size %d: python got %d bytes (sha %s)", n, ev.Len, ev.SHA256)
		}
	}
	if err := p.Delete(ctx, WithAttachment([]byte("bye"))); err != nil {
		t.Fatal(err)
	}
	if ev := py.sample(); ev.Kind != "DELETE" || ev.Key != key+"/go" || ev.Attachment == nil || *ev.Attachment != "bye" {
		t.Fatalf("python got %+v", ev)
	}
}

// probeUntilSeen publishes probes until the Python side reports one, for
// routes that Go cannot observe (a router in between).
func probeUntilSeen(t *testing.T, p *Publisher, py *pyPeer) {
	t.Helper()
	ctx := testCtx(t)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if err := p.Put(ctx, []byte("probe")); err != nil {
			t.Fatal(err)
		}
		select {
		case ev := <-py.samples:
			if ev.Payload != "probe" {
				t.Fatalf("python got %+v, want a probe", ev)
			}
			// Probes still in flight arrive before anything published
			// later (one ordered path); sample() skips them.
			py.skip = "probe"
			return
		case <-tick.C:
		case <-ctx.Done():
			t.Fatal("python never received a probe")
		}
	}
}

// exchangePyToGo publishes from Python to a Go subscriber.
func exchangePyToGo(t *testing.T, s *Session, py *pyPeer, key string) {
	got := collector(t, s, key+"/**")
	k := key + "/py"
	py.do(map[string]any{"op": "pub", "key": k, "wait": true, "declare_keyexpr": true})
	py.do(map[string]any{"op": "put", "key": k, "payload": "hello", "encoding": "text/plain;utf-8", "attachment": "att", "ts": true})
	smp := recv(t, got)
	if smp.KeyExpr != k || string(smp.Payload) != "hello" || smp.Encoding != "text/plain;utf-8" || string(smp.Attachment) != "att" || smp.Kind != KindPut {
		t.Fatalf("go got %+v (encoding %s)", smp, smp.Encoding)
	}
	if d := time.Since(smp.Timestamp.Time()); smp.Timestamp.IsZero() || d < -time.Minute || d > time.Minute {
		t.Fatalf("go got timestamp %v, want about now", smp.Timestamp)
	}
	for _, n := range payloadSizes {
		py.do(map[string]any{"op": "put", "key": k, "size": n})
		smp := recv(t, got)
		if len(smp.Payload) != n || !bytes.Equal(smp.Payload, pattern(n)) {
			t.Fatalf("size %d: go got %d bytes", n, len(smp.Payload))
		}
	}
	py.do(map[string]any{"op": "delete", "key": k, "attachment": "gone"})
	smp = recv(t, got)
	if smp.Kind != KindDelete || smp.KeyExpr != k || string(smp.Attachment) != "gone" {
		t.Fatalf("go got %+v", smp)
	}
}

func TestInteropPythonPeerConnectsToGo(t *testing.T) {
	s := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}})
	py := startPy(t, "--mode", "peer", "--connect", s.ListenAddrs()[0])
	t.Run("go-to-py", func(t *testing.T) { exchangeGoToPy(t, s, py, "t1/a", true) })
	t.Run("py-to-go", func(t *testing.T) { exchangePyToGo(t, s, py, "t1/b") })
}

func TestInteropGoConnectsToPythonPeer(t *testing.T) {
	py := startPy(t, "--mode", "peer", "--listen", anyPort)
	ep := py.listen
	s := openT(t, Config{Connect: []string{ep}})
	t.Run("go-to-py", func(t *testing.T) { exchangeGoToPy(t, s, py, "t2/a", true) })
	t.Run("py-to-go", func(t *testing.T) { exchangePyToGo(t, s, py, "t2/b") })
}

func TestInteropGoClientThroughPythonRouter(t *testing.T) {
	py := startPy(t, "--mode", "router", "--listen", anyPort, "--client")
	ep := py.listen
	s := openT(t, Config{Mode: ModeClient, Connect: []string{ep}})
	t.Run("go-to-py", func(t *testing.T) { exchangeGoToPy(t, s, py, "t3/a", true) })
	t.Run("py-to-go", func(t *testing.T) { exchangePyToGo(t, s, py, "t3/b") })
}

func TestInteropPythonClientThroughGoPeer(t *testing.T) {
	s := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}})
	py := startPy(t, "--mode", "client", "--connect", s.ListenAddrs()[0])
	t.Run("go-to-py", func(t *testing.T) { exchangeGoToPy(t, s, py, "t4/a", true) })
	t.Run("py-to-go", func(t *testing.T) { exchangePyToGo(t, s, py, "t4/b") })
}

func TestInteropTwoPythonClientsThroughGoPeer(t *testing.T) {
	s := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}})
	sub := startPy(t, "--mode", "client", "--connect", s.ListenAddrs()[0])
	pub := startPy(t, "--mode", "client", "--connect", s.ListenAddrs()[0])
	sub.do(map[string]any{"op": "sub", "key": "t5/**"})
	pub.do(map[string]any{"op": "pub", "key": "t5/x", "wait": true})
	for _, n := range []int{8, 1 << 20} {
		pub.do(map[string]any{"op": "put", "key": "t5/x", "size": n})
		if ev := sub.sample(); ev.Key != "t5/x" || ev.Len != n || ev.SHA256 != sha(pattern(n)) {
			t.Fatalf("size %d: got %+v", n, ev)
		}
	}
}

func TestInteropGoClientToPythonPeer(t *testing.T) {
	py := startPy(t, "--mode", "peer", "--listen", anyPort)
	ep := py.listen
	s := openT(t, Config{Mode: ModeClient, Connect: []string{ep}})
	t.Run("go-to-py", func(t *testing.T) { exchangeGoToPy(t, s, py, "t6/a", true) })
	t.Run("py-to-go", func(t *testing.T) { exchangePyToGo(t, s, py, "t6/b") })
}

// With gossip on, the Rust peer also sends OAM link-state messages.
func TestInteropPythonPeerWithGossip(t *testing.T) {
	s := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}})
	py := startPy(t, "--mode", "peer", "--connect", s.ListenAddrs()[0], "--gossip")
	t.Run("go-to-py", func(t *testing.T) { exchangeGoToPy(t, s, py, "t7/a", true) })
	t.Run("py-to-go", func(t *testing.T) { exchangePyToGo(t, s, py, "t7/b") })
}

// A Go peer linked to a Rust router asks it for its subscribers, as a
// client does.
func TestInteropGoPeerToPythonRouter(t *testing.T) {
	py := startPy(t, "--mode", "router", "--listen", anyPort, "--client")
	ep := py.listen
	s := openT(t, Config{Connect: []string{ep}})
	t.Run("go-to-py", func(t *testing.T) { exchangeGoToPy(t, s, py, "t8/a", true) })
	t.Run("py-to-go", func(t *testing.T) { exchangePyToGo(t, s, py, "t8/b") })
}

// lockedBuffer is a bytes.Buffer safe for one writer and concurrent readers.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
