package zenoh

import (
	"context"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestEncodingWire(t *testing.T) {
	for _, tc := range []struct {
		enc    Encoding
		id     uint16
		schema string
	}{
		{"", 0, ""},
		{EncodingZenohBytes, 0, ""},
		{EncodingTextPlain, 4, ""},
		{"text/plain;utf-8", 4, "utf-8"},
		{EncodingCDR, 7, ""},
		{"vendor/thing;v=2", customEncodingID, "vendor/thing;v=2"},
	} {
		id, schema := tc.enc.wire()
		if id != tc.id || schema != tc.schema {
			t.Errorf("%q.wire() = %d, %q; want %d, %q", tc.enc, id, schema, tc.id, tc.schema)
		}
		back := encodingFromWire(id, []byte(schema))
		if want := tc.enc; (want == "" && back != EncodingZenohBytes) || (want != "" && back != want) {
			t.Errorf("encodingFromWire(%d, %q) = %q, want %q", id, schema, back, want)
		}
	}
	if e := encodingFromWire(999, nil); e != "zenoh/unknown-999" {
		t.Errorf("unknown id names as %q", e)
	}
}

func TestTimestamp(t *testing.T) {
	at := time.Date(2026, 11, 29, 12, 0, 0, 500_000_000, time.UTC)
	ts := NewTimestamp(at, []byte{1, 2, 0xab})
	if ts.IsZero() || ts.NTP64>>32 != uint64(at.Unix()) || ts.NTP64&0xffffffff != 1<<31 {
		t.Fatalf("NTP64 %#x", ts.NTP64)
	}
	if d := ts.Time().Sub(at); d < -time.Microsecond || d > time.Microsecond {
		t.Fatalf("Time() off by %v", d)
	}
	if s := ts.String(); s != "2026-11-29T12:00:00.5Z/ab0201" {
		t.Fatalf("String() = %q", s)
	}
	if !(Timestamp{}).IsZero() {
		t.Fatal("zero Timestamp not IsZero")
	}
}

func TestConfigDefaults(t *testing.T) {
	r, err := Config{Lease: 2 * time.Second}.resolve()
	if err != nil {
		t.Fatal(err)
	}
	if r.KeepAlive != 500*time.Millisecond || r.BatchSize != 65535 || len(r.ZID) != 16 || r.Logger == nil || r.Mode != ModePeer {
		t.Fatalf("defaults: %+v", r.Config)
	}
	r2, _ := Config{}.resolve()
	if string(r.ZID) == string(r2.ZID) {
		t.Fatal("two sessions drew the same random ZID")
	}
	for _, bad := range []Config{
		{BatchSize: 10}, {BatchSize: 70000}, {Lease: -1}, {ZID: make([]byte, 17)}, {ZID: []byte{1, 0}},
		{Mode: ModeClient, Connect: []string{"tcp/127.0.0.1:1"}, Listen: []string{"tcp/127.0.0.1:2"}}, {Mode: 7},
	} {
		if _, err := bad.resolve(); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func TestCloseEndsAllGoroutines(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx := context.Background()
	a, err := Open(ctx, Config{Listen: []string{"tcp/127.0.0.1:0"}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(ctx, Config{Connect: a.ListenAddrs()})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(ctx, Config{Mode: ModeClient, Connect: a.ListenAddrs()})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan Sample, 1)
	if _, err := c.DeclareSubscriber("g", func(s Sample) { got <- s }); err != nil {
		t.Fatal(err)
	}
	p, _ := b.DeclarePublisher("g")
	if err := p.WaitMatching(ctx); err != nil {
		t.Fatal(err)
	}
	if err := p.Put(ctx, []byte("x")); err != nil {
		t.Fatal(err)
	}
	<-got
	// Closing the listener first makes the others lose their links and
	// start redialling; Close must still stop everything.
	for _, s := range []*Session{a, b, c} {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
