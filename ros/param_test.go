package ros_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/afor-go/afor/ros"
)

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParameterOverrides(t *testing.T) {
	file := writeFile(t, "params.yaml", `
/**:
  ros__parameters:
    everyone: 1
    rate: 5
/robot/talker:
  ros__parameters:
    rate: 10
    name: "010"
    gains:
      kp: 1.5
      list: [1, 2, 3]
    flags: [yes, off, True]
    words: [a, 'b c']
    hex: 0x1F
    octal: 017
    inf: -.inf
other:
  ros__parameters:
    rate: 99
robot:
  "*":
    ros__parameters:
      star: on
`)
	args := []string{"--ros-args", "--params-file", file, "-p", "rate:=20", "-p", "listener:rate:=30", "-p", "str:='quoted'", "-p", "dbl:=[1.0, 2.5]", "--"}
	net := ros.NewMemoryNetwork()
	n := memNode(t, net, "talker", ros.WithNamespace("/robot"), ros.WithArgs(args))
	for _, c := range []struct {
		name string
		def  any
		want any
	}{
		{"everyone", int64(0), int64(1)},
		{"rate", int64(0), int64(20)}, // -p comes after the file
		{"name", "", "010"},
		{"gains.kp", 0.0, 1.5},
		{"gains.list", []int64{}, []int64{1, 2, 3}},
		{"flags", []bool{}, []bool{true, false, true}},
		{"words", []string{}, []string{"a", "b c"}},
		{"hex", int64(0), int64(31)},
		{"octal", int64(0), int64(15)},
		{"inf", 0.0, math.Inf(-1)},
		{"star", false, true},
		{"str", "", "quoted"},
		{"dbl", []float64{}, []float64{1, 2.5}},
		{"absent", "default", "default"},
	} {
		got, err := n.DeclareParameter(c.name, c.def)
		if err != nil {
			t.Errorf("DeclareParameter(%q): %v", c.name, err)
			continue
		}
		if !equalValues(got, c.want) {
			t.Errorf("DeclareParameter(%q) = %#v, want %#v", c.name, got, c.want)
		}
	}
	if v, err := n.DeclareParameter("ignored", int64(3), ros.ParamIgnoreOverride()); err != nil || v != int64(3) {
		t.Errorf("ParamIgnoreOverride: %v, %v", v, err)
	}
	// An override of another type than the default is refused.
	if _, err := memNode(t, net, "x", ros.WithArgs([]string{"--ros-args", "-p", "k:=abc"})).DeclareParameter("k", int64(1)); !errors.Is(err, ros.ErrParameterType) {
		t.Errorf("override of the wrong type: %v", err)
	}
	// An override gives a parameter without default its type.
	if v, err := memNode(t, net, "y", ros.WithArgs([]string{"--ros-args", "-p", "k:=2"})).DeclareParameter("k", nil); err != nil || v != int64(2) {
		t.Errorf("override without default: %v, %v", v, err)
	}
	// The other node's values.
	l := memNode(t, net, "listener", ros.WithArgs(args))
	if v, _ := l.DeclareParameter("rate", int64(0)); v != int64(30) {
		t.Errorf("listener rate = %v", v)
	}
}

func equalValues(a, b any) bool {
	switch x := a.(type) {
	case []int64:
		return slices.Equal(x, b.([]int64))
	case []bool:
		return slices.Equal(x, b.([]bool))
	case []string:
		return slices.Equal(x, b.([]string))
	case []float64:
		return slices.Equal(x, b.([]float64))
	case []byte:
		return slices.Equal(x, b.([]byte))
	}
	return a == b
}

