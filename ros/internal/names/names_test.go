package names

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestValidateName(t *testing.T) {
	valid := []string{"topic", "/topic", "~", "~/topic", "{node}", "ns/{node}/topic", "foo_bar", "/foo/bar", "_a", "{ns}/x", "a1/b2",
		"abc123", "Foo", "BAR", "{foo}_bar", "foo/{ping}/bar", "foo/_bar", "foo_/bar", "foo_", "/_private/thing",
		"/public_namespace/_private/thing", "{foo1}", "{foo_bar}", "{_bar}",
		"foo//bar"} // "//" is caught after expansion

	for _, n := range valid {
		if err := ValidateName(n); err != nil {
			t.Errorf("ValidateName(%q) = %v, want nil", n, err)
		}
	}
	invalid := []struct {
		name  string
		index int
	}{
		{"", 0},
		{"5foo", 0},
		{"foo/", 3},
		{"foo bar", 3},
		{"foo/~bar", 4},
		{"~foo", 1},
		{"foo/{bar", 4},
		{"foo/bar}", 7},
		{"foo/{{bar}}", 5},
		{"foo/{4bar}", 5},
		{"foo/{bar/baz}", 8},
		{"foo/{bar-baz}", 8},
		{"foo/5bar", 4},
		{"foo-bar", 3},
		{"~f", 1},
		{"123abc", 0},
		{"123", 0},
		{" ", 0},
		{"/~", 1},
		{"foo~", 3},
		{"foo~/bar", 3},
		{"foo/~/bar", 4},
		{"foo/123bar", 4},
		{"foo/bar}/baz", 7},
		{"{$}", 1},
		{"{{bar}_baz}", 1},
		{"{1foo}", 1},
	}
	for _, c := range invalid {
		err := ValidateName(c.name)
		var e *Error
		if !errors.Is(err, ErrInvalidName) || !errors.As(err, &e) {
			t.Errorf("ValidateName(%q) = %v, want an ErrInvalidName", c.name, err)
			continue
		}
		if e.Index != c.index {
			t.Errorf("ValidateName(%q): index %d, want %d (%v)", c.name, e.Index, c.index, err)
		}
	}
}

func TestValidateFullName(t *testing.T) {
	for _, n := range []string{"/a", "/a/b", "/a_1/_b", "/" + strings.Repeat("a", MaxTopicNameLength-1)} {
		if err := ValidateFullName(n); err != nil {
			t.Errorf("ValidateFullName(%q) = %v", n, err)
		}
	}
	for _, c := range []struct {
		name  string
		index int
	}{
		{"", 0}, {"a", 0}, {"/", 0}, {"/a/", 2}, {"/a//b", 3}, {"/a/1b", 3}, {"/a~", 2}, {"/a{b}", 2},
		{"/" + strings.Repeat("a", MaxTopicNameLength), MaxTopicNameLength - 1},
	} {
		var e *Error
		if err := ValidateFullName(c.name); !errors.As(err, &e) || e.Index != c.index {
			t.Errorf("ValidateFullName(%q) = %v, want index %d", c.name, err, c.index)
		}
	}
}

func TestValidateNodeNameAndNamespace(t *testing.T) {
	for _, n := range []string{"talker", "_t", "my_node2"} {
		if err := ValidateNodeName(n); err != nil {
			t.Errorf("ValidateNodeName(%q) = %v", n, err)
		}
	}
	for _, n := range []string{"", "2x", "a/b", "a b", "~", strings.Repeat("a", MaxNodeNameLength+1)} {
		if err := ValidateNodeName(n); !errors.Is(err, ErrInvalidName) {
			t.Errorf("ValidateNodeName(%q) = %v, want ErrInvalidName", n, err)
		}
	}
	for _, n := range []string{"/", "/a", "/a/b_c"} {
		if err := ValidateNamespace(n); err != nil {
			t.Errorf("ValidateNamespace(%q) = %v", n, err)
		}
	}
	for _, n := range []string{"", "a", "/a/", "//", "/a//b", "/1a", "/~", "/" + strings.Repeat("a", MaxNamespaceLength)} {
		if err := ValidateNamespace(n); !errors.Is(err, ErrInvalidName) {
			t.Errorf("ValidateNamespace(%q) = %v, want ErrInvalidName", n, err)
		}
	}
}

