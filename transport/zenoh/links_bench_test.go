package zenoh

import (
	"testing"
	"time"
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

// BenchmarkLinkPingPongRust measures 64-byte round trips from a Go peer
// to a Rust peer (the eclipse-zenoh package, answering from its
// subscriber's callback in Python) over each link type; compare with
// BenchmarkLinkPingPong's Go-to-Go rows.
func BenchmarkLinkPingPongRust(b *testing.B) {
	pki := newPKI(b, "benchrust")
	for _, lk := range []struct {
		name, listen string
		tls          bool
	}{
		{"tcp", "tcp/127.0.0.1:0", false},
		{"tls", "tls/127.0.0.1:0", true},
		{"quic", "quic/127.0.0.1:0", true},
	} {
		b.Run(lk.name, func(b *testing.B) {
			args := []string{"--mode", "peer", "--listen", lk.listen}
			cfg := Config{}
			if lk.tls {
				args = append(args, pki.pyArgs(false)...)
				cfg.TLS = TLSConfig{RootCAFile: pki.CA}
			}
			py := startPy(b, args...)
			py.do(map[string]any{"op": "echo", "from": "bench/ping", "to": "bench/pong"})
			cfg.Connect = []string{py.listen}
			s := openT(b, cfg)
			back := make(chan struct{}, 1)
			if _, err := s.DeclareSubscriber("bench/pong", func(Sample) { back <- struct{}{} }); err != nil {
				b.Fatal(err)
			}
			ping, err := s.DeclarePublisher("bench/ping")
			if err != nil {
				b.Fatal(err)
			}
			waitMatching(b, ping)
			ctx := b.Context()
			payload := make([]byte, benchSize)
			// The first pongs come once Rust knows the Go subscriber.
			for {
				if err := ping.Put(ctx, payload); err != nil {
					b.Fatal(err)
				}
				select {
				case <-back:
				case <-time.After(100 * time.Millisecond):
					continue
				}
				break
			}
			for len(back) > 0 {
				<-back
			}
			b.ReportAllocs()
			b.SetBytes(benchSize)
			for b.Loop() {
				if err := ping.Put(ctx, payload); err != nil {
					b.Fatal(err)
				}
				<-back
			}
		})
	}
}
