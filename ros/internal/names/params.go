package names

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// ErrInvalidParams is matched (errors.Is) by the errors for a malformed
// parameter override ("-p name:=value") or parameters file.
var ErrInvalidParams = errors.New("invalid parameter override")

// ParamType is the type of a parameter value, with the numbers of
// rcl_interfaces/msg/ParameterType.
type ParamType uint8

// Parameter types.
const (
	ParamNotSet ParamType = iota
	ParamBool
	ParamInteger
	ParamDouble
	ParamString
	ParamByteArray
	ParamBoolArray
	ParamIntegerArray
	ParamDoubleArray
	ParamStringArray
)

// ParamValue is a parameter value as an override gives it: the field of
// Type holds it.
type ParamValue struct {
	Type    ParamType
	Bool    bool
	Int     int64
	Double  float64
	String  string
	Bools   []bool
	Ints    []int64
	Doubles []float64
	Strings []string
}

// Override is one parameter value given on the command line or in a
// parameters file, for the nodes Node matches (see MatchNode).
type Override struct {
	Node  string // a fully qualified node name, maybe with "*" and "**" wildcards; "/**" for every node
	Name  string // the parameter name, "a.b" for nested keys
	Value ParamValue
}

// Limits that bound what a parameters file or override can make us
// allocate.
const (
	// MaxParamsFileSize is the largest parameters file read.
	MaxParamsFileSize = 16 << 20
	// maxYAMLDepth bounds the nesting of a parameters file.
	maxYAMLDepth = 64
)

// ParseParamRule parses the argument of "-p"/"--param":
// "[node:]name:=value", the value in YAML as rcl reads it (see
// ParseParamValue). Without a node prefix the rule is for every node
// ("/**").
func ParseParamRule(s string) (Override, error) {
	bad := func(reason string) error { return fmt.Errorf("%w: %q: %s", ErrInvalidParams, s, reason) }
	lhs, value, ok := strings.Cut(s, ":=")
	if !ok {
		return Override{}, bad("missing ':='")
	}
	o := Override{Node: "/**", Name: lhs}
	if node, name, ok := strings.Cut(lhs, ":"); ok {
		validate := ValidateNodeName
		if strings.HasPrefix(node, "/") {
			validate = ValidateFullName
		}
		if err := validate(node); err != nil {
			return Override{}, bad("node prefix: " + err.Error())
		}
		o.Node, o.Name = node, name
		if !strings.HasPrefix(o.Node, "/") {
			o.Node = "/" + o.Node
		}
	}
	if err := ValidateParamName(o.Name); err != nil {
		return Override{}, bad(err.Error())
	}
	v, err := ParseParamValue(value)
	if err != nil {
		return Override{}, bad(err.Error())
	}
	o.Value = v
	return o, nil
}

// ValidateParamName checks a parameter name: not empty, no control
// characters, no empty dot-separated part.
func ValidateParamName(name string) error {
	if name == "" {
		return errors.New("empty parameter name")
	}
	for i := 0; i < len(name); i++ {
		if name[i] < 0x20 || name[i] == 0x7f {
			return fmt.Errorf("parameter name %q has a control character at byte %d", name, i)
		}
	}
	if slicesContainsEmpty(strings.Split(name, ".")) {
		return fmt.Errorf("parameter name %q has an empty part", name)
	}
	return nil
}

func slicesContainsEmpty(parts []string) bool {
	for _, p := range parts {
		if p == "" {
			return true
		}
	}
	return false
}

// ParseParamValue parses the value of a "-p name:=value" override as rcl
// does: a YAML scalar or a flow sequence of scalars of one type. A plain
// scalar is a bool (y, yes, true, on, n, no, false, off and their
// capitalised forms), else an integer (C strtol base 0: decimal, 0x hex,
// leading-0 octal), else a double (including .inf and .nan), else a
// string; a quoted scalar is always a string.
func ParseParamValue(s string) (ParamValue, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(s), &doc); err != nil {
		return ParamValue{}, fmt.Errorf("value %q is not YAML: %w", s, err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return ParamValue{}, fmt.Errorf("no value in %q", s)
	}
	return nodeValue(doc.Content[0])
}

// nodeValue converts a YAML scalar or sequence of scalars.
func nodeValue(n *yaml.Node) (ParamValue, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		return scalarValue(n)
	case yaml.SequenceNode:
		return seqValue(n)
	case yaml.AliasNode:
		return ParamValue{}, fmt.Errorf("line %d: aliases are not supported", n.Line)
	default:
		return ParamValue{}, fmt.Errorf("line %d: a parameter value must be a scalar or a sequence of scalars", n.Line)
	}
}

