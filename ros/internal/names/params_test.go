package names

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestParseParamValue(t *testing.T) {
	for _, c := range []struct {
		in   string
		want ParamValue
	}{
		{"true", ParamValue{Type: ParamBool, Bool: true}},
		{"Yes", ParamValue{Type: ParamBool, Bool: true}},
		{"y", ParamValue{Type: ParamBool, Bool: true}},
		{"ON", ParamValue{Type: ParamBool, Bool: true}},
		{"off", ParamValue{Type: ParamBool}},
		{"FALSE", ParamValue{Type: ParamBool}},
		{"tRUE", ParamValue{Type: ParamString, String: "tRUE"}},
		{"42", ParamValue{Type: ParamInteger, Int: 42}},
		{"-7", ParamValue{Type: ParamInteger, Int: -7}},
		{"+7", ParamValue{Type: ParamInteger, Int: 7}},
		{"0x1f", ParamValue{Type: ParamInteger, Int: 31}},
		{"010", ParamValue{Type: ParamInteger, Int: 8}},
		{"0", ParamValue{Type: ParamInteger}},
		{"-9223372036854775808", ParamValue{Type: ParamInteger, Int: math.MinInt64}},
		{"9223372036854775808", ParamValue{Type: ParamDouble, Double: 9223372036854775808}}, // strtol overflows, strtod takes it
		{"1_000", ParamValue{Type: ParamString, String: "1_000"}},
		{"0b11", ParamValue{Type: ParamString, String: "0b11"}},
		{"1.5", ParamValue{Type: ParamDouble, Double: 1.5}},
		{"1e3", ParamValue{Type: ParamDouble, Double: 1000}},
		{".5", ParamValue{Type: ParamDouble, Double: 0.5}},
		{"-.inf", ParamValue{Type: ParamDouble, Double: math.Inf(-1)}},
		{".Inf", ParamValue{Type: ParamDouble, Double: math.Inf(1)}},
		{"hello", ParamValue{Type: ParamString, String: "hello"}},
		{"'true'", ParamValue{Type: ParamString, String: "true"}},
		{`"42"`, ParamValue{Type: ParamString, String: "42"}},
		{"''", ParamValue{Type: ParamString}},
		{"[1, 2]", ParamValue{Type: ParamIntegerArray, Ints: []int64{1, 2}}},
		{"[true, no]", ParamValue{Type: ParamBoolArray, Bools: []bool{true, false}}},
		{"[1.5, 2.0]", ParamValue{Type: ParamDoubleArray, Doubles: []float64{1.5, 2}}},
		{"[a, 'b']", ParamValue{Type: ParamStringArray, Strings: []string{"a", "b"}}},
	} {
		got, err := ParseParamValue(c.in)
		if err != nil {
			t.Errorf("ParseParamValue(%q): %v", c.in, err)
			continue
		}
		if got.Type != c.want.Type || got.Bool != c.want.Bool || got.Int != c.want.Int || got.Double != c.want.Double ||
			got.String != c.want.String || !slices.Equal(got.Ints, c.want.Ints) || !slices.Equal(got.Bools, c.want.Bools) ||
			!slices.Equal(got.Doubles, c.want.Doubles) || !slices.Equal(got.Strings, c.want.Strings) {
			t.Errorf("ParseParamValue(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
	if v, err := ParseParamValue(".nan"); err != nil || v.Type != ParamDouble || !math.IsNaN(v.Double) {
		t.Errorf(".nan = %+v, %v", v, err)
	}
	for _, bad := range []string{"", "[]", "[1, a]", "[1, 1.5]", "{a: 1}", "[[1]]", "[1", "*x"} {
		if v, err := ParseParamValue(bad); err == nil {
			t.Errorf("ParseParamValue(%q) = %+v, want an error", bad, v)
		}
	}
}

func TestParseParamRule(t *testing.T) {
	o, err := ParseParamRule("rate:=10")
	if err != nil || o.Node != "/**" || o.Name != "rate" || o.Value.Int != 10 {
		t.Errorf("rate:=10 = %+v, %v", o, err)
	}
	o, err = ParseParamRule("talker:a.b:=x:=y")
	if err != nil || o.Node != "/talker" || o.Name != "a.b" || o.Value.String != "x:=y" {
		t.Errorf("talker:a.b:=x:=y = %+v, %v", o, err)
	}
	o, err = ParseParamRule("/ns/talker:a:=[1]")
	if err != nil || o.Node != "/ns/talker" || !slices.Equal(o.Value.Ints, []int64{1}) {
		t.Errorf("/ns/talker:a:=[1] = %+v, %v", o, err)
	}
	for _, bad := range []string{"a", ":=1", "a..b:=1", "5x:a:=1", "a:=", "a:=[1, x]"} {
		if _, err := ParseParamRule(bad); !errors.Is(err, ErrInvalidParams) {
			t.Errorf("ParseParamRule(%q): %v", bad, err)
		}
	}
}

func TestParseArgsKeepsParams(t *testing.T) {
	a, err := ParseArgs([]string{"--ros-args", "-p", "a:=1", "--params-file", "f.yaml", "--param", "b:=x"})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Params) != 3 || a.Params[0].Override.Name != "a" || a.Params[1].File != "f.yaml" || a.Params[2].Override.Value.String != "x" {
		t.Errorf("Params = %+v", a.Params)
	}
	if _, err := ParseArgs([]string{"--ros-args", "-p", "a"}); !errors.Is(err, ErrInvalidArgs) || !errors.Is(err, ErrInvalidParams) {
		t.Errorf("bad -p: %v", err)
	}
}

func TestParseParamsFile(t *testing.T) {
	data := `
/**:
  ros__parameters:
    common: 1
ns:
  talker:
    ros__parameters:
      a:
        b: [x, z]
        c: 2.0
/ns/*:
  ros__parameters:
    star: true
empty:
  ros__parameters:
`
	got, err := ParseParamsFile("p.yaml", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	var s []string
	for _, o := range got {
		s = append(s, o.Node+" "+o.Name)
	}
	want := []string{"/** common", "/ns/talker a.b", "/ns/talker a.c", "/ns/* star"}
	if !slices.Equal(s, want) {
		t.Errorf("got %q, want %q", s, want)
	}
	for _, c := range []struct{ data, want string }{
		{"a: [1\n", "p.yaml"},
		{"- 1\n", "p.yaml:1:"},
		{"n:\n  ros__parameters:\n    a: {}\n", ""},
		{"n:\n  ros__parameters:\n    a: [1, b]\n", "p.yaml:3:"},
		{"n:\n  ros__parameters:\n    a:\n", "p.yaml:3:"},
		{"5n:\n  ros__parameters:\n    a: 1\n", "p.yaml:2:"},
		{"ros__parameters:\n  a: 1\n", "p.yaml:1:"},
		{"n:\n  ros__parameters:\n    a: &x 1\n    b: *x\n", "p.yaml:4:"},
	} {
		_, err := ParseParamsFile("p.yaml", []byte(c.data))
		if c.want == "" {
			if err != nil {
				t.Errorf("%q: %v", c.data, err)
			}
			continue
		}
		if !errors.Is(err, ErrInvalidParams) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one with %q", c.data, err, c.want)
		}
	}
	if o, err := ParseParamsFile("e.yaml", nil); err != nil || o != nil {
		t.Errorf("empty file: %v, %v", o, err)
	}
}

func TestMatchNode(t *testing.T) {
	for _, c := range []struct {
		pattern, fqn string
		want         bool
	}{
		{"/**", "/talker", true},
		{"/**", "/a/b/talker", true},
		{"/talker", "/talker", true},
		{"/talker", "/ns/talker", false},
		{"/*", "/talker", true},
		{"/*", "/ns/talker", false},
		{"/ns/*", "/ns/talker", true},
		{"/**/talker", "/talker", true},
		{"/**/talker", "/a/b/talker", true},
		{"/**/talker", "/a/b/listener", false},
		{"/a/**/c", "/a/c", true},
		{"/a/**/c", "/a/x/y/c", true},
		{"/a/**/c", "/a/x/y/d", false},
	} {
		if got := MatchNode(c.pattern, c.fqn); got != c.want {
			t.Errorf("MatchNode(%q, %q) = %v", c.pattern, c.fqn, got)
		}
	}
}
