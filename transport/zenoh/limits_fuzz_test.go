package zenoh

import (
	"bytes"
	"context"
	"errors"
	"net"
	"testing"
	"time"
)

// scriptConn plays a remote whose bytes are fixed: reads return them, then
// EOF; writes are discarded.
type scriptConn struct{ r *bytes.Reader }

func (c scriptConn) Read(b []byte) (int, error)     { return c.r.Read(b) }
func (scriptConn) Write(b []byte) (int, error)      { return len(b), nil }
func (scriptConn) Close() error                     { return nil }
func (scriptConn) LocalAddr() net.Addr              { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7447} }
func (scriptConn) RemoteAddr() net.Addr             { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000} }
func (scriptConn) SetDeadline(time.Time) error      { return nil }
func (scriptConn) SetReadDeadline(time.Time) error  { return nil }
func (scriptConn) SetWriteDeadline(time.Time) error { return nil }

// scriptBatch returns the message in hex as a batch.
func scriptBatch(t testing.TB, msg string) []byte {
	m := unhex(t, msg)
	return append([]byte{byte(len(m)), byte(len(m) >> 8)}, m...)
}

// The accepting handshake links zenoh-pico's bytes (the fuzz target's
// first seed), clamping its lease.
func TestAcceptHandshakeScript(t *testing.T) {
	s := openT(t, Config{Limits: Limits{MaxPeerLease: 5 * time.Second}})
	in := append(scriptBatch(t, "c1 09 f1"+picoZID+"0a 00 08 27 01"), scriptBatch(t, "42 0a 00 00")...)
	l, err := s.handshake(testCtx(t), scriptConn{bytes.NewReader(in)}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if l.peerLease != 5*time.Second || l.batch != 2048 {
		t.Errorf("lease %v, batch %d; want 5s (10 s clamped), 2048", l.peerLease, l.batch)
	}
}

// FuzzAcceptHandshake feeds arbitrary bytes to the accepting side of the
// handshake: it must fail cleanly (never panic), and refuse, as over
// MaxHandshakeBytes, any handshake message that would not fit its budget.
func FuzzAcceptHandshake(f *testing.F) {
	init := scriptBatch(f, "c1 09 f1"+picoZID+"0a 00 08 27 01")
	open := scriptBatch(f, "42 0a 00 00")
	f.Add(append(init, open...)) // zenoh-pico's INIT and OPEN
	f.Add(init)
	f.Add(unhex(f, "ff ff 01"))    // a 65,535-byte message announced
	f.Add(unhex(f, "00 40 01 09")) // short
	f.Add([]byte{})
	s := openT(f, Config{Limits: Limits{MaxHandshakeBytes: 256}})
	f.Fuzz(func(t *testing.T, in []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		l, err := s.handshake(ctx, scriptConn{bytes.NewReader(in)}, false, nil)
		if err == nil {
			if l == nil || l.peerLease <= 0 || l.peerLease > s.cfg.Limits.MaxPeerLease {
				t.Fatalf("link %+v", l)
			}
			return
		}
		if len(in) >= 2 && int(in[0])|int(in[1])<<8 > 256-2 {
			var le *limitError
			if !errors.As(err, &le) || le.limit != LimitHandshakeBytes {
				t.Fatalf("a first message of %d bytes: err = %v, want the %s limit", int(in[0])|int(in[1])<<8, err, LimitHandshakeBytes)
			}
		}
	})
}