func TestParameterOverrideErrors(t *testing.T) {
	net := ros.NewMemoryNetwork()
	bad := writeFile(t, "bad.yaml", "talker:\n  ros__parameters:\n    a: 1\n    b: [1, x]\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--ros-args", "-p", "novalue"}, "missing ':='"},
		{[]string{"--ros-args", "-p", "a:=[1, 2.0]"}, "one type"},
		{[]string{"--ros-args", "-p", "a:=[1"}, "not YAML"},
		{[]string{"--ros-args", "-p", ":=1"}, "empty parameter name"},
		{[]string{"--ros-args", "--params-file", bad}, "bad.yaml:4:"},
		{[]string{"--ros-args", "--params-file", filepath.Join(t.TempDir(), "missing.yaml")}, "missing.yaml"},
		{[]string{"--ros-args", "--params-file", writeFile(t, "n.yaml", "a: 1\n")}, "n.yaml:1:"},
		{[]string{"--ros-args", "--params-file", writeFile(t, "t.yaml", "a:\n  ros__parameters: 3\n")}, "t.yaml:2:"},
	} {
		_, err := ros.NewNode(testCtx(t), "talker", ros.WithMiddleware(ros.Memory(net)), ros.WithArgs(c.args))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one with %q", c.args, err, c.want)
		}
		if err != nil && !errors.Is(err, ros.ErrInvalidParameters) && !errors.Is(err, ros.ErrInvalidArgs) {
			t.Errorf("%q: error %v matches neither ErrInvalidParameters nor ErrInvalidArgs", c.args, err)
		}
	}
}

