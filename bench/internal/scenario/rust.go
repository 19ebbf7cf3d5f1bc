package scenario

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/afor-go/afor/transport/zenoh"
)

// ModeRust marks the rows of the Rust stack on both sides: eclipse-zenoh
// in two Python processes, answering from its subscriber callbacks
// ([RunEchoRust], [RunThroughputRust]).
const ModeRust Mode = "rust"

//go:embed testdata/zenoh_rust.py
var pyZenohRust string

// rustConfig configures one process of testdata/zenoh_rust.py (see its
// documentation).
type rustConfig struct {
	Role       string            `json:"role"`
	Listen     string            `json:"listen,omitempty"`
	Connect    string            `json:"connect,omitempty"`
	TLS        map[string]string `json:"tls,omitempty"`
	Prefix     string            `json:"prefix"`
	Size       int               `json:"size"`
	Duration   float64           `json:"duration,omitempty"`
	WarmupS    float64           `json:"warmup_s,omitempty"`
	Warmup     int               `json:"warmup,omitempty"`
	Window     int               `json:"window,omitempty"`
	ClockStart int64             `json:"clock_start,omitempty"`
}

// rustReport is what a measuring side of zenoh_rust.py prints.
type rustReport struct {
	Ops        int64   `json:"ops"`
	Seconds    float64 `json:"seconds"`
	CPUSeconds float64 `json:"cpu_seconds"`
	Sent       int64   `json:"sent"`
	Failed     int64   `json:"failed"`
	Zenoh      string  `json:"eclipse_zenoh"`
}

// rustPKI is a certificate made for one row, in files for the Rust stack
// and in memory for Go.
type rustPKI struct {
	dir    string
	server zenoh.TLSConfig // a Go listener presenting the certificate
}

func newRustPKI() (*rustPKI, error) {
	server, client, err := benchTLS()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "afor-bench-tls-")
	if err != nil {
		return nil, err
	}
	p := &rustPKI{dir: dir, server: server}
	err = errors.Join(os.WriteFile(p.path("ca.pem"), client.RootCA, 0o600),
		os.WriteFile(p.path("cert.pem"), server.ListenCertificate, 0o600),
		os.WriteFile(p.path("key.pem"), server.ListenPrivateKey, 0o600))
	if err != nil {
		return nil, errors.Join(err, p.Close())
	}
	return p, nil
}

func (p *rustPKI) path(name string) string { return filepath.Join(p.dir, name) }

// clientOpts are the Rust stack's options of a node trusting the
// certificate; serverOpts those of a node listening with it.
func (p *rustPKI) clientOpts() map[string]string {
	return map[string]string{"root_ca_certificate": p.path("ca.pem")}
}

func (p *rustPKI) serverOpts() map[string]string {
	return map[string]string{"listen_certificate": p.path("cert.pem"), "listen_private_key": p.path("key.pem")}
}

// Close removes the files.
func (p *rustPKI) Close() error {
	if p == nil {
		return nil
	}
	return os.RemoveAll(p.dir)
}

// startRust starts side B of zenoh_rust.py and waits until it answers; it
// returns the endpoint it listens on ("-" when it connects).
func startRust(ctx context.Context, python string, c rustConfig) (stop func() error, endpoint string, err error) {
	conf, err := json.Marshal(c)
	if err != nil {
		return nil, "", err
	}
	return startReadyArg(ctx, exec.Command(python, "-c", pyZenohRust, string(conf)), "rust "+c.Role)
}

// runRust runs a measuring side of zenoh_rust.py to its end.
func runRust(ctx context.Context, python string, c rustConfig, limit time.Duration) (*rustReport, error) {
	conf, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "-c", pyZenohRust, string(conf))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("rust %s: %v: %s", c.Role, err, lastLines(stderr.String(), 5))
	}
	rep := &rustReport{}
	if err := json.Unmarshal(bytes.TrimSpace(out), rep); err != nil {
		return nil, fmt.Errorf("rust %s: output %q: %v", c.Role, out, err)
	}
	return rep, nil
}