func TestExpand(t *testing.T) {
	for _, c := range []struct{ name, node, ns, want string }{
		{"/absolute", "my_node", "/my_ns", "/absolute"},
		{"relative", "my_node", "/my_ns", "/my_ns/relative"},
		{"~", "my_node", "/my_ns", "/my_ns/my_node"},
		{"~/private", "my_node", "/my_ns", "/my_ns/my_node/private"},
		{"{node}", "my_node", "/my_ns", "/my_ns/my_node"},
		{"{ns}", "my_node", "/my_ns", "/my_ns"},
		{"{namespace}", "my_node", "/my_ns", "/my_ns"},
		{"{namespace}/{node}/chatter", "my_node", "/my_ns", "/my_ns/my_node/chatter"},
		{"/{node}", "my_node", "/my_ns", "/my_node"},
		{"{node}/chatter", "my_node", "/my_ns", "/my_ns/my_node/chatter"},
		{"/foo/{node}", "my_node", "/my_ns", "/foo/my_node"},
		{"{ns}/foo", "my_node", "/my_ns", "/my_ns/foo"},
		{"ping", "my_node", "/", "/ping"},
		{"~/ping", "my_node", "/", "/my_node/ping"},
		{"~", "my_node", "/", "/my_node"},
		{"~/{node}", "n", "/x", "/x/n/n"},
	} {
		got, err := Expand(c.name, c.node, c.ns)
		if err != nil || got != c.want {
			t.Errorf("Expand(%q, %q, %q) = %q, %v; want %q", c.name, c.node, c.ns, got, err, c.want)
		}
	}
	for _, c := range []struct{ name, node, ns string }{
		{"{unknown}", "n", "/"},
		{"foo//bar", "n", "/"},
		{"5", "n", "/"},
		{"x", "2n", "/"},
		{"x", "n", "ns"},
		{"{ns}", "n", "/"},
		{"{ns}/foo", "n", "/"},          // "//foo", as rcl
		{"/foo/{namespace}", "n", "/a"}, // "/foo//a", as rcl
		{"{node}/{ns}", "n", "/a"},
		{"/" + strings.Repeat("a", MaxTopicNameLength), "n", "/"},
	} {
		if got, err := Expand(c.name, c.node, c.ns); !errors.Is(err, ErrInvalidName) {
			t.Errorf("Expand(%q, %q, %q) = %q, %v; want ErrInvalidName", c.name, c.node, c.ns, got, err)
		}
	}
}

func mustRules(t *testing.T, rs ...string) []Rule {
	t.Helper()
	var out []Rule
	for _, s := range rs {
		r, err := ParseRule(s)
		if err != nil {
			t.Fatalf("ParseRule(%q): %v", s, err)
		}
		out = append(out, r)
	}
	return out
}

func TestResolve(t *testing.T) {
	for _, c := range []struct {
		rules   []string
		name    string
		node    string
		ns      string
		service bool
		want    string
	}{
		{nil, "chatter", "n", "/", false, "/chatter"},
		{[]string{"foo:=bar"}, "foo", "n", "/", false, "/bar"},
		{[]string{"foo:=bar"}, "/foo", "n", "/", false, "/bar"},
		{[]string{"foo:=bar"}, "foo", "n", "/ns", false, "/ns/bar"},
		{[]string{"/foo:=bar"}, "foo", "n", "/ns", false, "/ns/foo"},
		{[]string{"/foo:=bar"}, "/foo", "n", "/ns", false, "/ns/bar"},
		{[]string{"/ns/foo:=/x"}, "foo", "n", "/ns", false, "/x"},
		{[]string{"foo:=bar", "foo:=baz"}, "foo", "n", "/", false, "/bar"},
		{[]string{"other:foo:=bar", "n:foo:=baz"}, "foo", "n", "/", false, "/baz"},
		{[]string{"~/foo:=/x"}, "~/foo", "n", "/a", false, "/x"},
		{[]string{"~/foo:=/x"}, "/a/n/foo", "n", "/a", false, "/x"},
		{[]string{"foo:=~/y"}, "foo", "n", "/a", false, "/a/n/y"},
		{[]string{"foo:={node}/y"}, "foo", "n", "/a", false, "/a/n/y"},
		{[]string{"rostopic://foo:=bar"}, "foo", "n", "/", true, "/foo"},
		{[]string{"rostopic://foo:=bar"}, "foo", "n", "/", false, "/bar"},
		{[]string{"rosservice://foo:=bar"}, "foo", "n", "/", true, "/bar"},
		{[]string{"rosservice://foo:=bar"}, "foo", "n", "/", false, "/foo"},
		{[]string{"__ns:=/x", "foo:=bar"}, "foo", "n", "/", false, "/bar"},
		// rcl's test_remap cases: node prefixes, relative rules, URL schemes.
		{[]string{"Node1:/foo:=/foo/bar", "Node2:/foo:=/this_one"}, "/foo", "Node2", "/", false, "/this_one"},
		{[]string{"/Node4:/foo:=/bar/foo"}, "/foo", "Node4", "/", false, "/bar/foo"},
		{[]string{"/ns1/Node5:/foo:=/bar/foo"}, "/foo", "Node5", "/ns1", true, "/bar/foo"},
		{[]string{"/ns1/Node5:/foo:=/bar/foo"}, "/foo", "Node5", "/ns2", false, "/foo"},
		{[]string{"/bar/foo:=/foo/bar"}, "/foo/bar", "NodeName", "/", false, "/foo/bar"},
		{[]string{"__ns:=/namespace", "__node:=remap_name", "/foobar:=/foo/bar"}, "/foobar", "NodeName", "/", true, "/foo/bar"},
		{[]string{"rosservice://foo:=bar"}, "/ns/foo", "NodeName", "/ns", true, "/ns/bar"},
		{[]string{"rostopic://foo:=bar"}, "/ns/foo", "NodeName", "/ns", true, "/ns/foo"},
	} {
		got, err := Resolve(mustRules(t, c.rules...), c.name, c.node, c.ns, c.service)
		if err != nil || got != c.want {
			t.Errorf("Resolve(%q, %q, node %q, ns %q) = %q, %v; want %q", c.rules, c.name, c.node, c.ns, got, err, c.want)
		}
	}
}