func TestDeclareParameter(t *testing.T) {
	n := memNode(t, ros.NewMemoryNetwork(), "node")
	if _, err := n.DeclareParameter("a", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := n.DeclareParameter("a", 2); !errors.Is(err, ros.ErrParameterAlreadyDeclared) {
		t.Errorf("second declaration: %v", err)
	}
	if _, err := n.DeclareParameter("b", struct{}{}); !errors.Is(err, ros.ErrParameterType) {
		t.Errorf("struct default: %v", err)
	}
	if _, err := n.DeclareParameter("c", nil); !errors.Is(err, ros.ErrParameterType) {
		t.Errorf("nil default: %v", err)
	}
	if _, err := n.DeclareParameter("c", nil, ros.ParamDynamicTyping()); err != nil {
		t.Errorf("nil default, dynamic: %v", err)
	}
	if _, err := n.DeclareParameter("", 1); !errors.Is(err, ros.ErrInvalidName) {
		t.Errorf("empty name: %v", err)
	}
	if _, err := n.DeclareParameter("r", int64(11), ros.ParamIntegerRange(0, 10, 1)); !errors.Is(err, ros.ErrParameterRejected) {
		t.Errorf("default out of range: %v", err)
	}
	remove := n.OnSetParameters(func(ps []ros.Parameter) error {
		if ps[0].Name == "vetoed" {
			return errors.New("no")
		}
		return nil
	})
	if _, err := n.DeclareParameter("vetoed", 1); !errors.Is(err, ros.ErrParameterRejected) || n.HasParameter("vetoed") {
		t.Errorf("vetoed declaration: %v", err)
	}
	remove()
	if _, err := n.DeclareParameter("vetoed", 1); err != nil {
		t.Errorf("after remove: %v", err)
	}
	if _, err := ros.GetParameter[string](n, "a"); !errors.Is(err, ros.ErrParameterType) {
		t.Errorf("GetParameter[string] of an int: %v", err)
	}
	if v, err := ros.GetParameter[int64](n, "a"); err != nil || v != 1 {
		t.Errorf("GetParameter[int64] = %v, %v", v, err)
	}
	if _, err := ros.GetParameter[int64](n, "zz"); !errors.Is(err, ros.ErrParameterNotDeclared) {
		t.Errorf("GetParameter of an undeclared one: %v", err)
	}
	if err := n.UndeclareParameter("a"); !errors.Is(err, ros.ErrParameterRejected) {
		t.Errorf("undeclare a static one: %v", err)
	}
	if err := n.UndeclareParameter("c"); err != nil {
		t.Errorf("undeclare a dynamic one: %v", err)
	}
	if err := n.UndeclareParameter("c"); !errors.Is(err, ros.ErrParameterNotDeclared) {
		t.Errorf("undeclare twice: %v", err)
	}
	errs := n.SetParameters(ros.Parameter{Name: "a", Value: 5}, ros.Parameter{Name: "a", Value: "x"}, ros.Parameter{Name: "zz", Value: 1})
	if errs[0] != nil || !errors.Is(errs[1], ros.ErrParameterType) || !errors.Is(errs[2], ros.ErrParameterNotDeclared) {
		t.Errorf("SetParameters = %v", errs)
	}
	if got := n.ParameterNames(); !slices.Equal(got, []string{"a", "start_type_description_service", "use_sim_time", "vetoed"}) {
		t.Errorf("ParameterNames = %v", got)
	}
	if d, err := n.DescribeParameter("a"); err != nil || d.Type != uint8(ros.ParameterInteger) || d.Name != "a" {
		t.Errorf("DescribeParameter = %+v, %v", d, err)
	}
}

func TestParameterUpdates(t *testing.T) {
	ctx := testCtx(t)
	n := memNode(t, ros.NewMemoryNetwork(), "node")
	updates := n.ParameterUpdates()
	l := updates.Listener(ctx)
	if _, err := n.DeclareParameter("speed", 1.0); err != nil {
		t.Fatal(err)
	}
	if err := n.SetParametersAtomically(ros.Parameter{Name: "speed", Value: 2.0}); err != nil {
		t.Fatal(err)
	}
	_ = n.SetParameters(ros.Parameter{Name: "speed", Value: "fast"}) // refused: not seen
	for _, want := range []float64{1, 2} {
		ps, err := l.Next(ctx)
		if err != nil || len(ps) != 1 || ps[0].Name != "speed" || ps[0].Value != want {
			t.Fatalf("update = %v, %v; want speed=%v", ps, err, want)
		}
	}
	_ = n.Close()
	if _, err := l.Next(ctx); !errors.Is(err, ros.ErrClosed) {
		t.Errorf("after close: %v", err)
	}
}

func TestParameterServicesOff(t *testing.T) {
	n := memNode(t, ros.NewMemoryNetwork(), "quiet", ros.WithParameterServices(false), ros.WithRosout(false),
		ros.WithArgs([]string{"--ros-args", "-p", "start_type_description_service:=false"}))
	g := n.Graph().Snapshot()
	if got := g.Services(); len(got) != 0 {
		t.Errorf("services %v", got)
	}
	if got := g.Topics(); len(got) != 1 || got["/parameter_events"] == nil {
		t.Errorf("topics %v", got)
	}
}

func TestBuiltinEntities(t *testing.T) {
	n := memNode(t, ros.NewMemoryNetwork(), "talker", ros.WithNamespace("/ns"))
	g := n.Graph().Snapshot()
	var services []string
	for s := range g.Services() {
		services = append(services, s)
	}
	slices.Sort(services)
	want := []string{"/ns/talker/describe_parameters", "/ns/talker/get_parameter_types", "/ns/talker/get_parameters",
		"/ns/talker/get_type_description", "/ns/talker/list_parameters", "/ns/talker/set_parameters",
		"/ns/talker/set_parameters_atomically"}
	if !slices.Equal(services, want) {
		t.Errorf("services %v", services)
	}
	pubs := g.Publishers("/rosout")
	if len(pubs) != 1 || pubs[0].QoS != ros.QoSRosout || pubs[0].Type != "rcl_interfaces/msg/Log" {
		t.Errorf("/rosout publishers %+v", pubs)
	}
	if pubs := g.Publishers("/parameter_events"); len(pubs) != 1 || pubs[0].QoS != ros.QoSParameterEvents {
		t.Errorf("/parameter_events publishers %+v", pubs)
	}
}
