package zenoh

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"
)

// TLSConfig configures the tls/ and quic/ links of a session, as Rust
// Zenoh's transport/link/tls configuration does: it applies to every such
// endpoint, each of which may override any of it in its own configuration
// (after '#', with the same keys Rust Zenoh reads:
// "tls/host:7447#root_ca_certificate_file=ca.pem;enable_mtls=true").
// Certificates and keys are PEM, given as a file or as bytes; keys may be
// PKCS #1, PKCS #8 or SEC 1 (EC).
type TLSConfig struct {
	// RootCAFile and RootCA name the certificates of the authorities that
	// sign the remote's certificate: the server's when connecting (added
	// to the system's roots), the client's when listening with EnableMTLS
	// (the only ones then). root_ca_certificate(_base64).
	RootCAFile string
	RootCA     []byte
	// ListenCertificateFile, ListenCertificate, ListenPrivateKeyFile and
	// ListenPrivateKey are the certificate chain and key a listener
	// presents; required to listen. listen_certificate(_base64),
	// listen_private_key(_base64).
	ListenCertificateFile string
	ListenCertificate     []byte
	ListenPrivateKeyFile  string
	ListenPrivateKey      []byte
	// ConnectCertificateFile, ConnectCertificate, ConnectPrivateKeyFile
	// and ConnectPrivateKey are the client certificate chain and key a
	// session presents when it connects with EnableMTLS.
	// connect_certificate(_base64), connect_private_key(_base64).
	ConnectCertificateFile string
	ConnectCertificate     []byte
	ConnectPrivateKeyFile  string
	ConnectPrivateKey      []byte
	// EnableMTLS turns on mutual TLS (TLS 1.3 only): a listener requires
	// and verifies a client certificate signed by the root CA, a client
	// presents its certificate. enable_mtls.
	EnableMTLS bool
	// SkipNameVerification accepts a server certificate whatever names it
	// carries, as long as a root CA signed it (verify_name_on_connect:
	// false). By default the name (or IP address) of the endpoint must be
	// among the certificate's.
	SkipNameVerification bool
	// CloseLinkOnExpiration closes a link when the remote's certificate
	// expires (close_link_on_expiration); a listener knows a client's
	// certificate only with EnableMTLS.
	CloseLinkOnExpiration bool
	// HandshakeTimeout bounds the TLS handshake of an accepted link
	// (tls_handshake_timeout_ms). Default, and at most, the Zenoh
	// handshake's 10 s.
	HandshakeTimeout time.Duration
}

// The configuration keys of tls/ and quic/ endpoints, as Rust Zenoh names
// them.
const (
	tlsRootCAFile        = "root_ca_certificate_file"
	tlsRootCARaw         = "root_ca_certificate_raw"
	tlsRootCABase64      = "root_ca_certificate_base64"
	tlsListenKeyFile     = "listen_private_key_file"
	tlsListenKeyRaw      = "listen_private_key_raw"
	tlsListenKeyBase64   = "listen_private_key_base64"
	tlsListenCertFile    = "listen_certificate_file"
	tlsListenCertRaw     = "listen_certificate_raw"
	tlsListenCertBase64  = "listen_certificate_base64"
	tlsConnectKeyFile    = "connect_private_key_file"
	tlsConnectKeyRaw     = "connect_private_key_raw"
	tlsConnectKeyBase64  = "connect_private_key_base64"
	tlsConnectCertFile   = "connect_certificate_file"
	tlsConnectCertRaw    = "connect_certificate_raw"
	tlsConnectCertBase64 = "connect_certificate_base64"
	tlsEnableMTLS        = "enable_mtls"
	tlsVerifyName        = "verify_name_on_connect"
	tlsCloseOnExpiry     = "close_link_on_expiration"
	tlsHandshakeTimeout  = "tls_handshake_timeout_ms"
)

// tlsKeys lists the configuration keys of tls/ and quic/ endpoints.
var tlsKeys = map[string]bool{
	tlsRootCAFile: true, tlsRootCARaw: true, tlsRootCABase64: true,
	tlsListenKeyFile: true, tlsListenKeyRaw: true, tlsListenKeyBase64: true,
	tlsListenCertFile: true, tlsListenCertRaw: true, tlsListenCertBase64: true,
	tlsConnectKeyFile: true, tlsConnectKeyRaw: true, tlsConnectKeyBase64: true,
	tlsConnectCertFile: true, tlsConnectCertRaw: true, tlsConnectCertBase64: true,
	tlsEnableMTLS: true, tlsVerifyName: true, tlsCloseOnExpiry: true, tlsHandshakeTimeout: true,
}

// checkTLSValue checks the value of a TLS configuration key.
func checkTLSValue(k, v string) error {
	switch k {
	case tlsEnableMTLS, tlsVerifyName, tlsCloseOnExpiry:
		if _, err := strconv.ParseBool(v); err != nil {
			return fmt.Errorf("configuration %s=%q: want true or false", k, v)
		}
	case tlsHandshakeTimeout:
		if n, err := strconv.ParseUint(v, 10, 32); err != nil || n == 0 {
			return fmt.Errorf("configuration %s=%q: want a positive number of milliseconds", k, v)
		}
	}
	return nil
}

