package zenoh

import (
	"testing"
)

// benchLinks lists the link types benchmarked, each as the configuration
// of a listening and of a dialling session.
func benchLinks(b *testing.B) []struct {
	name         string
	listen, dial Config
} {
	pki := newPKI(b, "bench")
	return []struct {
		name         string
		listen, dial Config
	}{
		{"tcp", Config{Listen: []string{"tcp/127.0.0.1:0"}}, Config{}},
		{"unixsock-stream", Config{Listen: []string{"unixsock-stream/" + b.TempDir() + "/z.sock"}}, Config{}},
		{"tls", Config{Listen: []string{"tls/127.0.0.1:0"}, TLS: pki.server(false)}, Config{TLS: TLSConfig{RootCAFile: pki.CA}}},
		{"quic", Config{Listen: []string{"quic/127.0.0.1:0"}, TLS: pki.server(false)}, Config{TLS: TLSConfig{RootCAFile: pki.CA}}},
		{"udp", Config{Listen: []string{"udp/127.0.0.1:0"}}, Config{}},
	}
}

// BenchmarkLinkPingPong measures 64-byte round trips between two sessions
// over each link type (compare with BenchmarkPingPong's raw-tcp).
func BenchmarkLinkPingPong(b *testing.B) {
	for _, lk := range benchLinks(b) {
		b.Run(lk.name, func(b *testing.B) {
			a := openT(b, lk.listen)
			lk.dial.Connect = a.ListenAddrs()
			pingPong(b, openT(b, lk.dial), a)
		})
	}
}

// BenchmarkLinkThroughput1MiB publishes 1 MiB samples one way over each
// reliable link type (udp/ loses fragments under load: not measured).
func BenchmarkLinkThroughput1MiB(b *testing.B) {
	const size = 1 << 20
	for _, lk := range benchLinks(b) {
		if lk.name == "udp" {
			continue
		}
		b.Run(lk.name, func(b *testing.B) {
			b.SetBytes(size)
			floodOn(b, lk.listen, lk.dial, size, nil)
		})
	}
}
