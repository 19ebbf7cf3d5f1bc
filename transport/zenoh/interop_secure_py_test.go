package zenoh

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// openErr opens a session expected to fail, returning its error.
func openErr(t *testing.T, cfg Config) error {
	t.Helper()
	cfg.Logger = testLogger(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	s, err := Open(ctx, cfg)
	if err == nil {
		s.Close()
		t.Fatal("Open succeeded")
	}
	return err
}

// waitLimit waits until s counted the named limit.
func waitLimit(t *testing.T, s *Session, limit string) {
	t.Helper()
	ctx := testCtx(t)
	for s.Stats().ByLimit[limit] == 0 {
		if ctx.Err() != nil {
			t.Fatalf("%s never counted: %+v", limit, s.Stats())
		}
		time.Sleep(20 * time.Millisecond) // polling a counter: no signal to wait on
	}
}

// A Rust router that requires mutual TLS refuses a Go client whose
// certificate another CA signed; the error names the endpoint.
func TestInteropTLSUntrustedClientRefusedByRust(t *testing.T) {
	for _, proto := range []string{"tls", "quic"} {
		t.Run(proto, func(t *testing.T) { untrustedClientRefusedByRust(t, proto) })
	}
}

func untrustedClientRefusedByRust(t *testing.T, proto string) {
	pki, rogue := newPKI(t, "good"), newPKI(t, "rogue")
	py := startPy(t, append([]string{"--mode", "router", "--listen", proto + "/127.0.0.1:0"}, pki.pyArgs(true)...)...)
	tc := pki.server(true)
	tc.ConnectCertificateFile, tc.ConnectPrivateKeyFile = rogue.Cert, rogue.Key
	err := openErr(t, Config{Mode: ModeClient, Connect: []string{py.listen}, TLS: tc})
	if !errors.Is(err, ErrNoRouter) || !strings.Contains(err.Error(), py.listen) {
		t.Fatalf("got %v, want ErrNoRouter naming %s", err, py.listen)
	}
	t.Logf("refused as expected: %v", err)
	// The trusted certificate links.
	s := openT(t, Config{Mode: ModeClient, Connect: []string{py.listen}, TLS: pki.server(true)})
	exchangeSmallGoToPy(t, s, py, "sec1"+proto)
}

// A Go listener that requires mutual TLS refuses a Rust peer whose
// certificate another CA signed, counting it, and still serves a trusted
// one.
func TestInteropTLSUntrustedRustRefusedByGo(t *testing.T) {
	for _, proto := range []string{"tls", "quic"} {
		t.Run(proto, func(t *testing.T) { untrustedRustRefusedByGo(t, proto) })
	}
}

func untrustedRustRefusedByGo(t *testing.T, proto string) {
	pki, rogue := newPKI(t, "good"), newPKI(t, "rogue")
	s := openT(t, Config{Listen: []string{proto + "/127.0.0.1:0"}, TLS: pki.server(true)})
	ep := s.ListenAddrs()[0]
	bad := append([]string{"--mode", "peer", "--connect", ep}, pki.pyArgs(true)...)
	bad = append(bad,
		"--set", `transport/link/tls/connect_certificate="`+rogue.Cert+`"`,
		"--set", `transport/link/tls/connect_private_key="`+rogue.Key+`"`)
	startPy(t, bad...)
	waitLimit(t, s, LimitTLS)
	if n := len(s.Links()); n != 0 {
		t.Fatalf("%d links with an untrusted certificate", n)
	}
	py := startPy(t, append([]string{"--mode", "peer", "--connect", ep}, pki.pyArgs(true)...)...)
	exchangeSmallPyToGo(t, s, py, "sec2"+proto)
}

// A plaintext Rust peer on a Go TLS port costs only its own link.
func TestInteropPlaintextOnTLSPort(t *testing.T) {
	pki := newPKI(t, "good")
	s := openT(t, Config{Listen: []string{"tls/127.0.0.1:0"}, TLS: pki.server(false)})
	ep := s.ListenAddrs()[0]
	startPy(t, "--mode", "peer", "--connect", "tcp/"+strings.TrimPrefix(ep, "tls/"))
	waitLimit(t, s, LimitTLS)
	py := startPy(t, append([]string{"--mode", "peer", "--connect", ep}, pki.pyArgs(false)...)...)
	exchangeSmallPyToGo(t, s, py, "sec3")
}

// writeDict writes a Rust Zenoh dictionary file of user:password lines.
func writeDict(t *testing.T, lines ...string) string {
	path := filepath.Join(t.TempDir(), "users.txt")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func pyAuth(user, password string) []string {
	return []string{
		"--set", `transport/auth/usrpwd/user="` + user + `"`,
		"--set", `transport/auth/usrpwd/password="` + password + `"`,
	}
}

// A Go client joins a Rust router that requires a password, and is refused
// with a wrong one.
func TestInteropAuthGoToRustRouter(t *testing.T) {
	dict := writeDict(t, "robot:s3cret", "other:x")
	args := append([]string{"--mode", "router", "--listen", "tcp/127.0.0.1:0", "--client",
		"--set", `transport/auth/usrpwd/dictionary_file="` + dict + `"`}, pyAuth("other", "x")...)
	py := startPy(t, args...)
	err := openErr(t, Config{Mode: ModeClient, Connect: []string{py.listen}, Auth: AuthConfig{User: "robot", Password: "wrong"}})
	if !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), py.listen) {
		t.Fatalf("got %v, want ErrAuth naming %s", err, py.listen)
	}
	t.Logf("refused as expected: %v", err)
	s := openT(t, Config{Mode: ModeClient, Connect: []string{py.listen}, Auth: AuthConfig{User: "robot", Password: "s3cret"}})
	exchangeSmallGoToPy(t, s, py, "auth1/a")
	exchangeSmallPyToGo(t, s, py, "auth1/b")
}

// A Go listener that requires a password accepts a Rust peer that gives
// the right one and refuses one with a wrong one, counting it.
func TestInteropAuthRustToGo(t *testing.T) {
	s := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}, Auth: AuthConfig{Users: map[string]string{"robot": "s3cret"}}})
	ep := s.ListenAddrs()[0]
	startPy(t, append([]string{"--mode", "peer", "--connect", ep}, pyAuth("robot", "wrong")...)...)
	waitLimit(t, s, LimitAuth)
	if n := len(s.Links()); n != 0 {
		t.Fatalf("%d links with a wrong password", n)
	}
	py := startPy(t, append([]string{"--mode", "peer", "--connect", ep}, pyAuth("robot", "s3cret")...)...)
	exchangeSmallPyToGo(t, s, py, "auth2/b")
	exchangeSmallGoToPy(t, s, py, "auth2/a")
}
