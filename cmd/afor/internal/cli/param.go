package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/afor-go/afor/ros"
)

func paramCommands() []command {
	return []command{
		{"param list", "[NODE]", "list the parameters of a node (of every node without NODE)", paramList},
		{"param get", "NODE NAME", "print a parameter's value", paramGet},
		{"param set", "NODE NAME VALUE", "set a parameter (VALUE in YAML: 5, 1.5, true, text, [1, 2])", paramSet},
		{"param dump", "NODE", "print a node's parameters as a parameters file", paramDump},
	}
}

// paramClient opens the parameter client of node, waiting for its
// services at most timeout.
func paramClient(ctx context.Context, cn *cliNode, node string, timeout time.Duration) (*ros.ParameterClient, error) {
	if !strings.HasPrefix(node, "/") {
		node = "/" + node
	}
	pc, err := ros.NewParameterClient(cn.node, node)
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := pc.WaitReady(wctx); err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, fmt.Errorf("node %s not found, or it has no parameter services (waited %v; afor node list shows the nodes)", node, timeout)
	}
	return pc, nil
}

func paramList(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "param list", "[NODE]", "List the parameters of NODE, or of every node.")
	rf := f.ros(false)
	timeout := f.paramTimeout("a node's")
	pos, err := f.parse(args, 0, 1)
	if err != nil {
		return err
	}
	cn, err := rf.open(ctx)
	if err != nil {
		return err
	}
	defer cn.Close()
	var nodes []string
	if len(pos) == 1 {
		nodes = []string{pos[0]}
	} else {
		g, err := rf.snapshot(ctx, cn)
		if err != nil {
			return err
		}
		nodes = nodeNames(g, func(fq string) bool { return !hidden(fq) && len(g.Servers(fq+"/list_parameters")) > 0 })
	}
	for _, node := range nodes {
		pc, err := paramClient(ctx, cn, node, *timeout)
		if err != nil {
			return err
		}
		names, _, err := pc.List(ctx, nil, 0)
		if err != nil {
			return err
		}
		if len(pos) == 0 {
			fmt.Fprintf(env.Stdout, "%s:\n", pc.Target())
		}
		slices.Sort(names)
		for _, n := range names {
			fmt.Fprintf(env.Stdout, "  %s\n", n)
		}
	}
	return nil
}

func paramGet(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "param get", "NODE NAME", "Print the value of the parameter NAME of NODE, as `ros2 param get` does.")
	rf := f.ros(false)
	timeout := f.paramTimeout("the node's")
	hideType := f.Bool("hide-type", false, "print the value only")
	pos, err := f.parse(args, 2, 2)
	if err != nil {
		return err
	}
	cn, pc, err := rf.openParams(ctx, pos[0], *timeout)
	if err != nil {
		return err
	}
	defer cn.Close()
	vals, err := pc.Get(ctx, pos[1])
	if errors.Is(err, ros.ErrParameterNotDeclared) {
		return fmt.Errorf("parameter %s of %s is not declared (afor param list %s shows its parameters)", pos[1], pc.Target(), pc.Target())
	}
	if err != nil {
		return err
	}
	label, text := paramText(vals[0])
	if label == "" {
		fmt.Fprintln(env.Stdout, "Parameter not set.")
		return nil
	}
	if *hideType {
		fmt.Fprintln(env.Stdout, text)
		return nil
	}
	fmt.Fprintf(env.Stdout, "%s: %s\n", label, text)
	return nil
}

// paramText returns how ros2 param get prints v: "Integer value is", "5".
func paramText(v any) (label, text string) {
	switch x := v.(type) {
	case bool:
		return "Boolean value is", pyBool(x)
	case int64:
		return "Integer value is", strconv.FormatInt(x, 10)
	case float64:
		return "Double value is", pyFloat(x)
	case string:
		return "String value is", x
	case []byte:
		return "Byte values are", "[" + joinEach(x, func(b byte) string { return pyBytes([]byte{b}) }) + "]"
	case []bool:
		return "Boolean values are", "[" + joinEach(x, pyBool) + "]"
	case []int64:
		return "Integer values are", "array('q', [" + joinEach(x, formatInt) + "])"
	case []float64:
		return "Double values are", "array('d', [" + joinEach(x, pyFloat) + "])"
	case []string:
		return "String values are", "[" + joinEach(x, pyString) + "]"
	}
	return "", ""
}

// mapEach returns f of each of xs.
func mapEach[T any](xs []T, f func(T) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

// joinEach returns f of each of xs, joined by ", ".
func joinEach[T any](xs []T, f func(T) string) string { return strings.Join(mapEach(xs, f), ", ") }

func formatInt(n int64) string { return strconv.FormatInt(n, 10) }

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// parseParamValue reads VALUE as ros2 param set does (a YAML scalar or
// flow list): true/false, an integer, a float, a list of one of those or
// of strings, else a string.
func parseParamValue(s string) (any, error) {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "[") {
		if !strings.HasSuffix(t, "]") {
			return nil, fmt.Errorf("malformed VALUE %q: a list must end with ]", s)
		}
		inner := strings.TrimSpace(t[1 : len(t)-1])
		var elems []any
		if inner != "" {
			for e := range strings.SplitSeq(inner, ",") {
				elems = append(elems, scalarParam(strings.TrimSpace(e)))
			}
		}
		return listParam(s, elems)
	}
	return scalarParam(t), nil
}

