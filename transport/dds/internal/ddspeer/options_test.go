package ddspeer

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestArgsDefaults(t *testing.T) {
	got := Options{Role: Reader}.args()
	want := []string{"--role", "reader", "--topic", "rt/chatter", "--reliability", "reliable",
		"--durability", "volatile", "--depth", "10", "--count", "0", "--period", "0",
		"--size", "0", "--domain", "0", "--wait-match", "0"}
	if !slices.Equal(got, want) {
		t.Errorf("args\n got %q\nwant %q", got, want)
	}
}

func TestArgsAllSet(t *testing.T) {
	got := strings.Join(Options{Role: Writer, Topic: "rt/x", BestEffort: true, TransientLocal: true,
		KeepAll: true, Depth: 3, Count: 5, Period: 250 * time.Millisecond, Size: 1 << 20,
		Domain: 42, WaitMatch: 2}.args(), " ")
	want := "--role writer --topic rt/x --reliability best-effort --durability transient-local" +
		" --depth 0 --count 5 --period 0.25 --size 1048576 --domain 42 --wait-match 2"
	if got != want {
		t.Errorf("args\n got %s\nwant %s", got, want)
	}
}

func TestPayload(t *testing.T) {
	for _, tc := range []struct {
		i, size int
		want    string
	}{
		{0, 0, "0:"},
		{12, 2, "12:"},
		{7, 5, "7:xxx"},
	} {
		if got := Payload(tc.i, tc.size); got != tc.want {
			t.Errorf("Payload(%d, %d) = %q, want %q", tc.i, tc.size, got, tc.want)
		}
	}
	if n := len(Payload(3, 6_000_000)); n != 6_000_000 {
		t.Errorf("6 MB payload is %d bytes", n)
	}
}

func TestParseEvent(t *testing.T) {
	ev, err := ParseEvent(`{"ev":"sample","i":3,"len":100,"ok":true}`)
	if err != nil || ev != (Event{Ev: EvSample, I: 3, Len: 100, OK: true}) {
		t.Errorf("sample: %+v, %v", ev, err)
	}
	ev, err = ParseEvent(`{"ev":"incompatible","side":"offered","policy":"RELIABILITY"}`)
	if err != nil || ev.Side != "offered" || ev.Policy != "RELIABILITY" {
		t.Errorf("incompatible: %+v, %v", ev, err)
	}
	for _, line := range []string{"", "hello", `{"i":1}`, `[1]`, `{"ev":`} {
		if _, err := ParseEvent(line); !errors.Is(err, ErrNotEvent) {
			t.Errorf("ParseEvent(%q): %v, want ErrNotEvent", line, err)
		}
	}
}

func TestTailBufferKeepsTheEnd(t *testing.T) {
	b := tailBuffer{limit: 8}
	b.Write([]byte("0123456"))
	b.Write([]byte("789abc"))
	if got := b.String(); got != "[...]56789abc" {
		t.Errorf("tail %q", got)
	}
}
