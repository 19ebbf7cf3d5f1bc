package zenoh

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

func TestParseEndpoint(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"tcp/127.0.0.1:7447", "tcp/127.0.0.1:7447"},
		{"tcp/[::1]:7447", "tcp/[::1]:7447"},
		{"tcp/[0:0::1]:07447", "tcp/[::1]:7447"},
		{"tcp/localhost:7447#so_rcvbuf=65536", "tcp/localhost:7447"},
		{"tls/host:7447#root_ca_certificate_file=ca.pem;enable_mtls=true", "tls/host:7447"},
		{"quic/[::1]:7447?rel=1", "quic/[::1]:7447?rel=1"},
		{"udp/127.0.0.1:7447?rel=0", "udp/127.0.0.1:7447?rel=0"},
		{"unixsock-stream//tmp/z.sock", "unixsock-stream//tmp/z.sock"},
	} {
		e, err := parseEndpoint(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if e.String() != c.want {
			t.Errorf("%q: got %q, want %q", c.in, e.String(), c.want)
		}
	}
	for _, in := range []string{
		"", "tcp", "tcp/", "ws/1.2.3.4:5", "tcp/1.2.3.4", "tcp/1.2.3.4:99999", "tcp/:7447",
		"tcp/[fe80::1%eth0]:7447", "tcp/1.2.3.4:7447#iface=lo", "tcp/1.2.3.4:7447?prio=1-7",
		"tcp/1.2.3.4:7447?rel=0", "udp/1.2.3.4:7447?rel=1", "tls/h:1#enable_mtls=maybe",
		"tls/h:1#tls_handshake_timeout_ms=0", "tcp/h:1#so_sndbuf=-1", "tcp/h:1#a=1;a=2", "tcp/h:1#=1",
		"unixsock-stream/a\x00b", "tcp/" + strings.Repeat("a", maxEndpointLen) + ":1",
	} {
		_, err := parseEndpoint(in)
		if !errors.Is(err, ErrInvalidEndpoint) {
			t.Errorf("%q: got %v, want ErrInvalidEndpoint", in, err)
		}
	}
	// Configuration may hold private keys: errors do not print it.
	_, err := parseEndpoint("tls/h:1#listen_private_key_raw=SECRET;bogus=1")
	if err == nil || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("error %v", err)
	}
}

// FuzzParseEndpoint: any string parses or fails cleanly, and a parsed
// endpoint prints as a locator that parses to the same.
func FuzzParseEndpoint(f *testing.F) {
	for _, s := range []string{"tcp/127.0.0.1:7447", "tls/[::1]:7447?a=b#enable_mtls=true;so_rcvbuf=1",
		"quic/h:1?rel=1;multistream=0", "udp/h:1?rel=0", "unixsock-stream//tmp/x", "tcp/h:1#", "x/y?#"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := parseEndpoint(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidEndpoint) {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		again, err := parseEndpoint(e.String())
		if err != nil || again.String() != e.String() {
			t.Fatalf("%q printed %q: %v", s, e.String(), err)
		}
	})
}

func TestAuthGoToGo(t *testing.T) {
	a := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}, Auth: AuthConfig{Users: map[string]string{"robot": "pw"}}})
	for _, c := range []struct {
		name string
		auth AuthConfig
	}{
		{"wrong password", AuthConfig{User: "robot", Password: "nope"}},
		{"unknown user", AuthConfig{User: "ghost", Password: "pw"}},
		{"no password", AuthConfig{}},
	} {
		err := openErr(t, Config{Mode: ModeClient, Connect: a.ListenAddrs(), Auth: c.auth})
		if !errors.Is(err, ErrNoRouter) || !strings.Contains(err.Error(), a.ListenAddrs()[0]) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if n := a.Stats().ByLimit[LimitAuth]; n != 3 {
		t.Errorf("%d refusals counted, want 3", n)
	}
	b := openT(t, Config{Mode: ModeClient, Connect: a.ListenAddrs(), Auth: AuthConfig{User: "robot", Password: "pw"}})
	got := collector(t, a, "auth/**")
	p := publisher(t, b, "auth/x")
	if err := p.WaitMatching(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if err := p.Put(testCtx(t), []byte("hi")); err != nil {
		t.Fatal(err)
	}
	if smp := recv(t, got); string(smp.Payload) != "hi" {
		t.Fatalf("got %+v", smp)
	}
	// A session with a password does not link to one that asks for none.
	plain := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}})
	err := openErr(t, Config{Mode: ModeClient, Connect: plain.ListenAddrs(), Auth: AuthConfig{User: "robot", Password: "pw"}})
	if !errors.Is(err, ErrAuth) {
		t.Errorf("to a listener without auth: %v", err)
	}
}