func scalarValue(n *yaml.Node) (ParamValue, error) {
	quoted := n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0
	if !quoted && n.Value == "" {
		return ParamValue{}, fmt.Errorf("line %d: no value", n.Line)
	}
	if quoted || n.Tag == "!!str" && n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return ParamValue{Type: ParamString, String: n.Value}, nil
	}
	return plainScalar(n.Value), nil
}

// plainScalar types an unquoted scalar as rcl_yaml_param_parser does.
func plainScalar(s string) ParamValue {
	switch s {
	case "Y", "y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
		return ParamValue{Type: ParamBool, Bool: true}
	case "N", "n", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF":
		return ParamValue{Type: ParamBool, Bool: false}
	}
	if i, ok := parseCInt(s); ok {
		return ParamValue{Type: ParamInteger, Int: i}
	}
	switch s {
	case ".nan", ".NaN", ".NAN":
		return ParamValue{Type: ParamDouble, Double: math.NaN()}
	case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF":
		return ParamValue{Type: ParamDouble, Double: math.Inf(1)}
	case "-.inf", "-.Inf", "-.INF":
		return ParamValue{Type: ParamDouble, Double: math.Inf(-1)}
	}
	if !strings.Contains(s, "_") {
		if f, err := strconv.ParseFloat(s, 64); err == nil || errors.Is(err, strconv.ErrRange) && !math.IsInf(f, 0) {
			return ParamValue{Type: ParamDouble, Double: f}
		}
	}
	return ParamValue{Type: ParamString, String: s}
}

// parseCInt parses s as C's strtol with base 0 does, accepting only the
// whole string and no overflow.
func parseCInt(s string) (int64, bool) {
	digits := strings.TrimLeft(s, "+-")
	if len(s)-len(digits) > 1 || digits == "" {
		return 0, false
	}
	base := 10
	switch {
	case len(digits) > 2 && (digits[:2] == "0x" || digits[:2] == "0X"):
		base, digits = 16, digits[2:]
	case len(digits) > 1 && digits[0] == '0':
		base, digits = 8, digits[1:]
	}
	u, err := strconv.ParseUint(digits, base, 64)
	if err != nil || strings.ContainsAny(digits, "_+-") {
		return 0, false
	}
	if s[0] == '-' {
		if u > 1<<63 {
			return 0, false
		}
		return int64(-u), true //nolint:gosec // -(1<<63) wraps to MinInt64 as intended
	}
	if u > math.MaxInt64 {
		return 0, false
	}
	return int64(u), true
}

func seqValue(n *yaml.Node) (ParamValue, error) {
	if len(n.Content) == 0 {
		return ParamValue{}, fmt.Errorf("line %d: an empty sequence has no type", n.Line)
	}
	var out ParamValue
	for i, e := range n.Content {
		if e.Kind != yaml.ScalarNode {
			return ParamValue{}, fmt.Errorf("line %d: a sequence may hold only scalars", e.Line)
		}
		v, err := scalarValue(e)
		if err != nil {
			return ParamValue{}, err
		}
		if i > 0 && v.Type+ParamBoolArray-ParamBool != out.Type {
			return ParamValue{}, fmt.Errorf("line %d: sequence should be of one type: %q is not like the first element", e.Line, e.Value)
		}
		switch v.Type {
		case ParamBool:
			out.Type, out.Bools = ParamBoolArray, append(out.Bools, v.Bool)
		case ParamInteger:
			out.Type, out.Ints = ParamIntegerArray, append(out.Ints, v.Int)
		case ParamDouble:
			out.Type, out.Doubles = ParamDoubleArray, append(out.Doubles, v.Double)
		case ParamString:
			out.Type, out.Strings = ParamStringArray, append(out.Strings, v.String)
		}
	}
	return out, nil
}

// ParseParamsFile parses a ROS 2 parameters file (what "--params-file"
// names): a map of node names to "ros__parameters" maps, as
//
//	/ns/talker:          # or talker, /**, /**/talker, /ns/*
//	  ros__parameters:
//	    rate: 10
//	    limits:
//	      speed: 1.5     # the parameter "limits.speed"
//
// Node names may also be nested ("ns:" then "talker:"). file names the
// file in errors, which give its line.
func ParseParamsFile(file string, data []byte) ([]Override, error) {
	if len(data) > MaxParamsFileSize {
		return nil, fmt.Errorf("%w: %s: larger than %d bytes", ErrInvalidParams, file, MaxParamsFileSize)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrInvalidParams, file, err)
	}
	if len(doc.Content) == 0 {
		return nil, nil // an empty file sets nothing
	}
	var out []Override
	if err := walkNodes(&out, doc.Content[0], nil, 0); err != nil {
		return nil, fmt.Errorf("%w: %s:%w", ErrInvalidParams, file, err)
	}
	return out, nil
}

