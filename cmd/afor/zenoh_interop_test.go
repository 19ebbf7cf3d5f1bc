package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/peers"
)

// zenohPeer is a Rust Zenoh session driven through the eclipse-zenoh
// Python package (transport/zenoh's testdata/zenoh_peer.py), listening on a
// port of its choice.
type zenohPeer struct {
	*proc
	listen string
}

func startZenohPeer(ctx context.Context, t *testing.T) *zenohPeer {
	py := peers.Python(t, "zenoh")
	script := filepath.Join("..", "..", "transport", "zenoh", "testdata", "zenoh_peer.py")
	p := start(t, nil, py, script, "--mode", "peer", "--listen", "tcp/127.0.0.1:0")
	ready := p.event(ctx, "ready")
	return &zenohPeer{proc: p, listen: ready["listen"].(string)}
}

// do sends a command and returns its answer.
func (z *zenohPeer) do(ctx context.Context, cmd map[string]any) map[string]any {
	z.t.Helper()
	b, _ := json.Marshal(cmd)
	if _, err := fmt.Fprintf(z.stdin, "%s\n", b); err != nil {
		z.t.Fatal(err)
	}
	return z.event(ctx, "ok")
}

// zenohArgs are the session flags that reach the peer only.
func (z *zenohPeer) args() []string {
	return []string{"--connect", z.listen, "--no-multicast-scouting"}
}

func TestZenohSubReceivesPythonPut(t *testing.T) {
	ctx := testCtx(t, 120*time.Second)
	z := startZenohPeer(ctx, t)
	sub := start(t, nil, aforBinary(t), append([]string{"zenoh", "sub", "demo/afor/**", "--count", "1"}, z.args()...)...)
	sub.nextLine(ctx, "Declaring Subscriber on 'demo/afor/**'...")
	// Put until the subscription has reached the peer and one sample is in.
	for {
		z.do(ctx, map[string]any{"op": "put", "key": "demo/afor/py", "payload": "from python"})
		select {
		case <-sub.done:
		case <-time.After(100 * time.Millisecond):
			continue
		case <-ctx.Done():
			t.Fatalf("no sample; afor printed:\n%s", sub.output())
		}
		break
	}
	code, out := sub.wait(ctx)
	if code != 0 || !strings.Contains(out, ">> [Subscriber] Received PUT ('demo/afor/py': 'from python')\n") {
		t.Fatalf("zenoh sub: exit %d:\n%s", code, out)
	}
}

func TestZenohPutReachesPythonSub(t *testing.T) {
	ctx := testCtx(t, 120*time.Second)
	z := startZenohPeer(ctx, t)
	z.do(ctx, map[string]any{"op": "sub", "key": "demo/afor/**"})
	code, out := runAfor(ctx, t, nil, append([]string{"zenoh", "put", "demo/afor/go", "from afor"}, z.args()...)...)
	if code != 0 || out != "Putting Data ('demo/afor/go': 'from afor')...\n" {
		t.Fatalf("zenoh put: exit %d:\n%s", code, out)
	}
	ev := z.event(ctx, "sample")
	if ev["key"] != "demo/afor/go" || ev["payload"] != "from afor" {
		t.Fatalf("python got %v", ev)
	}
}

func TestZenohGetQueriesPythonQueryable(t *testing.T) {
	ctx := testCtx(t, 120*time.Second)
	z := startZenohPeer(ctx, t)
	z.do(ctx, map[string]any{"op": "queryable", "key": "demo/afor/q", "replies": 1, "error": "no more"})
	code, out := runAfor(ctx, t, nil, append([]string{"zenoh", "get", "demo/afor/q?x=1", "--payload", "hi", "--timeout", "5s"}, z.args()...)...)
	// The error reply may come before the reply: Zenoh holds replies for
	// consolidation, not errors.
	if code != 0 || !strings.HasPrefix(out, "Sending Query 'demo/afor/q?x=1'...\n") || strings.Count(out, "\n") != 3 ||
		!strings.Contains(out, ">> Received ('demo/afor/q': 'py0:x=1:hi')\n") || !strings.Contains(out, ">> Received (ERROR: 'no more')\n") {
		t.Fatalf("zenoh get: exit %d, printed\n%s", code, out)
	}
}

func TestZenohLivelinessBothWays(t *testing.T) {
	ctx := testCtx(t, 120*time.Second)
	z := startZenohPeer(ctx, t)

	// An afor token, seen by Python.
	tok := start(t, nil, aforBinary(t), append([]string{"zenoh", "liveliness", "demo/afor/alive"}, z.args()...)...)
	tok.nextLine(ctx, "Press CTRL-C to undeclare LivelinessToken and quit...")
	for {
		ev := z.do(ctx, map[string]any{"op": "lget", "key": "demo/afor/**", "timeout": 1})
		if keys, _ := ev["keys"].([]any); slices.Contains(keys, any("demo/afor/alive")) {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("python never saw the afor token")
		}
	}
	if err := tok.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code, out := tok.wait(ctx); code != 0 {
		t.Fatalf("liveliness exit %d after Ctrl-C:\n%s", code, out)
	}

	// A Python token, seen by afor.
	z.do(ctx, map[string]any{"op": "token", "key": "demo/afor/py"})
	code, out := runAfor(ctx, t, nil, append([]string{"zenoh", "liveliness", "demo/afor/**", "--get", "--timeout", "3s"}, z.args()...)...)
	if code != 0 || !strings.Contains(out, ">> Alive token ('demo/afor/py')\n") {
		t.Fatalf("liveliness --get: exit %d:\n%s", code, out)
	}
}

func TestZenohScoutEndsAtTimeout(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	code, out := runAfor(ctx, t, nil, "zenoh", "scout", "--timeout", "300ms", "--interface", "lo")
	if code != 0 || !strings.HasPrefix(out, "Scouting...\n") {
		t.Fatalf("zenoh scout: exit %d:\n%s", code, out)
	}
}
