package zenoh

import (
	"bufio"
	"context"
	"encoding/hex"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

func seedHex(f *testing.F, ss ...string) {
	for _, s := range ss {
		b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

func FuzzDecodeInit(f *testing.F) {
	seedHex(f,
		"c1 09 f1"+picoZID+"0a 00 08 27 01",
		"e1 09 f1"+picoZID+"0a 00 08 00 27 01",
		"e1 09 f1"+picoZID+"0a 00 08 00", // pico quirk
		"c1 09 f2"+picoZID+"0a ff ff 01",
		"01 09 00 01",
		"a1 09 00 01 00 45 03 01 02 03",
	)
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeInit(b)
		if err != nil {
			if !errors.Is(err, ErrProtocol) && !errors.Is(err, ErrHandshake) {
				t.Fatalf("error %v is neither ErrProtocol nor ErrHandshake", err)
			}
			return
		}
		if n := len(m.ZID.Slice()); n < 1 || n > 16 {
			t.Fatalf("zid of %d bytes", n)
		}
		// What decodes re-encodes to something that decodes the same.
		b2, err := appendBatch(nil, m)
		if err != nil {
			t.Fatalf("re-encode %+v: %v", m, err)
		}
		m2, err := decodeInit(b2[wire.BatchLenSize:])
		if err != nil || m2.WhatAmI != m.WhatAmI || m2.ZID != m.ZID || m2.BatchSize != m.BatchSize ||
			m2.Resolution != m.Resolution || m2.Patch != m.Patch || m2.Ack != m.Ack {
			t.Fatalf("round trip: %+v -> %+v, %v", m, m2, err)
		}
	})
}

func FuzzDecodeOpen(f *testing.F) {
	seedHex(f, "42 0a 00 00", "62 0a 00", "02 c8 01 05 03 61 62 63", "22 90 4e ff ff ff ff 0f", "c2 0a 00 00 21 05")
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeOpen(b)
		if err != nil {
			if !errors.Is(err, ErrProtocol) && !errors.Is(err, ErrHandshake) {
				t.Fatalf("error %v is neither ErrProtocol nor ErrHandshake", err)
			}
			return
		}
		if m.Lease < 0 {
			t.Fatalf("negative lease %v", m.Lease)
		}
	})
}