// rustPair starts side B (role) listening on link with a certificate made
// for it and returns side A's configuration connecting to it.
func rustPair(ctx context.Context, python, link, role string, b rustConfig) (a rustConfig, stop func() error, err error) {
	var pki *rustPKI // nil over tcp
	b.Role, b.Listen, b.Prefix = role, link+"/127.0.0.1:0", "afor_bench/rust/"
	if link != "tcp" {
		if pki, err = newRustPKI(); err != nil {
			return a, nil, err
		}
		b.TLS = pki.serverOpts()
	}
	stopB, ep, err := startRust(ctx, python, b)
	if err != nil {
		return a, nil, errors.Join(err, pki.Close())
	}
	a = rustConfig{Connect: ep, Prefix: b.Prefix, Size: b.Size}
	if link != "tcp" {
		a.TLS = pki.clientOpts()
	}
	return a, func() error { return errors.Join(stopB(), pki.Close()) }, nil
}

// RunEchoRust runs the echo on the Rust stack on both sides, over the link
// type of tr (a [ZenohProcRust]): two Python processes of eclipse-zenoh,
// each answering from its subscriber callback, one message of cfg.Size
// bytes in flight, measured by side A for cfg.Duration after warmup. Its
// CPU is side A's process.
func RunEchoRust(ctx context.Context, tr Transport, cfg EchoConfig, warmup time.Duration) (r Result) {
	python, link := tr.python, tr.Link
	r = Result{Scenario: "echo", Transport: tr.Name, Mode: ModeRust, Size: max(cfg.Size, HeaderSize),
		Note: "Rust stack on both sides (eclipse-zenoh callbacks in two Python processes); cpu: side A's process"}
	a, stop, err := rustPair(ctx, python, link, "echo", rustConfig{Size: r.Size})
	if err != nil {
		r.Error, r.Failed = err.Error(), 1
		return r
	}
	defer func() {
		if err := stop(); err != nil && r.Error == "" {
			r.Error, r.Failed = err.Error(), 1
		}
	}()
	a.Role, a.Duration, a.WarmupS = "hello", cfg.Duration.Seconds(), warmup.Seconds()
	rep, err := runRust(ctx, python, a, cfg.Duration+warmup+runSlack+childTimeout)
	if err != nil {
		r.Error, r.Failed = err.Error(), 1
		return r
	}
	r.finish(rep.Ops, time.Duration(rep.Seconds*float64(time.Second)), time.Duration(rep.CPUSeconds*float64(time.Second)))
	r.Note += "; eclipse-zenoh " + rep.Zenoh
	return r
}

// RunThroughputRust runs the throughput on the Rust stack on both sides,
// over the link type of tr (a [ZenohProcRust]): side A (eclipse-zenoh in a Python process) keeps at most
// cfg.Window messages in flight, side B (another) acknowledges each from
// its subscriber callback, as the zenoh-proc child does. Its CPU is side
// A's process.
func RunThroughputRust(ctx context.Context, tr Transport, cfg ThroughputConfig) (r Result) {
	python, link := tr.python, tr.Link
	r = Result{Scenario: "throughput", Transport: tr.Name, Mode: ModeRust, Size: max(cfg.Size, HeaderSize)}
	if cfg.Window <= 0 {
		cfg.Window = DefaultWindow
	}
	r.Note = fmt.Sprintf("window %d messages; Rust stack on both sides (eclipse-zenoh callbacks in two Python processes, congestion control block); cpu: side A's process", cfg.Window)
	a, stop, err := rustPair(ctx, python, link, "sink", rustConfig{Size: r.Size})
	if err != nil {
		r.Error, r.Failed = err.Error(), 1
		return r
	}
	defer func() {
		if err := stop(); err != nil && r.Error == "" {
			r.Error, r.Failed = err.Error(), 1
		}
	}()
	a.Role, a.Duration, a.Warmup, a.Window = "flood", cfg.Duration.Seconds(), cfg.Warmup, cfg.Window
	rep, err := runRust(ctx, python, a, 2*cfg.Duration+runSlack+childTimeout)
	if err != nil {
		r.Error, r.Failed = err.Error(), 1
		return r
	}
	r.finish(rep.Ops, time.Duration(rep.Seconds*float64(time.Second)), time.Duration(rep.CPUSeconds*float64(time.Second)))
	r.BytesPerSec = r.Rate * float64(r.Size)
	r.Sent, r.Failed = rep.Sent, rep.Failed
	r.Note += "; eclipse-zenoh " + rep.Zenoh
	return r
}
