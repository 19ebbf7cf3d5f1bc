package zenoh

import (
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// Helpers of the attacks of issue 32 (the attack_*_test.go files and the
// measuring harness of attack_measure_test.go): a hostile node that
// presents itself as a client, the hostile messages, and memory probes.

// handshakeAs opens a link as a node of role whatami (the handshake of
// hostile.handshake, which plays a peer).
func (h *hostile) handshakeAs(n int, whatami wire.WhatAmI, lease time.Duration) error {
	b, _ := appendBatch(nil, &wire.Init{Version: wire.ProtoVersion, WhatAmI: whatami, ZID: hostileZID(n),
		Resolution: wire.DefaultResolution, BatchSize: 65535, Patch: 1})
	if _, err := h.conn.Write(b); err != nil {
		return err
	}
	_ = h.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	defer h.conn.SetReadDeadline(time.Time{})
	raw, err := readBatch(h.br, make([]byte, 65535))
	if err != nil {
		return err
	}
	ack, err := decodeInit(raw)
	if err != nil {
		return err
	}
	b, _ = appendBatch(nil, &wire.Open{Lease: lease, Cookie: ack.Cookie})
	if _, err := h.conn.Write(b); err != nil {
		return err
	}
	raw, err = readBatch(h.br, make([]byte, 65535))
	if err != nil {
		return err
	}
	_, err = decodeOpen(raw)
	return err
}

// drain reads and discards what the session sends, so that it never closes
// the link for a remote that does not read; the channel is closed when the
// session ends the connection.
func (h *hostile) drain() <-chan struct{} {
	return waitClosed(h)
}

// keepAlive sends a KEEP_ALIVE every period until stop is closed.
func (h *hostile) keepAlive(period time.Duration, stop <-chan struct{}) {
	ka, _ := appendBatch(nil, &wire.KeepAlive{})
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if _, err := h.conn.Write(ka); err != nil {
				return
			}
		}
	}
}

// aliasMsg encodes D_KEYEXPR id -> scope's key + suffix.
func aliasMsg(id, scope uint16, suffix string) []byte {
	return appendDeclare(nil, nil, &wire.DeclareKeyExpr{ID: id, WireExpr: wire.WireExpr{Scope: scope, Suffix: []byte(suffix)}})
}

// requestMsg encodes a REQUEST on key with the given timeout.
func requestMsg(id uint32, key string, timeout time.Duration) []byte {
	b, err := (&wire.Request{ID: id, WireExpr: wire.WireExpr{Suffix: []byte(key)}, Target: wire.TargetAll,
		Timeout: timeout}).AppendBinary(nil)
	if err != nil {
		panic(err)
	}
	return b
}

// fragmentedPush sends one whole PUSH of a payload of size bytes on key, as
// FRAGMENTs of the largest batch.
func (h *hostile) fragmentedPush(key string, size int) error {
	msg := cpuPush(key, make([]byte, size))
	room := 65535 - wire.BatchLenSize - frameOverhead
	first := true
	for off := 0; off < len(msg); off += room {
		end := min(off+room, len(msg))
		w := append(h.buf[:0], 0, 0)
		w, _ = (&wire.Fragment{Reliable: true, More: end < len(msg), SN: h.sn, First: first, Payload: msg[off:end]}).AppendBinary(w)
		h.sn++
		first = false
		_ = wire.PutBatchLen(w, len(w)-wire.BatchLenSize)
		h.buf = w
		if _, err := h.conn.Write(w); err != nil {
			return err
		}
	}
	return nil
}

// heapProbe samples the bytes of live and not yet swept heap objects every
// few milliseconds, to catch the peak between two collections.
type heapProbe struct {
	stop chan struct{}
	done chan struct{}
	peak atomic.Uint64
}

func startHeapProbe() *heapProbe {
	p := &heapProbe{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > p.peak.Load() {
				p.peak.Store(v)
			}
			select {
			case <-p.stop:
				return
			case <-t.C:
			}
		}
	}()
	return p
}

// end stops the probe and returns the peak it saw.
func (p *heapProbe) end() uint64 {
	close(p.stop)
	<-p.done
	return p.peak.Load()
}

// heapAllocs returns the bytes allocated on the heap since the program
// started (a count that only grows: what an attack allocates, garbage
// included, is its difference).
func heapAllocs() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// liveHeap returns the live heap after two collections.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// netCounts counts what a hostile node received from the session.
type netCounts struct {
	finals     atomic.Int64 // RESPONSE_FINAL
	requests   atomic.Int64 // REQUEST
	maxTimeout atomic.Int64 // the longest REQUEST timeout, in ns
	pushes     atomic.Int64 // PUSH
	decls      atomic.Int64 // D_SUBSCRIBER, D_QUERYABLE and D_TOKEN
	undecls    atomic.Int64 // their undeclarations
	closeWhy   atomic.Int64 // 1 + the reason of a CLOSE received, or 0
	changed    chan struct{}
	ended      chan struct{}
}

// count reads what the session sends h, counting it, until the
// connection ends.
func (h *hostile) count() *netCounts {
	c := &netCounts{changed: make(chan struct{}, 1), ended: make(chan struct{})}
	go func() {
		defer close(c.ended)
		d := wire.NewDecoder(wire.DefaultLimits())
		buf := make([]byte, 65535)
		for {
			b, err := readBatch(h.br, buf)
			if err != nil {
				return
			}
			d.Reset(b)
			for {
				m, err := d.Next()
				if err != nil {
					break
				}
				if cl, ok := m.(*wire.Close); ok {
					c.closeWhy.Store(1 + int64(cl.Reason))
				}
				if _, ok := m.(*wire.Frame); !ok {
					continue
				}
				for {
					nm, err := d.NextNetwork()
					if err != nil {
						break
					}
					switch m := nm.(type) {
					case *wire.ResponseFinal:
						c.finals.Add(1)
					case *wire.Push:
						c.pushes.Add(1)
					case *wire.Request:
						c.requests.Add(1)
						if int64(m.Timeout) > c.maxTimeout.Load() {
							c.maxTimeout.Store(int64(m.Timeout))
						}
					case *wire.Declare:
						switch m.Body.(type) {
						case *wire.DeclareSubscriber, *wire.DeclareQueryable, *wire.DeclareToken:
							c.decls.Add(1)
						case *wire.UndeclareSubscriber, *wire.UndeclareQueryable, *wire.UndeclareToken:
							c.undecls.Add(1)
						}
					}
				}
			}
			select {
			case c.changed <- struct{}{}:
			default:
			}
		}
	}()
	return c
}

// waitFor waits (at most d) until cond holds, checking after each batch
// received; it reports whether it does.
func (c *netCounts) waitFor(d time.Duration, cond func() bool) bool {
	timeout := time.After(d)
	for !cond() {
		select {
		case <-c.changed:
		case <-c.ended:
			return cond()
		case <-timeout:
			return false
		}
	}
	return true
}

// hostileLease is the lease the hostile nodes of the tests announce: long
// enough that a test slowed down by a loaded machine does not see them
// expire (they send nothing but their attack), within MaxPeerLease.
const hostileLease = time.Minute
