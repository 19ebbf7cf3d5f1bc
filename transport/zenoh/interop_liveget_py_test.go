package zenoh

import (
	"slices"
	"testing"
	"time"
)

// The tests of this file check that a Go peer answers a liveliness get or
// a query from the moment a link to a Rust peer is up: no sleep, no retry,
// no waiting for a queryable to be known.

// TestInteropLivelinessGetGoLinksToPythonPeer: a Go peer that dials a
// Python peer lists the Python tokens in its first LivelinessGet.
func TestInteropLivelinessGetGoLinksToPythonPeer(t *testing.T) {
	py := startPy(t, "--mode", "peer", "--listen", anyPort)
	py.do(map[string]any{"op": "token", "key": "lg1/py/a"})
	py.do(map[string]any{"op": "token", "key": "lg1/py/b"})
	for i := range 5 {
		s := openT(t, Config{Connect: []string{py.listen}})
		keys, err := s.LivelinessGet(testCtx(t), "lg1/**")
		slices.Sort(keys)
		if err != nil || !slices.Equal(keys, []string{"lg1/py/a", "lg1/py/b"}) {
			t.Fatalf("run %d: LivelinessGet right after the link: %v, %v", i, keys, err)
		}
		s.Close()
	}
}

// TestInteropGetGoLinksToPythonPeer: a Go peer that dials a Python peer
// reaches its queryable with its first query.
func TestInteropGetGoLinksToPythonPeer(t *testing.T) {
	py := startPy(t, "--mode", "peer", "--listen", anyPort)
	py.do(map[string]any{"op": "queryable", "key": "lg3/q", "replies": 1})
	for i := range 5 {
		s := openT(t, Config{Connect: []string{py.listen}})
		got := collect(t, s, testCtx(t), "lg3/q?x=1", WithTimeout(5*time.Second))
		if len(got) != 1 || got[0].Err != nil || string(got[0].Sample.Payload) != "py0:x=1:" {
			t.Fatalf("run %d: Get right after the link: %+v", i, got)
		}
		s.Close()
	}
}
