package dds

import (
	"bytes"
	"errors"
	"net"
	"net/netip"
	"testing"
)

func TestSendReceive(t *testing.T) {
	lo := &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)}
	a, err := net.ListenUDP("udp4", lo)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	e, err := net.ListenUDP("udp4", lo)
	if err != nil {
		t.Fatal(err)
	}
	to := e.LocalAddr().(*net.UDPAddr).AddrPort()
	to = netip.AddrPortFrom(to.Addr().Unmap(), to.Port())
	send, err := openSender(a, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	rd := newRawConn(e).receiver(make([]byte, 2048))
	for _, msg := range [][]byte{[]byte("hello"), bytes.Repeat([]byte{7}, 1500), {}} {
		if err := send.writeTo(msg, to); err != nil {
			t.Fatalf("writeTo: %v", err)
		}
		n, src, err := rd.read()
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		if !bytes.Equal(rd.buf[:n], msg) {
			t.Fatalf("read %d bytes, want %d", n, len(msg))
		}
		if !src.Addr().Is4() || src.Port() == 0 {
			t.Fatalf("source %v, want an IPv4 address and port", src)
		}
	}
	done := make(chan error)
	go func() {
		_, _, err := rd.read()
		done <- err
	}()
	e.Close()
	if err := <-done; !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read on a closed socket: %v, want net.ErrClosed", err)
	}
	send.close()
	a.Close()
	if err := send.writeTo([]byte("x"), to); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("writeTo on a closed socket: %v, want net.ErrClosed", err)
	}
}

// Sending allocates nothing.
func TestSendAllocs(t *testing.T) {
	e, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	to := e.LocalAddr().(*net.UDPAddr).AddrPort()
	to = netip.AddrPortFrom(to.Addr().Unmap(), to.Port())
	send, err := openSender(e, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer send.close()
	msg := []byte("x")
	if n := testing.AllocsPerRun(100, func() {
		if err := send.writeTo(msg, to); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("%v allocations per send", n)
	}
}
