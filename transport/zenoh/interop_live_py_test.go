package zenoh

import (
	"encoding/json"
	"slices"
	"testing"
	"time"
)

func (p *pyPeer) liveEvent() pyEvent {
	p.t.Helper()
	select {
	case ev := <-p.live:
		return ev
	case <-time.After(20 * time.Second):
		p.t.Fatal("python saw no liveliness event within 20 s")
	}
	return pyEvent{}
}

func (p *pyPeer) send(cmd map[string]any) {
	p.t.Helper()
	b, _ := json.Marshal(cmd)
	if _, err := p.stdin.Write(append(b, '\n')); err != nil {
		p.t.Fatalf("python command: %v", err)
	}
}

// exchangeLiveliness checks Go tokens seen by Python and Python tokens seen
// by Go, with history, liveliness get, and undeclaration; then a second Go
// session opened by other declares a token and closes, and Python must see
// the token disappear.
func exchangeLiveliness(t *testing.T, s *Session, py *pyPeer, prefix string, other func(t *testing.T) *Session) {
	ctx := testCtx(t)
	// Go tokens, seen by Python.
	early, err := s.DeclareToken(prefix + "/go/early")
	if err != nil {
		t.Fatal(err)
	}
	// Wait until Python knows the token (its liveliness get is answered
	// from the routing state, so retry while the declaration travels).
	var keys []string
	for range 40 {
		keys = py.doEv(map[string]any{"op": "lget", "key": prefix + "/go/**", "timeout": 2}).Keys
		if len(keys) > 0 {
			break
		}
		time.Sleep(250 * time.Millisecond) // polling the remote's routing state: no signal to wait on
	}
	if !slices.Equal(keys, []string{prefix + "/go/early"}) {
		t.Fatalf("python liveliness get: %v", keys)
	}
	py.do(map[string]any{"op": "lsub", "key": prefix + "/go/**", "history": true})
	if ev := py.liveEvent(); ev.Key != prefix+"/go/early" || ev.Kind != "PUT" {
		t.Fatalf("python history: %+v", ev)
	}
	late, err := s.DeclareToken(prefix + "/go/late")
	if err != nil {
		t.Fatal(err)
	}
	if ev := py.liveEvent(); ev.Key != prefix+"/go/late" || ev.Kind != "PUT" {
		t.Fatalf("python alive: %+v", ev)
	}
	_ = early.Undeclare()
	if ev := py.liveEvent(); ev.Key != prefix+"/go/early" || ev.Kind != "DELETE" {
		t.Fatalf("python dropped: %+v", ev)
	}
	_ = late.Undeclare()
	if ev := py.liveEvent(); ev.Key != prefix+"/go/late" || ev.Kind != "DELETE" {
		t.Fatalf("python dropped: %+v", ev)
	}

	// Python tokens, seen by Go.
	py.do(map[string]any{"op": "token", "key": prefix + "/py/a"})
	ev := liveEvents(t, s, prefix+"/py/**", WithHistory())
	expectLive(t, ev, prefix+"/py/a", KindPut)
	if keys, err := s.LivelinessGet(ctx, prefix+"/py/**"); err != nil || !slices.Equal(keys, []string{prefix + "/py/a"}) {
		t.Fatalf("go liveliness get: %v, %v", keys, err)
	}
	py.do(map[string]any{"op": "token", "key": prefix + "/py/b"})
	expectLive(t, ev, prefix+"/py/b", KindPut)
	py.do(map[string]any{"op": "untoken", "key": prefix + "/py/a"})
	expectLive(t, ev, prefix+"/py/a", KindDelete)

	// A Go session that closes: its token disappears for Python.
	if other != nil {
		o := other(t)
		if _, err := o.DeclareToken(prefix + "/go/other"); err != nil {
			t.Fatal(err)
		}
		if ev := py.liveEvent(); ev.Key != prefix+"/go/other" || ev.Kind != "PUT" {
			t.Fatalf("python alive: %+v", ev)
		}
		o.Close()
		if ev := py.liveEvent(); ev.Key != prefix+"/go/other" || ev.Kind != "DELETE" {
			t.Fatalf("python after close: %+v", ev)
		}
	}
}

func TestInteropLivelinessPythonPeerConnectsToGo(t *testing.T) {
	s := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}})
	py := startPy(t, "--mode", "peer", "--connect", s.ListenAddrs()[0])
	exchangeLiveliness(t, s, py, "l1", nil)
	// A Python peer that dies: its token disappears for Go.
	dying := startPy(t, "--mode", "peer", "--connect", s.ListenAddrs()[0])
	ev := liveEvents(t, s, "l1/dying")
	dying.do(map[string]any{"op": "token", "key": "l1/dying"})
	expectLive(t, ev, "l1/dying", KindPut)
	dying.send(map[string]any{"op": "crash"})
	expectLive(t, ev, "l1/dying", KindDelete)
}

func TestInteropLivelinessGoConnectsToPythonPeer(t *testing.T) {
	py := startPy(t, "--mode", "peer", "--listen", anyPort)
	ep := py.listen
	s := openT(t, Config{Connect: []string{ep}})
	exchangeLiveliness(t, s, py, "l2", func(t *testing.T) *Session { return openT(t, Config{Connect: []string{ep}}) })
}

func TestInteropLivelinessGoClientThroughPythonRouter(t *testing.T) {
	py := startPy(t, "--mode", "router", "--listen", anyPort, "--client")
	ep := py.listen
	s := openT(t, Config{Mode: ModeClient, Connect: []string{ep}})
	exchangeLiveliness(t, s, py, "l3", func(t *testing.T) *Session {
		return openT(t, Config{Mode: ModeClient, Connect: []string{ep}})
	})
}

func TestInteropLivelinessPythonClientThroughGoPeer(t *testing.T) {
	s := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}})
	py := startPy(t, "--mode", "client", "--connect", s.ListenAddrs()[0])
	exchangeLiveliness(t, s, py, "l4", nil)
}
