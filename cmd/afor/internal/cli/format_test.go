package cli

import (
	"math"
	"reflect"
	"testing"
	"time"
)

func TestHzStats(t *testing.T) {
	s := hzStats{window: 100}
	t0 := time.Unix(1000, 0)
	var reports []string
	for i := range 25 { // 10 Hz, with one interval of 0.12 s and one of 0.08 s
		at := t0.Add(time.Duration(i) * 100 * time.Millisecond)
		switch i {
		case 5:
			at = at.Add(20 * time.Millisecond)
		}
		s.add(at)
		if r, ok := s.report(); ok {
			reports = append(reports, r)
		}
	}
	// The first report comes a second after the first interval, as ros2's.
	want := []string{
		"average rate: 10.000\n\tmin: 0.080s max: 0.120s std dev: 0.00853s window: 11\n",
		"average rate: 10.000\n\tmin: 0.080s max: 0.120s std dev: 0.00617s window: 21\n",
	}
	if !reflect.DeepEqual(reports, want) {
		t.Fatalf("reports %q, want %q", reports, want)
	}
	// A clock going back starts over.
	s.add(t0)
	if _, ok := s.report(); ok || len(s.intervals) != 0 {
		t.Fatal("no reset on a clock going back")
	}
	// The window bounds what is kept.
	s = hzStats{window: 3}
	for i := range 10 {
		s.add(t0.Add(time.Duration(i) * time.Second))
	}
	if len(s.intervals) != 3 {
		t.Fatalf("%d intervals kept, window 3", len(s.intervals))
	}
}

func TestBwStats(t *testing.T) {
	s := bwStats{window: 100}
	t0 := time.Unix(1000, 0)
	if _, ok := s.report(t0); ok {
		t.Fatal("a report without messages")
	}
	for i := range 10 {
		s.add(t0.Add(time.Duration(i)*100*time.Millisecond), 100+i)
	}
	r, ok := s.report(t0.Add(time.Second))
	if want := "1.04 KB/s from 10 messages\n\tMessage size mean: 0.10 KB min: 0.10 KB max: 0.11 KB\n"; !ok || r != want {
		t.Fatalf("report %q, want %q", r, want)
	}
	s = bwStats{window: 2}
	for i := range 5 {
		s.add(t0.Add(time.Duration(i)*time.Second), 10)
	}
	r, _ = s.report(t0.Add(5 * time.Second))
	if want := "10 B/s from 2 messages\n\tMessage size mean: 10 B min: 10 B max: 10 B\n"; r != want {
		t.Fatalf("report %q, want %q", r, want)
	}
}

func TestPyFloat(t *testing.T) {
	for x, want := range map[float64]string{
		1: "1.0", 0.1: "0.1", -1.5e-07: "-1.5e-07", 1e16: "1e+16", 1.5e16: "1.5e+16", 123456789012345.0: "123456789012345.0",
		0.0001: "0.0001", 0.00001: "1e-05", math.Inf(1): "inf", float64(float32(0.1)): "0.10000000149011612",
	} {
		if got := pyFloat(x); got != want {
			t.Errorf("pyFloat(%v) = %q, want %q", x, got, want)
		}
	}
	if got := pyFloat(math.NaN()); got != "nan" {
		t.Errorf("nan: %q", got)
	}
}

func TestPyString(t *testing.T) {
	for s, want := range map[string]string{
		"abc": "'abc'", "it's": `"it's"`, `"'`: `'"\''`, "a\nb\t\x01": `'a\nb\t\x01'`, "é": "'é'",
	} {
		if got := pyString(s); got != want {
			t.Errorf("pyString(%q) = %s, want %s", s, got, want)
		}
	}
	if got := pyBytes([]byte{0, 'a', 0xff, '\''}); got != `b'\x00a\xff\''` {
		t.Errorf("pyBytes: %s", got)
	}
}

func TestParseParamValue(t *testing.T) {
	for in, want := range map[string]any{
		"5": int64(5), "-2": int64(-2), "1.5": 1.5, "1e3": 1000.0, "true": true, "False": false, "text": "text",
		"'5'": "5", "[1, 2]": []int64{1, 2}, "[1, 2.5]": []float64{1, 2.5}, "[a, b]": []string{"a", "b"},
		"[true, false]": []bool{true, false}, "[]": []string{}, "0x10": "0x10",
	} {
		got, err := parseParamValue(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("parseParamValue(%q) = %#v, %v; want %#v", in, got, err, want)
		}
	}
	for _, bad := range []string{"[1, a]", "[1, 2"} {
		if _, err := parseParamValue(bad); err == nil {
			t.Errorf("parseParamValue(%q) accepted", bad)
		}
	}
}

func FuzzParseParamValue(f *testing.F) {
	for _, s := range []string{"5", "1.5", "true", "[1, 2]", "[a, 1]", "'x'", "[", "]", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parseParamValue(s)
		if err != nil {
			return
		}
		switch v.(type) {
		case bool, int64, float64, string, []bool, []int64, []float64, []string:
		default:
			t.Fatalf("parseParamValue(%q) = %T", s, v)
		}
	})
}

func TestFlagsAnywhere(t *testing.T) {
	var out, errOut syncBuffer
	env := &Env{Stdout: &out, Stderr: &errOut}
	f := newFlags(env, "param set", "NODE NAME VALUE", "")
	n := f.Int("n", 0, "")
	pos, err := f.parse([]string{"/node", "-n", "3", "x", "--", "-5"}, 3, 3)
	if err != nil || *n != 3 || !reflect.DeepEqual(pos, []string{"/node", "x", "-5"}) {
		t.Fatalf("parse: %q, n=%d, %v", pos, *n, err)
	}
}