func TestNodeRules(t *testing.T) {
	rules := mustRules(t, "other:__node:=x", "talker:__name:=renamed", "__node:=all", "talker:__ns:=/t", "__ns:=/g")
	if got := NodeName(rules, "talker", "/"); got != "renamed" {
		t.Errorf("NodeName(talker) = %q", got)
	}
	if got := NodeName(rules, "listener", "/"); got != "all" {
		t.Errorf("NodeName(listener) = %q", got)
	}
	if got := Namespace(rules, "talker", "/"); got != "/t" {
		t.Errorf("Namespace(talker) = %q", got)
	}
	if got := Namespace(rules, "listener", "/"); got != "/g" {
		t.Errorf("Namespace(listener) = %q", got)
	}
	if got := NodeName(mustRules(t, "/ns/talker:__node:=fq"), "talker", "/ns"); got != "fq" {
		t.Errorf("NodeName with a fully qualified prefix = %q", got)
	}
	if got := Namespace(mustRules(t, "Node1:__ns:=/foo/bar", "Node2:__ns:=/this_one"), "Node2", "/"); got != "/this_one" {
		t.Errorf("Namespace(Node2) = %q", got)
	}
	if got := Namespace(nil, "listener", "/keep"); got != "/keep" {
		t.Errorf("Namespace without rules = %q", got)
	}
}

func TestParseArgs(t *testing.T) {
	a, err := ParseArgs([]string{"a", "--ros-args", "-r", "foo:=bar", "--remap", "n:__ns:=/x", "-e", "/enc",
		"-p", "x:=1", "--log-level", "debug", "--disable-rosout-logs", "--", "b", "--ros-args", "-r", "__node:=m"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Rule{
		{Kind: RuleName, Match: "foo", Replacement: "bar"},
		{Node: "n", Kind: RuleNamespace, Replacement: "/x"},
		{Kind: RuleNodeName, Replacement: "m"},
	}
	if !slices.Equal(a.Rules, want) || a.Enclave != "/enc" || !slices.Equal(a.Other, []string{"a", "b"}) {
		t.Errorf("ParseArgs = %+v", a)
	}
	for _, bad := range [][]string{
		{"--ros-args", "-r"},
		{"--ros-args", "--bogus"},
		{"--ros-args", "-r", "foo"},
		{"--ros-args", "-r", "5foo:=bar"},
		{"--ros-args", "-r", "foo:=bar/"},
		{"--ros-args", "-r", "*:=x"},
		{"--ros-args", "-r", "__ns:=x"},
		{"--ros-args", "-r", "__node:=a/b"},
		{"--ros-args", "-r", "__bogus:=a"},
		{"--ros-args", "-r", "1n:foo:=bar"},
		{"--ros-args", "-r", "/a//b:foo:=bar"},
		{"--ros-args", "-e", "enc"},
	} {
		if _, err := ParseArgs(bad); !errors.Is(err, ErrInvalidArgs) {
			t.Errorf("ParseArgs(%q) = %v, want ErrInvalidArgs", bad, err)
		}
	}
	// Outside --ros-args nothing is interpreted.
	a, err = ParseArgs([]string{"-r", "foo:=bar"})
	if err != nil || len(a.Rules) != 0 || len(a.Other) != 2 {
		t.Errorf("non-ROS args: %+v, %v", a, err)
	}
}