func TestAuthConfigErrors(t *testing.T) {
	for _, c := range []AuthConfig{
		{User: "u"}, {Password: "p"}, {Users: map[string]string{"": "p"}}, {DictionaryFile: "/nonexistent"},
		{DictionaryFile: writeDict(t, "nocolon")}, {User: strings.Repeat("u", maxAuthUser+1), Password: "p"},
	} {
		if _, err := resolveAuth(c); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%+v: %v", c, err)
		}
	}
	a, err := resolveAuth(AuthConfig{DictionaryFile: writeDict(t, "a:1", "", " b : 2 ")})
	if err != nil || string(a.users["a"]) != "1" || string(a.users["b"]) != "2" {
		t.Fatalf("%v %v", a, err)
	}
}

// FuzzAuthExtension feeds arbitrary auth extensions to both sides of the
// user-password exchange: errors, never panics, and only the right proof
// passes.
func FuzzAuthExtension(f *testing.F) {
	good := appendOpenSyn([]byte("robot"), usrPwdProof(42, []byte("pw")))
	f.Add(good, uint64(42))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x0f}, uint64(0))
	f.Add([]byte{}, uint64(1))
	a, err := resolveAuth(AuthConfig{Users: map[string]string{"robot": "pw"}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte, nonce uint64) {
		// As the method's body, and as the whole extension's.
		for _, ext := range []wire.Extension{
			authExt(wire.Extension{ID: authUsrPwd, Encoding: wire.ExtZBuf, Body: body}),
			{ID: extAuth, Encoding: wire.ExtZBuf, Body: body},
		} {
			syn := &wire.Open{Exts: []wire.Extension{ext}}
			_, err := a.checkOpen(syn, nonce)
			if err == nil {
				u, proof, perr := parseOpenSyn(ext.Body[len(ext.Body)-len(body):])
				if perr != nil || string(u) != "robot" || string(proof) != string(usrPwdProof(nonce, []byte("pw"))) {
					t.Fatalf("accepted %x", body)
				}
			}
			_, _ = authMethod(syn.Exts)
			c, _ := resolveAuth(AuthConfig{User: "robot", Password: "pw"})
			_, _ = c.openSyn(&wire.Init{Exts: []wire.Extension{ext}})
		}
	})
}

