package ddsperf

import (
	"errors"
	"testing"
	"time"

	"github.com/afor-go/afor/transport/dds"
)

func TestSample(t *testing.T) {
	for _, size := range []int{0, 12, 13, 64, 4096} {
		b := AppendSample(nil, 7, 0, size)
		SetSeq(b, 9)
		s, err := ParseSample(append(b, 0, 0, 0)) // with padding
		want := max(size, FixedSize)
		if err != nil || s.Seq != 9 || s.KeyVal != 0 || s.Size != want || s.Len != 4+want || len(b) != 4+want {
			t.Errorf("size %d: %+v %v (%d bytes)", size, s, err, len(b))
		}
	}
	// Big endian, as another writer may send it.
	be := []byte{0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 1, 0, 0, 0, 2, 0xee, 0xee}
	if s, err := ParseSample(be); err != nil || s.Seq != 5 || s.KeyVal != 1 || s.Size != 14 {
		t.Errorf("big endian: %+v %v", s, err)
	}
	for _, b := range [][]byte{nil, {0, 1, 0, 0}, {0, 2, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		{0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0}} {
		if _, err := ParseSample(b); !errors.Is(err, ErrBadSample) {
			t.Errorf("%x: %v", b, err)
		}
	}
}

func FuzzParseSample(f *testing.F) {
	f.Add(AppendSample(nil, 1, 0, 64))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 1, 0, 0, 0, 2, 0xee, 0xee})
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseSample(b)
		if err == nil && (s.Len > len(b) || s.Size != s.Len-4) {
			t.Fatalf("%+v from %d bytes", s, len(b))
		}
	})
}

func TestUserData(t *testing.T) {
	b := UserData(true, 1234, "vm")
	if string(b) != "DDSPerf:1:1234:vm" {
		t.Errorf("%q", b)
	}
	p, err := ParseUserData(b)
	if err != nil || p != (Peer{HasReader: true, PID: 1234, Host: "vm"}) {
		t.Errorf("%+v %v", p, err)
	}
	for _, s := range []string{"", "DDSPerf:", "DDSPerf:1:x:h", "enclave=/;", "DDSPerf:0:12:h\x00"} {
		if _, err := ParseUserData([]byte(s)); !errors.Is(err, ErrBadUserData) {
			t.Errorf("%q: %v", s, err)
		}
	}
}

func FuzzParseUserData(f *testing.F) {
	f.Add([]byte("DDSPerf:0:42:host"))
	f.Fuzz(func(t *testing.T, b []byte) { _, _ = ParseUserData(b) })
}

func TestPartition(t *testing.T) {
	var g dds.GUID
	for i := range g {
		g[i] = byte(i * 17)
	}
	if got, want := Partition(g), "00112233_44556677_8899aabb_ccddeeff"; got != want {
		t.Errorf("%s, want %s", got, want)
	}
}

func TestParseArgs(t *testing.T) {
	c, err := ParseArgs([]string{"-i", "7", "-D", "2.5", "ping", "size", "4KiB", "sub"})
	if err != nil || c.Participant.DomainID != 7 || c.Duration != 2500*time.Millisecond || !c.Ping || !c.Sub || c.Pub || c.Size != 4096 {
		t.Errorf("%+v %v", c, err)
	}
	for _, a := range [][]string{{"-i"}, {"-i", "x"}, {"-i", "1.5"}, {"ping", "size", "x"}, {"bogus"}} {
		if _, err := ParseArgs(a); !errors.Is(err, ErrUsage) {
			t.Errorf("%q: %v", a, err)
		}
	}
}

func TestParseLines(t *testing.T) {
	mean, cnt, ok := ParsePingLine("[18678] 7.000  vm:18677 size 64 mean 16.020us min 8.877us 50% 12.308us 90% 13.940us 99% 47.585us max 3005.557us cnt 31092")
	if !ok || mean != 16020*time.Nanosecond || cnt != 31092 {
		t.Errorf("ping line: %v %d %v", mean, cnt, ok)
	}
	rate, total, lost, ok := ParseSubLine("[19078] 9.002  size 64 total 5896296 lost 3 delta 593224 lost 0 rate 591.99 kS/s 303.10 Mb/s (588.40 kS/s 301.26 Mb/s)")
	if !ok || rate != 591990 || total != 5896296 || lost != 3 {
		t.Errorf("sub line: %v %d %d %v", rate, total, lost, ok)
	}
	for _, l := range []string{"", "[1] 1.000 ddsperf: waiting for peers", "size 64 mean", "mean x cnt 3", "total 1 lost 0 rate 5 GS/s x"} {
		if _, _, ok := ParsePingLine(l); ok {
			t.Errorf("ping line %q parsed", l)
		}
		if _, _, _, ok := ParseSubLine(l); ok {
			t.Errorf("sub line %q parsed", l)
		}
	}
}

func FuzzParseLines(f *testing.F) {
	f.Add("[18678] 7.000  vm:18677 size 64 mean 16.020us min 8.877us cnt 31092")
	f.Add("[19078] 9.002  size 64 total 5896296 lost 0 rate 591.99 kS/s 303.10 Mb/s")
	f.Fuzz(func(t *testing.T, l string) {
		ParsePingLine(l)
		ParseSubLine(l)
	})
}