// params returns c as endpoint configuration keys.
func (c *TLSConfig) params() map[string]string {
	p := make(map[string]string)
	set := func(fileKey, file, rawKey string, raw []byte) {
		switch {
		case len(raw) > 0:
			p[rawKey] = string(raw)
		case file != "":
			p[fileKey] = file
		}
	}
	set(tlsRootCAFile, c.RootCAFile, tlsRootCARaw, c.RootCA)
	set(tlsListenCertFile, c.ListenCertificateFile, tlsListenCertRaw, c.ListenCertificate)
	set(tlsListenKeyFile, c.ListenPrivateKeyFile, tlsListenKeyRaw, c.ListenPrivateKey)
	set(tlsConnectCertFile, c.ConnectCertificateFile, tlsConnectCertRaw, c.ConnectCertificate)
	set(tlsConnectKeyFile, c.ConnectPrivateKeyFile, tlsConnectKeyRaw, c.ConnectPrivateKey)
	if c.EnableMTLS {
		p[tlsEnableMTLS] = "true"
	}
	if c.SkipNameVerification {
		p[tlsVerifyName] = "false"
	}
	if c.CloseLinkOnExpiration {
		p[tlsCloseOnExpiry] = "true"
	}
	if c.HandshakeTimeout > 0 {
		p[tlsHandshakeTimeout] = strconv.FormatInt(c.HandshakeTimeout.Milliseconds(), 10)
	}
	return p
}

// tlsParams merges the session's TLS configuration with the endpoint's,
// whose keys win: a file, raw or base64 form given by the endpoint
// replaces every form of that item in the session's.
func tlsParams(global *TLSConfig, ep endpoint) map[string]string {
	p := global.params()
	for _, group := range [][]string{
		{tlsRootCAFile, tlsRootCARaw, tlsRootCABase64},
		{tlsListenCertFile, tlsListenCertRaw, tlsListenCertBase64},
		{tlsListenKeyFile, tlsListenKeyRaw, tlsListenKeyBase64},
		{tlsConnectCertFile, tlsConnectCertRaw, tlsConnectCertBase64},
		{tlsConnectKeyFile, tlsConnectKeyRaw, tlsConnectKeyBase64},
	} {
		for _, k := range group {
			if _, ok := ep.conf[k]; ok {
				for _, g := range group {
					delete(p, g)
				}
				break
			}
		}
	}
	for k, v := range ep.conf {
		if tlsKeys[k] {
			p[k] = v
		}
	}
	return p
}

// tlsSettings is what a tls/ or quic/ endpoint was configured with.
type tlsSettings struct {
	conf             *tls.Config
	handshakeTimeout time.Duration
	closeOnExpiry    bool
}