func scalarParam(s string) any {
	switch s {
	case "true", "True", "TRUE":
		return true
	case "false", "False", "FALSE":
		return false
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n
	}
	if x, err := strconv.ParseFloat(s, 64); err == nil && !strings.ContainsAny(s, "xXpP_") {
		return x
	}
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// listParam makes a typed array of elems, which must share a type (an
// integer among floats is a float, as in ROS).
func listParam(s string, elems []any) (any, error) {
	if len(elems) == 0 {
		return []string{}, nil
	}
	var kinds []string
	for _, e := range elems {
		k := fmt.Sprintf("%T", e)
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	slices.Sort(kinds)
	switch strings.Join(kinds, ",") {
	case "bool":
		return assertEach[bool](elems), nil
	case "int64":
		return assertEach[int64](elems), nil
	case "float64", "float64,int64":
		out := make([]float64, len(elems))
		for i, e := range elems {
			switch x := e.(type) {
			case float64:
				out[i] = x
			case int64:
				out[i] = float64(x)
			}
		}
		return out, nil
	case "string":
		return assertEach[string](elems), nil
	}
	return nil, fmt.Errorf("malformed VALUE %q: the elements of a list must all be booleans, integers, floats or strings", s)
}

// assertEach returns elems, which all hold a T, as a []T.
func assertEach[T any](elems []any) []T {
	out := make([]T, len(elems))
	for i, e := range elems {
		out[i] = e.(T)
	}
	return out
}

func paramSet(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "param set", "NODE NAME VALUE", "Set the parameter NAME of NODE to VALUE (YAML: 5, 1.5, true, text, [1, 2]).\nA negative VALUE goes after --: afor param set /node offset -- -5")
	rf := f.ros(false)
	timeout := f.paramTimeout("the node's")
	pos, err := f.parse(args, 3, 3)
	if err != nil {
		return err
	}
	v, err := parseParamValue(pos[2])
	if err != nil {
		return err
	}
	cn, pc, err := rf.openParams(ctx, pos[0], *timeout)
	if err != nil {
		return err
	}
	defer cn.Close()
	res, err := pc.Set(ctx, ros.Parameter{Name: pos[1], Value: v})
	if err != nil {
		return err
	}
	if res[0] != nil {
		fmt.Fprintf(env.Stdout, "Set parameter failed: %v\n", res[0])
		return fmt.Errorf("parameter %s of %s not set: %w", pos[1], pc.Target(), res[0])
	}
	fmt.Fprintln(env.Stdout, "Set parameter successful")
	return nil
}

func paramDump(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "param dump", "NODE", "Print the parameters of NODE as a parameters file (YAML), as `ros2 param dump` does.")
	rf := f.ros(false)
	timeout := f.paramTimeout("the node's")
	pos, err := f.parse(args, 1, 1)
	if err != nil {
		return err
	}
	cn, pc, err := rf.openParams(ctx, pos[0], *timeout)
	if err != nil {
		return err
	}
	defer cn.Close()
	names, _, err := pc.List(ctx, nil, 0)
	if err != nil {
		return err
	}
	slices.Sort(names)
	vals, err := pc.Get(ctx, names...)
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s:\n  ros__parameters:\n", pc.Target())
	var open []string // the nested keys written so far
	for i, name := range names {
		keys := strings.Split(name, ".")
		common := 0
		for common < len(open) && common < len(keys)-1 && open[common] == keys[common] {
			common++
		}
		open = open[:common]
		for _, k := range keys[common : len(keys)-1] {
			fmt.Fprintf(&b, "%s%s:\n", strings.Repeat("  ", 2+len(open)), yamlString(k))
			open = append(open, k)
		}
		indent := strings.Repeat("  ", 2+len(open))
		writeYAMLParam(&b, indent, keys[len(keys)-1], vals[i])
	}
	fmt.Fprint(env.Stdout, b.String())
	return nil
}

// writeYAMLParam writes "key: value" as PyYAML's dump does; the elements
// of a list as yamlScalar spells them.
func writeYAMLParam(b *strings.Builder, indent, key string, v any) {
	var elems []string
	switch x := v.(type) {
	case nil:
		fmt.Fprintf(b, "%s%s: null\n", indent, yamlString(key))
		return
	case bool, int64, float64, string:
		fmt.Fprintf(b, "%s%s: %s\n", indent, yamlString(key), yamlScalar(x))
		return
	case []byte:
		elems = mapEach(x, func(e byte) string { return formatInt(int64(e)) })
	case []bool:
		elems = mapEach(x, strconv.FormatBool)
	case []int64:
		elems = mapEach(x, formatInt)
	case []float64:
		elems = mapEach(x, pyFloat)
	case []string:
		elems = mapEach(x, yamlString)
	}
	if len(elems) == 0 {
		fmt.Fprintf(b, "%s%s: []\n", indent, yamlString(key))
		return
	}
	fmt.Fprintf(b, "%s%s:\n", indent, yamlString(key))
	for _, e := range elems {
		fmt.Fprintf(b, "%s- %s\n", indent, e)
	}
}

func yamlScalar(v any) string {
	switch x := v.(type) {
	case bool:
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return pyFloat(x)
	case string:
		return yamlString(x)
	}
	return fmt.Sprint(v)
}

// yamlString quotes s when YAML would read it as something else.
func yamlString(s string) string {
	if s == "" || scalarParam(s) != any(s) || strings.ContainsAny(s, ":#{}[],&*!|>'\"%@`\n") ||
		strings.TrimSpace(s) != s || s == "null" || s == "~" || strings.HasPrefix(s, "-") {
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	return s
}