func TestTLSGoToGo(t *testing.T) {
	pki := newPKI(t, "go")
	t.Run("server auth", func(t *testing.T) {
		a := openT(t, Config{Listen: []string{"tls/127.0.0.1:0", "quic/127.0.0.1:0"}, TLS: pki.server(false)})
		for _, ep := range a.ListenAddrs() {
			openT(t, Config{Mode: ModeClient, Connect: []string{ep}, TLS: TLSConfig{RootCAFile: pki.CA}})
			// The CA per endpoint, as Rust Zenoh's endpoint configuration.
			openT(t, Config{Mode: ModeClient, Connect: []string{ep + "#root_ca_certificate_file=" + pki.CA}})
			// Without the CA the server is not trusted.
			err := openErr(t, Config{Mode: ModeClient, Connect: []string{ep}})
			if !errors.Is(err, ErrNoRouter) || !strings.Contains(err.Error(), ep) {
				t.Errorf("%s without CA: %v", ep, err)
			}
		}
	})
	t.Run("name verification", func(t *testing.T) {
		a := openT(t, Config{Listen: []string{"tls/127.0.0.2:0"}, TLS: pki.server(false)}) // not among the certificate's names
		ep := a.ListenAddrs()[0]
		if err := openErr(t, Config{Mode: ModeClient, Connect: []string{ep}, TLS: TLSConfig{RootCAFile: pki.CA}}); !strings.Contains(err.Error(), "127.0.0.2") {
			t.Errorf("name mismatch: %v", err)
		}
		openT(t, Config{Mode: ModeClient, Connect: []string{ep + "#verify_name_on_connect=false"}, TLS: TLSConfig{RootCAFile: pki.CA}})
		other := newPKI(t, "other")
		err := openErr(t, Config{Mode: ModeClient, Connect: []string{ep}, TLS: TLSConfig{RootCAFile: other.CA, SkipNameVerification: true}})
		if !errors.Is(err, ErrNoRouter) {
			t.Errorf("untrusted, no name check: %v", err)
		}
	})
	t.Run("expired", func(t *testing.T) {
		cert, key := pki.node(t, "expired", time.Now().Add(-time.Hour))
		a := openT(t, Config{Listen: []string{"tls/127.0.0.1:0"}, TLS: TLSConfig{ListenCertificateFile: cert, ListenPrivateKeyFile: key}})
		err := openErr(t, Config{Mode: ModeClient, Connect: a.ListenAddrs(), TLS: TLSConfig{RootCAFile: pki.CA}})
		if !strings.Contains(err.Error(), "expired") {
			t.Errorf("expired server certificate: %v", err)
		}
	})
	t.Run("mutual", func(t *testing.T) {
		a := openT(t, Config{Listen: []string{"tls/127.0.0.1:0"}, TLS: pki.server(true)})
		openT(t, Config{Mode: ModeClient, Connect: a.ListenAddrs(), TLS: pki.server(true)})
		err := openErr(t, Config{Mode: ModeClient, Connect: a.ListenAddrs(), TLS: TLSConfig{RootCAFile: pki.CA}})
		if !errors.Is(err, ErrNoRouter) {
			t.Errorf("no client certificate: %v", err)
		}
		// A plaintext client on the TLS port costs only its link.
		host := strings.TrimPrefix(a.ListenAddrs()[0], "tls/")
		if err := openErr(t, Config{Mode: ModeClient, Connect: []string{"tcp/" + host}}); !errors.Is(err, ErrNoRouter) {
			t.Errorf("plaintext: %v", err)
		}
		waitLimit(t, a, LimitTLS)
		openT(t, Config{Mode: ModeClient, Connect: a.ListenAddrs(), TLS: pki.server(true)})
	})
	t.Run("config errors", func(t *testing.T) {
		for _, c := range []Config{
			{Listen: []string{"tls/127.0.0.1:0"}},                                                  // no certificate
			{Listen: []string{"tls/127.0.0.1:0"}, TLS: TLSConfig{ListenCertificateFile: pki.Cert}}, // no key
			{Listen: []string{"tls/127.0.0.1:0"}, TLS: TLSConfig{ListenCertificateFile: pki.Cert, ListenPrivateKeyFile: pki.Key, EnableMTLS: true}},
			{Listen: []string{"tls/127.0.0.1:0#enable_mtls=true;root_ca_certificate_base64=!!"}, TLS: pki.server(false)},
		} {
			err := openErr(t, c)
			if !strings.Contains(err.Error(), "tls/127.0.0.1:0") {
				t.Errorf("%+v: %v", c.TLS, err)
			}
		}
	})
}

// Go to Go over udp/ (IPv4 and IPv6) and unixsock-stream/: a message
// larger than a datagram goes in fragments within the negotiated batch.
func TestLinksGoToGo(t *testing.T) {
	for _, ep := range []string{"udp/127.0.0.1:0", "udp/[::1]:0", "unixsock-stream/" + sockPath(t)} {
		t.Run(ep[:strings.IndexByte(ep, '/')], func(t *testing.T) {
			a := openT(t, Config{Listen: []string{ep}})
			b := openT(t, Config{Mode: ModeClient, Connect: a.ListenAddrs()})
			got := collector(t, a, "big/**")
			p := publisher(t, b, "big/x")
			ctx := testCtx(t)
			if err := p.WaitMatching(ctx); err != nil {
				t.Fatal(err)
			}
			data := pattern(100_000)
			if err := p.Put(ctx, data); err != nil {
				t.Fatal(err)
			}
			if smp := recv(t, got); len(smp.Payload) != len(data) || sha(smp.Payload) != sha(data) {
				t.Fatalf("got %d bytes", len(smp.Payload))
			}
			if l := b.Links(); len(l) != 1 || !strings.HasPrefix(l[0].Remote, ep[:strings.IndexByte(ep, '/')+1]) {
				t.Fatalf("links %+v", l)
			}
		})
	}
}

