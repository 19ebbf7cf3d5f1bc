package zenoh

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"testing"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// fragmentStream returns the bytes a link with batch size batch writes
// for a PUSH{PUT} of payload on key: its FRAGMENT batches.
func fragmentStream(batch int, key string, payload []byte) []byte {
	var e pushEncoder
	head, _ := e.appendHead(nil, key, &dataMsg{payload: payload})
	l := &link{batch: batch, snMask: 1<<28 - 1, patch: 1}
	l.buildFragments(head, payload)
	var out []byte
	for _, b := range l.iov {
		out = append(out, b...)
	}
	return out
}

// FuzzReadStream feeds a byte stream to a link's reader (readNext, which
// reads FRAGMENT payloads straight into the reassembly buffer) until it
// ends: it must never panic, fail only with a read, protocol or size
// error, keep the reassembly within its limits and give it all back when
// the link ends.
func FuzzReadStream(f *testing.F) {
	big := bytes.Repeat([]byte("0123456789"), 300)
	whole := fragmentStream(1024, "demo/x", big)
	f.Add(whole)
	f.Add(whole[:len(whole)/2])
	f.Add(append(append([]byte(nil), whole...), whole...))
	f.Add(fragmentStream(1024, "demo/x", bytes.Repeat([]byte{1}, 5000))) // over MaxMessageSize
	frag, _ := appendBatch(nil, &wire.Fragment{Reliable: true, More: true, SN: 1, First: true, Payload: big[:900]})
	f.Add(append(frag, frag...))
	drop, _ := appendBatch(nil, &wire.Fragment{Reliable: true, SN: 2, Drop: true})
	f.Add(append(frag, drop...))
	f.Add([]byte{0xff, 0xff, 0x06})
	f.Add([]byte{0x30, 0x00, 0x26, 0x01, 0x22})

	s, err := Open(context.Background(), Config{BatchSize: 1024, MaxMessageSize: 4096, MaxSessionReassembly: 6000})
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	sub, err := s.DeclareSubscriber("demo/**", func(Sample) {})
	if err != nil {
		f.Fatal(err)
	}
	defer sub.Undeclare()
	f.Fuzz(func(t *testing.T, b []byte) {
		c1, c2 := net.Pipe() // only for the link's name in logs: the stream comes from b
		defer c1.Close()
		defer c2.Close()
		rx := &spillReader{conn: bytes.NewReader(b), spill: make([]byte, linkReadBuffer)}
		l := &link{
			s: s, conn: c1, br: bufio.NewReaderSize(rx, linkReadBuffer), rx: rx, log: s.log,
			done: make(chan struct{}), aliases: make(map[uint16]string),
			remoteSubs: make(map[uint32]uint32), remoteQabls: make(map[uint32]uint32), remoteTokens: make(map[uint32]uint32),
			reason: -1, batch: 1024, snMask: 1<<28 - 1, patch: 1, whatami: wire.Client,
		}
		buf := make([]byte, 65535)
		for {
			batch, herr, err := l.readNext(buf)
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, ErrTooLarge) {
					t.Fatalf("unexpected read error: %v", err)
				}
				break
			}
			if batch != nil {
				herr = l.handleBatch(batch)
			}
			if herr != nil {
				if !errors.Is(herr, ErrProtocol) && !errors.Is(herr, ErrTooLarge) && !errors.Is(herr, errLinkClosed) {
					t.Fatalf("unexpected error class: %v", herr)
				}
				break
			}
			if l.reasm.size > s.cfg.MaxMessageSize || l.counted > s.cfg.MaxLinkReassembly+s.cfg.MaxMessageSize {
				t.Fatalf("reassembly buffer %d/%d over the limit", l.reasm.size, l.counted)
			}
		}
		l.releaseDefrag()
		if n := s.reassembly.Load(); n != 0 {
			t.Fatalf("the session still counts %d reassembly bytes", n)
		}
	})
}