// walkNodes reads the node-name levels of a parameters file.
func walkNodes(out *[]Override, m *yaml.Node, path []string, depth int) error {
	if depth > maxYAMLDepth {
		return fmt.Errorf("%d: nested deeper than %d", m.Line, maxYAMLDepth)
	}
	if m.Kind != yaml.MappingNode {
		return fmt.Errorf("%d: expected a map of node names", m.Line)
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return fmt.Errorf("%d: a node name must be a scalar", k.Line)
		}
		if k.Value == "ros__parameters" {
			if len(path) == 0 {
				return fmt.Errorf("%d: ros__parameters without a node name", k.Line)
			}
			node, err := nodePattern(path)
			if err != nil {
				return fmt.Errorf("%d: %w", k.Line, err)
			}
			if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
				continue
			}
			if err := walkParams(out, node, v, "", depth+1); err != nil {
				return err
			}
			continue
		}
		if err := walkNodes(out, v, append(path[:len(path):len(path)], k.Value), depth+1); err != nil {
			return err
		}
	}
	return nil
}

// nodePattern joins the node-name keys into a fully qualified pattern and
// checks it.
func nodePattern(path []string) (string, error) {
	p := strings.Join(path, "/")
	p = "/" + strings.TrimLeft(p, "/")
	p = strings.ReplaceAll(p, "//", "/")
	if p == "/**" || p == "/*" {
		return p, nil
	}
	for _, part := range strings.Split(p[1:], "/") {
		if part == "*" || part == "**" {
			continue
		}
		if err := ValidateNodeName(part); err != nil {
			return "", fmt.Errorf("node name %q: %w", p, err)
		}
	}
	return p, nil
}

// walkParams reads a ros__parameters map; nested maps make dotted names.
func walkParams(out *[]Override, node string, m *yaml.Node, prefix string, depth int) error {
	if depth > maxYAMLDepth {
		return fmt.Errorf("%d: nested deeper than %d", m.Line, maxYAMLDepth)
	}
	if m.Kind != yaml.MappingNode {
		return fmt.Errorf("%d: ros__parameters must be a map", m.Line)
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Value == "" {
			return fmt.Errorf("%d: a parameter name must be a non-empty scalar", k.Line)
		}
		name := k.Value
		if prefix != "" {
			name = prefix + "." + name
		}
		if v.Kind == yaml.MappingNode {
			if err := walkParams(out, node, v, name, depth+1); err != nil {
				return err
			}
			continue
		}
		if err := ValidateParamName(name); err != nil {
			return fmt.Errorf("%d: %w", k.Line, err)
		}
		val, err := nodeValue(v)
		if err != nil {
			return fmt.Errorf("%d: parameter %q: %w", v.Line, name, err)
		}
		*out = append(*out, Override{Node: node, Name: name, Value: val})
	}
	return nil
}

// MatchNode reports whether a node's fully qualified name matches the
// pattern of an override: "*" stands for one name part, "**" for any
// number of them (none included), as rclcpp and rclpy match parameter
// files' node names.
func MatchNode(pattern, fqn string) bool {
	return matchParts(strings.Split(strings.Trim(pattern, "/"), "/"), strings.Split(strings.Trim(fqn, "/"), "/"))
}

// matchParts matches name parts against pattern parts by dynamic
// programming, in time len(p)*len(s) whatever the wildcards.
func matchParts(p, s []string) bool {
	// ok[j]: p[:i] matches s[:j], for the current i.
	ok := make([]bool, len(s)+1)
	ok[0] = true
	next := make([]bool, len(s)+1)
	for _, part := range p {
		switch part {
		case "**":
			next[0] = ok[0]
			for j := 1; j <= len(s); j++ {
				next[j] = ok[j] || next[j-1]
			}
		default:
			next[0] = false
			for j := 1; j <= len(s); j++ {
				next[j] = ok[j-1] && (part == "*" || part == s[j-1])
			}
		}
		ok, next = next, ok
	}
	return ok[len(s)]
}
