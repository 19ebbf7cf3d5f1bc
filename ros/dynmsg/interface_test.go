package dynmsg_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/afor-go/afor/ros/dynmsg"
	"github.com/afor-go/afor/ros/idl"
)

func TestListInterfaces(t *testing.T) {
	lines := dynmsg.ListInterfaces(registry(t))
	msgs, srvs, acts := slices.Index(lines, "Messages:"), slices.Index(lines, "Services:"), slices.Index(lines, "Actions:")
	if msgs != 0 || srvs < 0 || acts < srvs {
		t.Fatalf("headers at %d, %d, %d", msgs, srvs, acts)
	}
	for _, c := range []struct {
		line     string
		from, to int
	}{
		{"    std_msgs/msg/String", msgs, srvs},
		{"    sensor_msgs/msg/Image", msgs, srvs},
		{"    std_srvs/srv/SetBool", srvs, acts},
		{"    example_interfaces/action/Fibonacci", acts, len(lines)},
	} {
		if i := slices.Index(lines, c.line); i <= c.from || i >= c.to {
			t.Errorf("%q at %d, want between %d and %d", c.line, i, c.from, c.to)
		}
	}
	for _, l := range lines {
		if strings.Contains(l, "_Request") || strings.Contains(l, "_Goal") || strings.Contains(l, "_SendGoal") {
			t.Errorf("part of a service or action listed: %q", l)
		}
	}
	for _, group := range [][]string{lines[msgs+1 : srvs], lines[srvs+1 : acts], lines[acts+1:]} {
		if !slices.IsSorted(group) || len(group) == 0 {
			t.Errorf("group not sorted or empty: %v", group)
		}
	}
}

func TestShowInterface(t *testing.T) {
	reg := registry(t)
	for _, c := range []struct{ name, want string }{
		{"geometry_msgs/msg/PoseStamped", "std_msgs/Header header\n" +
			"\tbuiltin_interfaces/Time stamp\n\t\tint32 sec\n\t\tuint32 nanosec\n\tstring frame_id\n" +
			"Pose pose\n\tPoint position\n\t\tfloat64 x\n\t\tfloat64 y\n\t\tfloat64 z\n" +
			"\tQuaternion orientation\n\t\tfloat64 x 0\n\t\tfloat64 y 0\n\t\tfloat64 z 0\n\t\tfloat64 w 1\n"},
		{"std_msgs/String", "string data\n"},
		{"example_interfaces/srv/AddTwoInts", "int64 a\nint64 b\n---\nint64 sum\n"},
		{"example_interfaces/action/Fibonacci", "int32 order\n---\nint32[] sequence\n---\nint32[] sequence\n"},
	} {
		got, err := dynmsg.ShowInterface(reg, c.name)
		if err != nil || got != c.want {
			t.Errorf("ShowInterface(%s) = %q, %v\nwant %q", c.name, got, err, c.want)
		}
	}
	if _, err := dynmsg.ShowInterface(reg, "std_msgs/msg/Nope"); !errors.Is(err, dynmsg.ErrUnknownType) {
		t.Errorf("unknown type: %v", err)
	}
	if _, err := dynmsg.ShowInterface(reg, "example_interfaces/srv/AddTwoInts_Request"); !errors.Is(err, dynmsg.ErrUnknownType) {
		t.Errorf("a service part: %v", err)
	}
}

// writeFiles creates files under dir from a map of relative path to text.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, text := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestNewRegistryWithFolders(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"my_msgs/msg/Reading.msg": "# A sensor reading.\n\nstd_msgs/Header header  # when and where\nfloat64 value # the value\nuint8 KIND=3 # a constant\nPart[] parts\n",
		"my_msgs/msg/Part.msg":    "# a part\nstring name \"x#y\" # default has a hash\n",
		"my_msgs/srv/Reset.srv":   "bool hard\n---\nbool ok\n",
		// A folder's type wins over the shipped one.
		"std_msgs/msg/String.msg": "string data\nint32 extra\n",
		"my_msgs/README.md":       "not an interface\n",
	})
	reg, err := dynmsg.NewRegistry(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.Check(); err != nil {
		t.Fatal(err)
	}
	typ := mustType(t, reg, "my_msgs/msg/Reading")
	m, err := typ.ParseYAML("{value: 2.5, parts: [{name: a}]}")
	if err != nil {
		t.Fatal(err)
	}
	want := "header:\n  stamp:\n    sec: 0\n    nanosec: 0\n  frame_id: ''\nvalue: 2.5\nparts:\n- name: a\n"
	if got := typ.FormatYAML(m, dynmsg.FormatOptions{}); got != want {
		t.Errorf("FormatYAML = %q, want %q", got, want)
	}
	if got := mustType(t, reg, "std_msgs/msg/String").Fields(); !slices.Equal(got, []string{"data", "extra"}) {
		t.Errorf("the folder's std_msgs/String was not used: fields %v", got)
	}
	// Nested, comments go; ros2 interface show leaves the '#' of a trailing
	// comment (TestRos2Interface compares with it).
	show, err := dynmsg.ShowInterface(reg, "my_msgs/msg/Reading")
	if err != nil {
		t.Fatal(err)
	}
	wantShow := "# A sensor reading.\n\nstd_msgs/Header header  # when and where\n" +
		"\tbuiltin_interfaces/Time stamp\n\t\tint32 sec\n\t\tuint32 nanosec\n\tstring frame_id\n" +
		"float64 value # the value\nuint8 KIND=3 # a constant\nPart[] parts\n\tstring name \"x#y\" #\n"
	if show != wantShow {
		t.Errorf("ShowInterface =\n%s\nwant\n%s", show, wantShow)
	}
	if !slices.Contains(dynmsg.ListInterfaces(reg), "    my_msgs/srv/Reset") {
		t.Error("my_msgs/srv/Reset not listed")
	}
}

func TestNewRegistryReportsBadFiles(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"good_msgs/msg/Fine.msg":  "int32 x\n",
		"bad_msgs/msg/Broken.msg": "int32 x\nnot a valid line here\n",
	})
	reg, err := dynmsg.NewRegistry(dir, filepath.Join(dir, "missing"))
	if !errors.Is(err, idl.ErrSyntax) || !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "Broken.msg") {
		t.Errorf("NewRegistry error = %v, want the syntax error naming Broken.msg and the missing folder", err)
	}
	if reg == nil {
		t.Fatal("no registry returned with the error")
	}
	if _, err := dynmsg.NewType(reg, "good_msgs/msg/Fine"); err != nil {
		t.Errorf("the good file was not loaded: %v", err)
	}
	if _, err := dynmsg.NewType(reg, "std_msgs/msg/String"); err != nil {
		t.Errorf("the shipped types were not loaded: %v", err)
	}
}

func TestAmentDirs(t *testing.T) {
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	for _, d := range []string{a, c} {
		if err := os.Mkdir(filepath.Join(d, "share"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	got := dynmsg.AmentDirs(a + string(os.PathListSeparator) + b + string(os.PathListSeparator) + string(os.PathListSeparator) + c)
	want := []string{filepath.Join(a, "share"), filepath.Join(c, "share")}
	if !slices.Equal(got, want) {
		t.Errorf("AmentDirs = %v, want %v", got, want)
	}
	if got := dynmsg.AmentDirs(""); len(got) != 0 {
		t.Errorf("AmentDirs(\"\") = %v", got)
	}
}
