package zenoh

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// linkCase is a link type proven against the Rust stack: endpoints for Go
// and for Python to listen on, and what configures each side.
type linkCase struct {
	name     string
	goListen func(t *testing.T) string
	pyListen func(t *testing.T) string
	goCfg    func(t *testing.T, c *Config)
	pyArgs   func(t *testing.T) []string
	// bestEffort links (udp/) carry small messages only: no
	// fragmented ones, which one lost datagram loses.
	bestEffort bool
}

func fixed(s string) func(*testing.T) string { return func(*testing.T) string { return s } }

// sockPath is a fresh Unix socket path, short enough for sun_path.
func sockPath(t *testing.T) string {
	dir, err := os.MkdirTemp("", "zl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return filepath.Join(dir, "z.sock")
}

// linkCases lists the link types; pki is shared by the TLS ones.
func linkCases(t *testing.T) []linkCase {
	pki := newPKI(t, "links")
	getPKI := func(*testing.T) *testPKI { return pki }
	tlsCase := func(name, proto string, mtls bool) linkCase {
		return linkCase{
			name:     name,
			goListen: fixed(proto + "/127.0.0.1:0"),
			pyListen: fixed(proto + "/127.0.0.1:0"),
			goCfg:    func(t *testing.T, c *Config) { c.TLS = getPKI(t).server(mtls) },
			pyArgs:   func(t *testing.T) []string { return getPKI(t).pyArgs(mtls) },
		}
	}
	unix := func(t *testing.T) string { return "unixsock-stream/" + sockPath(t) }
	return []linkCase{
		{name: "tcp-ipv6", goListen: fixed("tcp/[::1]:0"), pyListen: fixed("tcp/[::1]:0")},
		{name: "unixsock-stream", goListen: unix, pyListen: unix},
		tlsCase("tls", "tls", false),
		tlsCase("tls-mutual", "tls", true),
		tlsCase("quic", "quic", false),
		tlsCase("quic-mutual", "quic", true),
		{name: "udp", goListen: fixed("udp/127.0.0.1:0"), pyListen: fixed("udp/127.0.0.1:0"), bestEffort: true},
		{name: "udp-ipv6", goListen: fixed("udp/[::1]:0"), pyListen: fixed("udp/[::1]:0"), bestEffort: true},
	}
}

func (lc *linkCase) configure(t *testing.T, c Config) Config {
	if lc.goCfg != nil {
		lc.goCfg(t, &c)
	}
	return c
}

func (lc *linkCase) py(t *testing.T, args ...string) *pyPeer {
	if lc.pyArgs != nil {
		args = append(args, lc.pyArgs(t)...)
	}
	return startPy(t, args...)
}

// exchangeAll runs pub/sub both ways, queries and liveliness between s
// and py.
func (lc *linkCase) exchangeAll(t *testing.T, s *Session, py *pyPeer, prefix string) {
	t.Run("go-to-py", func(t *testing.T) {
		if lc.bestEffort {
			exchangeSmallGoToPy(t, s, py, prefix+"/a")
			return
		}
		exchangeGoToPy(t, s, py, prefix+"/a", true)
	})
	t.Run("py-to-go", func(t *testing.T) {
		if lc.bestEffort {
			exchangeSmallPyToGo(t, s, py, prefix+"/b")
			return
		}
		exchangePyToGo(t, s, py, prefix+"/b")
	})
	exchangeQueries(t, s, py, prefix+"/q")
	t.Run("liveliness", func(t *testing.T) { exchangeLiveliness(t, s, py, prefix+"/l", nil) })
}

// TestInteropLinks links Go and the Rust stack over every link type, each
// side dialling the other, and exchanges samples, queries and liveliness.
func TestInteropLinks(t *testing.T) {
	for _, lc := range linkCases(t) {
		t.Run(lc.name, func(t *testing.T) {
			t.Run("py-connects-to-go", func(t *testing.T) {
				s := openT(t, lc.configure(t, Config{Listen: []string{lc.goListen(t)}}))
				ep := s.ListenAddrs()[0]
				if lc.name == "tcp-ipv6" && !strings.HasPrefix(ep, "tcp/[::1]:") {
					t.Fatalf("listening on %s", ep)
				}
				py := lc.py(t, "--mode", "peer", "--connect", ep)
				lc.exchangeAll(t, s, py, "lk1")
				proto, _, _ := strings.Cut(ep, "/")
				if links := s.Links(); len(links) != 1 || !strings.HasPrefix(links[0].Remote, proto+"/") {
					t.Errorf("links %+v", links)
				}
			})
			t.Run("go-connects-to-py", func(t *testing.T) {
				py := lc.py(t, "--mode", "router", "--listen", lc.pyListen(t))
				s := openT(t, lc.configure(t, Config{Mode: ModeClient, Connect: []string{py.listen}}))
				lc.exchangeAll(t, s, py, "lk2")
			})
		})
	}
}

// exchangeSmallGoToPy publishes small samples from Go to Python.
func exchangeSmallGoToPy(t *testing.T, s *Session, py *pyPeer, key string) {
	ctx := testCtx(t)
	py.do(map[string]any{"op": "sub", "key": key + "/**"})
	p, err := s.DeclarePublisher(key + "/go")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.WaitMatching(ctx); err != nil {
		t.Fatal(err)
	}
	probeUntilSeen(t, p, py)
	if err := p.Put(ctx, []byte("text")); err != nil {
		t.Fatal(err)
	}
	if ev := py.sample(); ev.Key != key+"/go" || ev.Payload != "text" {
		t.Fatalf("python got %+v", ev)
	}
	// Fragmented: several datagrams (loopback loses none).
	data := pattern(100_000)
	if err := p.Put(ctx, data); err != nil {
		t.Fatal(err)
	}
	if ev := py.sample(); ev.Len != len(data) || ev.SHA256 != sha(data) {
		t.Fatalf("python got %d bytes", ev.Len)
	}
}

// exchangeSmallPyToGo publishes small samples from Python to Go.
func exchangeSmallPyToGo(t *testing.T, s *Session, py *pyPeer, key string) {
	got := collector(t, s, key+"/**")
	k := key + "/py"
	py.do(map[string]any{"op": "pub", "key": k, "wait": true})
	py.do(map[string]any{"op": "put", "key": k, "payload": "hello"})
	if smp := recv(t, got); smp.KeyExpr != k || string(smp.Payload) != "hello" {
		t.Fatalf("go got %+v", smp)
	}
	py.do(map[string]any{"op": "put", "key": k, "size": 100_000})
	if smp := recv(t, got); !bytes.Equal(smp.Payload, pattern(100_000)) {
		t.Fatalf("go got %d bytes", len(smp.Payload))
	}
}