// loadPEM returns the PEM bytes of an item given as raw bytes, base64 or a
// file (in that order, as Rust Zenoh looks them up), or nil if absent.
func loadPEM(p map[string]string, rawKey, b64Key, fileKey, what string) ([]byte, error) {
	if v, ok := p[rawKey]; ok {
		return []byte(v), nil
	}
	if v, ok := p[b64Key]; ok {
		b, err := base64.StdEncoding.DecodeString(v)
		if err != nil {
			return nil, fmt.Errorf("%s (%s): %w", what, b64Key, err)
		}
		return b, nil
	}
	if v, ok := p[fileKey]; ok {
		b, err := os.ReadFile(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		if len(b) == 0 {
			return nil, fmt.Errorf("%s: %s is empty", what, v)
		}
		return b, nil
	}
	return nil, nil
}

// rootCerts returns the configured root CA certificates, or nil if none
// is configured.
func rootCerts(p map[string]string) ([]*x509.Certificate, error) {
	b, err := loadPEM(p, tlsRootCARaw, tlsRootCABase64, tlsRootCAFile, "root CA certificate")
	if err != nil || b == nil {
		return nil, err
	}
	var certs []*x509.Certificate
	for len(b) > 0 {
		var blk *pem.Block
		if blk, b = pem.Decode(b); blk == nil {
			break
		}
		if blk.Type != "CERTIFICATE" {
			continue
		}
		cert, err := x509.ParseCertificate(blk.Bytes)
		if err != nil {
			return nil, fmt.Errorf("root CA certificate: %w", err)
		}
		certs = append(certs, cert)
	}
	if len(certs) == 0 {
		return nil, errors.New("root CA certificate: no PEM certificate found")
	}
	return certs, nil
}

// keyPair loads a certificate chain and its key.
func keyPair(p map[string]string, side string, certKeys, keyKeys [3]string) (tls.Certificate, error) {
	cert, err := loadPEM(p, certKeys[0], certKeys[1], certKeys[2], side+" certificate")
	if err != nil {
		return tls.Certificate{}, err
	}
	key, err := loadPEM(p, keyKeys[0], keyKeys[1], keyKeys[2], side+" private key")
	if err != nil {
		return tls.Certificate{}, err
	}
	switch {
	case cert == nil:
		return tls.Certificate{}, fmt.Errorf("no %s certificate (%s)", side, certKeys[2])
	case key == nil:
		return tls.Certificate{}, fmt.Errorf("no %s private key (%s)", side, keyKeys[2])
	}
	kp, err := tls.X509KeyPair(cert, key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("%s certificate and key: %w", side, err)
	}
	return kp, nil
}

// boolParam reads a boolean key (already checked) with its default.
func boolParam(p map[string]string, k string, def bool) bool {
	if v, ok := p[k]; ok {
		b, _ := strconv.ParseBool(v)
		return b
	}
	return def
}

// tlsServer returns the TLS configuration of a listener on ep.
func tlsServer(global *TLSConfig, ep endpoint, alpn []string) (*tlsSettings, error) {
	p := tlsParams(global, ep)
	kp, err := keyPair(p, "listen",
		[3]string{tlsListenCertRaw, tlsListenCertBase64, tlsListenCertFile},
		[3]string{tlsListenKeyRaw, tlsListenKeyBase64, tlsListenKeyFile})
	if err != nil {
		return nil, err
	}
	c := &tls.Config{Certificates: []tls.Certificate{kp}, MinVersion: tls.VersionTLS12, NextProtos: alpn}
	if boolParam(p, tlsEnableMTLS, false) {
		roots, err := rootCerts(p)
		if err != nil {
			return nil, err
		}
		if roots == nil {
			return nil, fmt.Errorf("%s is true but no root CA certificate (%s) verifies clients", tlsEnableMTLS, tlsRootCAFile)
		}
		pool := x509.NewCertPool()
		for _, r := range roots {
			pool.AddCert(r)
		}
		c.ClientCAs = pool
		c.ClientAuth = tls.RequireAndVerifyClientCert
		c.MinVersion = tls.VersionTLS13
	}
	return newTLSSettings(c, p), nil
}

// tlsClient returns the TLS configuration of a connection to ep.
func tlsClient(global *TLSConfig, ep endpoint, alpn []string) (*tlsSettings, error) {
	p := tlsParams(global, ep)
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	roots, err := rootCerts(p)
	if err != nil {
		return nil, err
	}
	// The system's roots plus the configured ones, as Rust Zenoh adds them
	// to the web's.
	for _, r := range roots {
		pool.AddCert(r)
	}
	host, _, _ := net.SplitHostPort(ep.addr)
	c := &tls.Config{RootCAs: pool, ServerName: host, MinVersion: tls.VersionTLS12, NextProtos: alpn}
	if boolParam(p, tlsEnableMTLS, false) {
		kp, err := keyPair(p, "connect",
			[3]string{tlsConnectCertRaw, tlsConnectCertBase64, tlsConnectCertFile},
			[3]string{tlsConnectKeyRaw, tlsConnectKeyBase64, tlsConnectKeyFile})
		if err != nil {
			return nil, err
		}
		// Presented whatever authorities the server names, as Rust Zenoh
		// does: an untrusted certificate is then refused as such.
		c.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &kp, nil }
		c.MinVersion = tls.VersionTLS13
	}
	if !boolParam(p, tlsVerifyName, true) {
		// Verify the chain, not the name.
		c.InsecureSkipVerify = true
		c.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("tls: server sent no certificate")
			}
			inter := x509.NewCertPool()
			for _, ic := range cs.PeerCertificates[1:] {
				inter.AddCert(ic)
			}
			_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: pool, Intermediates: inter,
				KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
			return err
		}
	}
	return newTLSSettings(c, p), nil
}

func newTLSSettings(c *tls.Config, p map[string]string) *tlsSettings {
	t := &tlsSettings{conf: c, handshakeTimeout: handshakeTimeout, closeOnExpiry: boolParam(p, tlsCloseOnExpiry, false)}
	if v, ok := p[tlsHandshakeTimeout]; ok {
		ms, _ := strconv.ParseUint(v, 10, 32)
		t.handshakeTimeout = min(time.Duration(ms)*time.Millisecond, handshakeTimeout)
	}
	return t
}

// certExpiry returns when the first certificate of chain to expire does
// (the zero time for no chain).
func certExpiry(chain []*x509.Certificate) time.Time {
	var t time.Time
	for _, c := range chain {
		if t.IsZero() || c.NotAfter.Before(t) {
			t = c.NotAfter
		}
	}
	return t
}

// countRefusedClients makes a server that verifies client certificates
// call refused for each one it refuses, by verifying them itself.
func countRefusedClients(c *tls.Config, refused func(error)) {
	if c.ClientAuth != tls.RequireAndVerifyClientCert {
		return
	}
	pool := c.ClientCAs
	c.ClientAuth = tls.RequireAnyClientCert
	c.VerifyConnection = func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			err := errors.New("tls: client sent no certificate")
			refused(err)
			return err
		}
		inter := x509.NewCertPool()
		for _, ic := range cs.PeerCertificates[1:] {
			inter.AddCert(ic)
		}
		_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: pool, Intermediates: inter,
			KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
		if err != nil {
			err = fmt.Errorf("tls: client certificate: %w", err)
			refused(err)
		}
		return err
	}
}
