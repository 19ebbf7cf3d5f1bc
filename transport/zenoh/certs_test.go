package zenoh

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// testPKI holds the PEM files of a certificate authority and of a node
// certificate it signed (for localhost, 127.0.0.1 and ::1, usable as
// server and as client), generated for one test: no key is committed.
type testPKI struct {
	CA, Cert, Key string // file paths
	caCert        *x509.Certificate
	caKey         *ecdsa.PrivateKey
	dir           string
}

// newPKI makes a CA and a node certificate valid from now on for a day.
func newPKI(t testing.TB, name string) *testPKI {
	t.Helper()
	p := &testPKI{dir: t.TempDir()}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name + " test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	if p.caCert, err = x509.ParseCertificate(der); err != nil {
		t.Fatal(err)
	}
	p.caKey = key
	p.CA = p.write(t, name+"-ca.pem", "CERTIFICATE", der)
	p.Cert, p.Key = p.node(t, name+"-node", time.Now().Add(24*time.Hour))
	return p
}

// node issues a node certificate expiring at notAfter and returns the
// paths of its certificate and key.
func (p *testPKI) node(t testing.TB, name string, notAfter time.Time) (cert, key string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-2 * time.Hour),
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.caCert, &k.PublicKey, p.caKey)
	if err != nil {
		t.Fatal(err)
	}
	kd, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return p.write(t, name+".pem", "CERTIFICATE", der), p.write(t, name+".key", "PRIVATE KEY", kd)
}

func (p *testPKI) write(t testing.TB, name, typ string, der []byte) string {
	t.Helper()
	path := filepath.Join(p.dir, name)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
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
