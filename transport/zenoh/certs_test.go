package zenoh

import (
	"testing"
	"time"

	"github.com/afor-go/afor/internal/peers"
)

// testPKI is a CA and a node certificate generated for one test.
type testPKI struct{ *peers.PKI }

func newPKI(t testing.TB, name string) *testPKI { return &testPKI{peers.NewPKI(t, name)} }

func (p *testPKI) node(t testing.TB, name string, notAfter time.Time) (cert, key string) {
	return p.Node(t, name, notAfter)
}

// server returns the TLS configuration of a node that listens with the
// node certificate and trusts the CA.
func (p *testPKI) server(mtls bool) TLSConfig {
	c := TLSConfig{RootCAFile: p.CA, ListenCertificateFile: p.Cert, ListenPrivateKeyFile: p.Key, EnableMTLS: mtls}
	if mtls {
		c.ConnectCertificateFile, c.ConnectPrivateKeyFile = p.Cert, p.Key
	}
	return c
}

// pyArgs returns the zenoh_peer.py options configuring the same.
func (p *testPKI) pyArgs(mtls bool) []string {
	q := func(s string) string { return `"` + s + `"` }
	args := []string{
		"--set", "transport/link/tls/root_ca_certificate=" + q(p.CA),
		"--set", "transport/link/tls/listen_certificate=" + q(p.Cert),
		"--set", "transport/link/tls/listen_private_key=" + q(p.Key),
	}
	if mtls {
		args = append(args,
			"--set", "transport/link/tls/enable_mtls=true",
			"--set", "transport/link/tls/connect_certificate="+q(p.Cert),
			"--set", "transport/link/tls/connect_private_key="+q(p.Key))
	}
	return args
}
