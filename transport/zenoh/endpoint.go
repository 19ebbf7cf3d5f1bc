package zenoh

import (
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// Link protocols, as they begin an endpoint ("tls/host:7447").
const (
	ProtoTCP        = "tcp"
	ProtoTLS        = "tls"
	ProtoQUIC       = "quic"
	ProtoUDP        = "udp"
	ProtoUnixStream = "unixsock-stream"
)

// maxEndpointLen bounds an endpoint string (Rust Zenoh's is 2^16-1 bytes,
// base64 certificates included).
const maxEndpointLen = 1<<16 - 1

// endpoint is a parsed locator "proto/address[?metadata][#config]", as
// Rust Zenoh writes them: metadata and config are lists of key=value
// separated by ';'. Metadata describes the link (and is advertised with
// the locator); config is local (certificates, buffer sizes) and never
// printed.
type endpoint struct {
	proto string
	addr  string // host:port with IPv6 in brackets, or a socket path
	meta  map[string]string
	conf  map[string]string
}

// String returns the locator: protocol, address and metadata, without the
// configuration (which may hold keys).
func (e endpoint) String() string {
	s := e.proto + "/" + e.addr
	if len(e.meta) > 0 {
		s += "?" + joinParams(e.meta)
	}
	return s
}

// joinParams writes params as key=value pairs separated by ';', sorted.
func joinParams(params map[string]string) string {
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteString(k)
		if v := params[k]; v != "" {
			b.WriteByte('=')
			b.WriteString(v)
		}
	}
	return b.String()
}

// splitParams parses "k=v;k2=v2" (a key alone has an empty value). A
// repeated key is an error.
func splitParams(s, what string) (map[string]string, error) {
	if s == "" {
		return nil, nil
	}
	out := make(map[string]string)
	for _, kv := range strings.Split(s, ";") {
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		if k == "" {
			return nil, fmt.Errorf("%s %q has an empty key", what, kv)
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("%s key %q given twice", what, k)
		}
		out[k] = v
	}
	return out, nil
}

// metadata keys an endpoint may carry, per protocol, with the values
// supported. Rust Zenoh's "prio" (a priority range per link) is not
// supported: every link carries every priority.
const (
	metaReliability = "rel"
	metaMultistream = "multistream"
	metaMixedRel    = "mixed_rel"
)

// parseEndpoint validates a locator such as "tcp/127.0.0.1:7447",
// "tls/[::1]:7447#root_ca_certificate_file=ca.pem" or
// "unixsock-stream//tmp/zenoh.sock". Metadata and configuration keys
// that this implementation does not honour are refused, naming the key.
func parseEndpoint(s string) (endpoint, error) {
	bad := func(format string, args ...any) (endpoint, error) {
		return endpoint{}, fmt.Errorf("%w %q: %s", ErrInvalidEndpoint, redactEndpoint(s), fmt.Sprintf(format, args...))
	}
	if len(s) > maxEndpointLen {
		return bad("longer than %d bytes", maxEndpointLen)
	}
	rest, conf, _ := strings.Cut(s, "#")
	rest, meta, _ := strings.Cut(rest, "?")
	proto, addr, ok := strings.Cut(rest, "/")
	if !ok || proto == "" || addr == "" {
		return bad("want proto/address, e.g. tcp/127.0.0.1:7447")
	}
	e := endpoint{proto: proto}
	var err error
	if e.meta, err = splitParams(meta, "metadata"); err != nil {
		return bad("%v", err)
	}
	if e.conf, err = splitParams(conf, "configuration"); err != nil {
		return bad("%v", err)
	}
	switch proto {
	case ProtoTCP, ProtoTLS, ProtoQUIC, ProtoUDP:
		if e.addr, err = canonHostPort(addr); err != nil {
			return bad("%v", err)
		}
	case ProtoUnixStream:
		if strings.ContainsRune(addr, 0) {
			return bad("socket path holds a NUL byte")
		}
		e.addr = addr
	default:
		return bad("protocol %q unsupported (tcp, tls, quic, udp, unixsock-stream)", proto)
	}
	for k, v := range e.meta {
		if err := checkMeta(proto, k, v); err != nil {
			return bad("%v", err)
		}
	}
	for k, v := range e.conf {
		if err := checkConf(proto, k, v); err != nil {
			return bad("%v", err)
		}
	}
	return e, nil
}

// redactEndpoint drops the configuration of an endpoint string (it may
// hold private keys) for error messages.
func redactEndpoint(s string) string {
	if i := strings.IndexByte(s, '#'); i >= 0 {
		return s[:i] + "#..."
	}
	if len(s) > 256 {
		return s[:256] + "..."
	}
	return s
}

// canonHostPort validates host:port (an IPv6 host in brackets) and
// returns it with the port in decimal.
func canonHostPort(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return "", fmt.Errorf("bad port %q", port)
	}
	if host == "" {
		return "", fmt.Errorf("missing host")
	}
	if strings.ContainsAny(host, "/ ") {
		return "", fmt.Errorf("bad host %q", host)
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if ip.Zone() != "" {
			return "", fmt.Errorf("scoped IPv6 address %q unsupported", host)
		}
		host = ip.String()
	}
	return net.JoinHostPort(host, strconv.FormatUint(p, 10)), nil
}

// checkMeta refuses the metadata a link of proto does not honour.
func checkMeta(proto, k, v string) error {
	switch k {
	case metaReliability:
		reliable := proto != ProtoUDP
		switch {
		case v == "1" && reliable, v == "0" && !reliable:
			return nil
		case v == "0":
			return fmt.Errorf("metadata rel=0: %s links are reliable only here", proto)
		case v == "1":
			return fmt.Errorf("metadata rel=1: reliable UDP (QUIC without encryption) is not supported; use quic/")
		}
		return fmt.Errorf("metadata rel=%q: want 0 or 1", v)
	case metaMultistream:
		if proto == ProtoQUIC && (v == "0" || v == "auto") {
			return nil // one stream: what "auto" falls back to
		}
	case metaMixedRel:
		if proto == ProtoQUIC && (v == "0" || v == "auto") {
			return nil
		}
	}
	return fmt.Errorf("metadata %s=%s is not supported on %s links", k, v, proto)
}

// checkConf refuses the configuration keys a link of proto does not
// honour, and checks the values of those it does.
func checkConf(proto, k, v string) error {
	switch {
	case (proto == ProtoTCP || proto == ProtoTLS) && (k == confSndBuf || k == confRcvBuf):
		if n, err := strconv.Atoi(v); err != nil || n <= 0 {
			return fmt.Errorf("configuration %s=%q: want a positive number of bytes", k, v)
		}
		return nil
	case proto == ProtoTLS || proto == ProtoQUIC:
		if tlsKeys[k] {
			return checkTLSValue(k, v)
		}
	}
	return fmt.Errorf("configuration key %q is not supported on %s links", k, proto)
}

// Socket buffer sizes of tcp/ and tls/ links.
const (
	confSndBuf = "so_sndbuf"
	confRcvBuf = "so_rcvbuf"
)