// FuzzHandleBatch feeds one received batch to a link of a live session
// with a local subscriber: it must never panic, and a failure must be a
// protocol or size error.
func FuzzHandleBatch(f *testing.F) {
	seedHex(f,
		"25 00 1e 20 01 00 0c"+hex.EncodeToString([]byte("demo/example")),
		"25 01 5d 01 01 0c"+hex.EncodeToString([]byte("[   0] hello")),
		"25 00 3e 00 62 01 01 03 2f 2a 2a",
		"25 02 3e 00 1a",
		"25 03 1e 03 01",
		"25 05 3d 00 06 64 65 6d 6f 2f 78 e1 04 64 03 61 62 63 43 02 61 62 05 68 65 6c 6c 6f",
		"25 06 3d 00 06 64 65 6d 6f 2f 78 02",
		"25 07 79 01 5b 00 06 64 65 6d 6f 2f 78",
		"25 08 fc 01 00 0f"+hex.EncodeToString([]byte("demo/example/**"))+"a1 0d 26 90 4e 23 02",
		"25 09 fb 01 00 01 78 a1 0d 43 12 f0"+picoZID+"00 04 01 04 71 76 61 6c",
		"25 0a 1a 01",
		"25 0b 1f 01 00", "25 0c 5f 01 00 03 61 62 63",
		"e6 0d 02 1d 20 00 06 64 65 6d", "26 0e 6f 2f 78 01 02 68 69",
		"04", "03 02", "00 01 00", "25 00 31 05 1e 1a",
	)
	for _, m := range querySeeds(f) {
		f.Add(append([]byte{0x25, 0x10}, m...))
	}
	s, err := Open(context.Background(), Config{BatchSize: 1024, MaxMessageSize: 4096})
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	sub, err := s.DeclareSubscriber("demo/**", func(Sample) {})
	if err != nil {
		f.Fatal(err)
	}
	defer sub.Undeclare()
	qa, err := s.DeclareQueryable("demo/**", func(q *Query) { _ = q.Reply(context.Background(), q.KeyExpr, []byte("r")); q.Finish() })
	if err != nil {
		f.Fatal(err)
	}
	defer qa.Undeclare()
	ls, err := s.DeclareLivelinessSubscriber("**", func(Sample) {})
	if err != nil {
		f.Fatal(err)
	}
	defer ls.Undeclare()
	f.Fuzz(func(t *testing.T, b []byte) {
		c1, c2 := net.Pipe()
		defer c1.Close()
		defer c2.Close()
		l := &link{
			s: s, conn: c1, br: bufio.NewReader(c1), log: s.log,
			kick: make(chan struct{}, 1), space: make(chan struct{}, 1),
			done: make(chan struct{}), finished: make(chan struct{}),
			aliases: make(map[uint16]string), remoteSubs: make(map[uint32]uint32),
			remoteQabls: make(map[uint32]uint32), remoteTokens: make(map[uint32]uint32),
			reason: -1, batch: 1024, snMask: 1<<28 - 1, patch: 1, whatami: wire.Client,
		}
		// Twice, so that aliases and fragments carry over.
		for range 2 {
			err := l.handleBatch(b)
			if err != nil && !errors.Is(err, ErrProtocol) && !errors.Is(err, ErrTooLarge) && !errors.Is(err, errLinkClosed) {
				t.Fatalf("unexpected error class: %v", err)
			}
		}
		if l.reasm.size > s.cfg.MaxMessageSize {
			t.Fatalf("reassembly buffer %d over the limit", l.reasm.size)
		}
		s.removeLink(l)
	})
}

// querySeeds encodes the query and liveliness messages a link may receive.
func querySeeds(f *testing.F) [][]byte {
	key := wire.WireExpr{Suffix: []byte("demo/x")}
	ts := wire.Timestamp{Time: 1 << 32, ID: wire.ZenohID{Len: 1, Bytes: [16]byte{7}}}
	msgs := []wire.NetworkMessage{
		&wire.Request{ID: 1, WireExpr: key, Target: wire.TargetAll, Timeout: time.Second,
			Body: wire.Query{Consolidation: wire.ConsolidationNone, Parameters: []byte("a=1"), Attachment: []byte("att"),
				HasBody: true, Body: wire.QueryBody{Encoding: wire.Encoding{ID: 4}, Payload: []byte("q")}}},
		&wire.Response{RequestID: 1, WireExpr: key, Body: &wire.Reply{Body: &wire.Put{HasTimestamp: true, Timestamp: ts, Payload: []byte("p"), Attachment: []byte("a")}}},
		&wire.Response{RequestID: 1, WireExpr: key, Body: &wire.Reply{Body: &wire.Del{}}},
		&wire.Response{RequestID: 1, WireExpr: key, Body: &wire.Err{Payload: []byte("e")}},
		&wire.ResponseFinal{RequestID: 1},
		&wire.Declare{Body: &wire.DeclareQueryable{ID: 3, WireExpr: key, Complete: true}},
		&wire.Declare{Body: &wire.UndeclareQueryable{ID: 3}},
		&wire.Declare{Body: &wire.DeclareToken{ID: 4, WireExpr: key}},
		&wire.Declare{Body: &wire.UndeclareToken{ID: 4, HasWireExpr: true, WireExpr: key}},
		&wire.Interest{ID: 9, Mode: wire.InterestCurrentFuture, Options: wire.InterestTokens | wire.InterestQueryables | wire.InterestRestricted, WireExpr: key},
	}
	var out [][]byte
	for _, m := range msgs {
		b, err := m.AppendBinary(nil)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}