// A unixsock-stream/ listener replaces a socket file left by a process
// that is gone, and refuses one another session listens on.
func TestUnixSocketStaleAndBusy(t *testing.T) {
	path := sockPath(t)
	stale, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	stale.SetUnlinkOnClose(false)
	_ = stale.Close()
	a := openT(t, Config{Listen: []string{"unixsock-stream/" + path}})
	if err := openErr(t, Config{Listen: []string{"unixsock-stream/" + path}}); !strings.Contains(err.Error(), "another process listens there") {
		t.Errorf("second listener: %v", err)
	}
	openT(t, Config{Mode: ModeClient, Connect: a.ListenAddrs()})
}

// A TLS client slower than the handshake grace still links (a TLS
// handshake cannot resume after a read deadline), and one that never
// finishes costs only its connection.
func TestTLSSlowHandshake(t *testing.T) {
	pki := newPKI(t, "slow")
	a := openT(t, Config{Listen: []string{"tls/127.0.0.1:0"}, TLS: pki.server(false)})
	addr := strings.TrimPrefix(a.ListenAddrs()[0], "tls/")
	// Silent: connected, never says hello.
	silent, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	// Slow: the client's first bytes come after the grace.
	raw, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	slow := &delayedConn{Conn: raw, delay: handshakeGrace + 300*time.Millisecond}
	c := newTestTLSClient(t, slow, pki)
	if err := c.HandshakeContext(testCtx(t)); err != nil {
		t.Fatalf("slow TLS handshake: %v", err)
	}
	_ = c.Close()
	openT(t, Config{Mode: ModeClient, Connect: a.ListenAddrs(), TLS: TLSConfig{RootCAFile: pki.CA}})
}

// delayedConn holds its first write back for delay: a client on a slow
// network.
type delayedConn struct {
	net.Conn
	delay time.Duration
	once  sync.Once
}

func (c *delayedConn) Write(p []byte) (int, error) {
	c.once.Do(func() { time.Sleep(c.delay) }) // the slowness under test
	return c.Conn.Write(p)
}

// newTestTLSClient is a TLS client over c trusting pki's CA.
func newTestTLSClient(t *testing.T, c net.Conn, pki *testPKI) *tls.Conn {
	t.Helper()
	b, err := os.ReadFile(pki.CA)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(b)
	return tls.Client(c, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"})
}

// With CloseLinkOnExpiration, a mutual-TLS listener closes a client's link
// when the client's certificate expires.
func TestTLSCloseLinkOnExpiration(t *testing.T) {
	pki := newPKI(t, "exp")
	srv := pki.server(true)
	srv.CloseLinkOnExpiration = true
	a := openT(t, Config{Listen: []string{"tls/127.0.0.1:0"}, TLS: srv})
	cert, key := pki.node(t, "short", time.Now().Add(2*time.Second))
	cli := TLSConfig{RootCAFile: pki.CA, EnableMTLS: true, ConnectCertificateFile: cert, ConnectPrivateKeyFile: key}
	openT(t, Config{Mode: ModeClient, Connect: a.ListenAddrs(), TLS: cli, RetryInterval: time.Hour})
	waitLinks(t, a, 1)
	waitLinks(t, a, 0) // once the certificate expired
}

// The handshake limits hold on a TLS port: silent connections that stall
// their TLS handshake past the grace are refused beyond
// MaxHandshakesPerIP, and a real client still links meanwhile.
func TestTLSHandshakeLimits(t *testing.T) {
	pki := newPKI(t, "lim")
	a := openT(t, Config{Listen: []string{"tls/127.0.0.1:0"}, TLS: pki.server(false),
		Limits: Limits{MaxHandshakes: 4, MaxHandshakesPerIP: 1}})
	addr := strings.TrimPrefix(a.ListenAddrs()[0], "tls/")
	for range 3 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	waitLimit(t, a, LimitHandshakesPerIP) // two of three, once their grace is over
	openT(t, Config{Mode: ModeClient, Connect: a.ListenAddrs(), TLS: TLSConfig{RootCAFile: pki.CA}})
	if n := a.Stats().ByLimit[LimitHandshakesPerIP]; n != 2 {
		t.Errorf("%d refused, want 2", n)
	}
}
